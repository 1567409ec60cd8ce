/** The closed set of error codes a client can see, with the HTTP status of each. */
export const ERROR_STATUS = {
  invalid_parameter: 400,
  invalid_json: 400,
  invalid_symbol: 400,
  invalid_interval: 400,
  invalid_cursor: 400,
  invalid_time_range: 400,
  plan_limit: 400,
  plan_no_webhooks: 400,
  response_too_large: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  route_not_found: 404,
  unsupported_for_venue: 404,
  method_not_allowed: 405,
  conflict: 409,
  snapshot_advanced: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  upstream_unavailable: 503,
  scan_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
