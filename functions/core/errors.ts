/**
 * The one application error type. Every failure a client can see is an AppError with a code from
 * the closed set in schemas/errors.ts; the HTTP shell renders it in one place. Anything else that escapes a
 * handler is a bug and is rendered as a bare 500 `internal_error` without its message.
 */
import { ERROR_STATUS, type ErrorCode } from '#schemas/errors.ts';

export interface AppErrorOptions {
  /** The request parameter at fault, when one is. */
  param?: string;
  /** The accepted values, when the parameter takes a closed set. */
  validValues?: readonly (string | number)[];
  /** Extra members merged into the error body (e.g. `allowed_methods`). */
  details?: Record<string, unknown>;
  /** Extra response headers (e.g. `Allow`, `Retry-After`). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly param?: string;
  readonly validValues?: readonly (string | number)[];
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.param = options.param;
    this.validValues = options.validValues;
    this.details = options.details;
    this.headers = options.headers;
  }

  /** True for errors whose message is safe to show the client. */
  get exposed(): boolean {
    return this.status < 500 || this.code === 'upstream_unavailable' || this.code === 'scan_timeout';
  }
}

/** The spec's error body: `{success:false, code, error, error_code, param?, valid_values?, request_id}`. */
export interface ErrorBody {
  success: false;
  code: number;
  error: string;
  error_code: ErrorCode;
  param?: string;
  valid_values?: readonly (string | number)[];
  request_id: string;
  [extra: string]: unknown;
}

const GENERIC_MESSAGE: Partial<Record<ErrorCode, string>> = {
  internal_error: 'Internal server error.',
};

export function errorBody(error: AppError, requestId: string): ErrorBody {
  const body: ErrorBody = {
    success: false,
    code: error.status,
    error: error.exposed ? error.message : (GENERIC_MESSAGE[error.code] ?? 'Internal server error.'),
    error_code: error.code,
    request_id: requestId,
  };
  if (error.param !== undefined) body.param = error.param;
  if (error.validValues !== undefined) body.valid_values = error.validValues;
  if (error.exposed && error.details) Object.assign(body, error.details, { success: false });
  return body;
}

/** Wraps anything thrown into an AppError; unknown throwables become an opaque internal error. */
export function toAppError(thrown: unknown): AppError {
  if (thrown instanceof AppError) return thrown;
  return new AppError('internal_error', 'Internal server error.', { cause: thrown });
}
