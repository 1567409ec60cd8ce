import { describe, expect, it } from 'vitest';
import { AppError, errorBody, toAppError } from '#core/errors.ts';

describe('errorBody', () => {
  it('renders the spec error body with param and valid values for a 400', () => {
    // Prepare
    const error = new AppError('invalid_interval', "Invalid interval '7m'.", { param: 'interval', validValues: ['1m', '5m'] });
    // Act
    const body = errorBody(error, 'req-1');
    // Assess
    expect(body).toEqual({
      success: false,
      code: 400,
      error: "Invalid interval '7m'.",
      error_code: 'invalid_interval',
      param: 'interval',
      valid_values: ['1m', '5m'],
      request_id: 'req-1',
    });
  });

  it('never shows the message of an internal error', () => {
    const body = errorBody(toAppError(new Error('connection string postgres://secret')), 'req-2');
    expect(body).toEqual({ success: false, code: 500, error: 'Internal server error.', error_code: 'internal_error', request_id: 'req-2' });
  });

  it('keeps an AppError as it is when wrapping', () => {
    const error = new AppError('not_found', 'Unknown endpoint.');
    expect(toAppError(error)).toBe(error);
  });

  it('merges route-specific details without letting them override success', () => {
    const error = new AppError('conflict', 'Endpoint is disabled.', { details: { success: true, endpoint_status: 'disabled' } });
    expect(errorBody(error, 'r')).toMatchObject({ success: false, code: 409, endpoint_status: 'disabled' });
  });
});
