/**
 * What a store's refusal means to a caller. When DynamoDB throttles, S3 answers 503 `SlowDown` or a
 * 5xx, or a connection is reset, and the SDK's own retries (deps.ts, RETRY_SETTINGS) are spent,
 * the request could not be answered now but would be shortly: the spec's 503 with `Retry-After`
 * (`upstream_unavailable`), never the 500 of a bug. The SDK's errors are recognised here, in the
 * shell, so the core never learns the SDK's types.
 */
import { AppError } from '../core/errors.ts';

/** Error names AWS gives throttling (the SDK's own list, for the services the functions use). */
const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'RequestLimitExceededException',
  'LimitExceededException',
]);
/** Network failures between the function and the store (Node's codes, and the SDK's timeout). */
const TRANSIENT = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);

/** Seconds a client is told to wait: the store's throttling passes in about that long. */
export const STORE_RETRY_AFTER_S = 1;

interface MaybeSdkError {
  name?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  $fault?: unknown;
  cause?: unknown;
}

/** True when `thrown`, or an error it was caused by, is a store's throttling, 5xx or a reset connection. */
export function isStoreUnavailable(thrown: unknown): boolean {
  for (
    let error = thrown as MaybeSdkError | undefined, depth = 0;
    error && typeof error === 'object' && depth < 5;
    error = error.cause as MaybeSdkError | undefined, depth += 1
  ) {
    if (error instanceof AppError) return false;
    if (THROTTLING.has(String(error.name)) || TRANSIENT.has(String(error.name)) || TRANSIENT.has(String(error.code))) return true;
    const status = Number(error.$metadata?.httpStatusCode);
    if (error.$fault === 'server' && status >= 500) return true;
  }
  return false;
}

/** `thrown` as the one error type: a store that cannot answer now is a 503 with `Retry-After`. */
export function storeUnavailableAsAppError(thrown: unknown): unknown {
  if (!isStoreUnavailable(thrown)) return thrown;
  return new AppError('upstream_unavailable', 'The archive store is busy right now. Retry shortly.', {
    cause: thrown,
    headers: { 'retry-after': String(STORE_RETRY_AFTER_S) },
  });
}
