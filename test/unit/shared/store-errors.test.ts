import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ConditionalCheckFailedException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { AppError } from '#core/errors.ts';
import { isStoreUnavailable, storeUnavailableAsAppError } from '#shared/store-errors.ts';

const sdkError = (name: string, status: number, fault: 'client' | 'server') =>
  Object.assign(new Error(name), { name, $fault: fault, $metadata: { httpStatusCode: status } });

describe('a store that cannot answer now', () => {
  it.each([
    ['DynamoDB throttling', new ProvisionedThroughputExceededException({ message: 'exceeded', $metadata: { httpStatusCode: 400 } })],
    ['the account-level throttle', sdkError('ThrottlingException', 400, 'client')],
    ['S3 SlowDown', sdkError('SlowDown', 503, 'server')],
    ['a 500', sdkError('InternalError', 500, 'server')],
    ['a reset connection', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
    ['the SDK timing out', Object.assign(new Error('timed out'), { name: 'TimeoutError' })],
    ['a throttle wrapped by the code that met it', new Error('file cache failed', { cause: sdkError('SlowDown', 503, 'server') })],
  ])('is %s: a 503 upstream_unavailable with Retry-After', (_, thrown) => {
    expect(isStoreUnavailable(thrown)).toBe(true);
    const mapped = storeUnavailableAsAppError(thrown);
    expect(mapped).toBeInstanceOf(AppError);
    expect(mapped).toMatchObject({ code: 'upstream_unavailable', status: 503, headers: { 'retry-after': '1' }, cause: thrown });
  });

  it.each([
    ['a refused condition', new ConditionalCheckFailedException({ message: 'no', $metadata: { httpStatusCode: 400 } })],
    ['a bad request', sdkError('ValidationException', 400, 'client')],
    ['a missing object', sdkError('NoSuchKey', 404, 'client')],
    ['an application error', new AppError('not_found', 'gone')],
    ['a bug', new TypeError('x is undefined')],
    ['something not an error', 'text'],
  ])('is not %s (passed on as it was thrown)', (_, thrown) => {
    expect(isStoreUnavailable(thrown)).toBe(false);
    expect(storeUnavailableAsAppError(thrown)).toBe(thrown);
  });

  it('never turns a client error (4xx other than throttling) into a 503, whatever its name', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 30 }).filter((n) => !/thrott|slowdown|limitexceeded|toomany|timeout|exceeded/i.test(n)),
        fc.integer({ min: 400, max: 499 }),
        (name, status) => {
          expect(isStoreUnavailable(sdkError(name, status, 'client'))).toBe(false);
        },
      ),
    );
  });
});
