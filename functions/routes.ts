/**
 * The one route table, typed. Routes are declared per route group (a key of FUNCTIONS), one file
 * each in routes/<group>.ts, as operations (routes/operation.ts): each names its input schemas
 * (path, query, body) and its response schema, and where it is served (one path, or one path per
 * venue family). The group's handler file implements each operation with input and output typed
 * from these schemas (functions/shared/http.ts); lib/ builds API Gateway resources from ROUTES, the
 * local gateway routes with it, the HTTP shell validates with it, and shared/openapi.ts documents it.
 */
import type { FunctionName } from './resources.ts';
import { type OperationGroup, type RouteDef, type UnsupportedPath, routesOf, unsupportedPathsOf } from './routes/operation.ts';
import { SYSTEM_OPERATIONS } from './routes/system.ts';
import { MARKET_OPERATIONS } from './routes/market.ts';
import { DERIVATIVES_OPERATIONS } from './routes/derivatives.ts';
import { ORDERBOOK_OPERATIONS } from './routes/orderbook.ts';
import { POSITIONS_OPERATIONS } from './routes/positions.ts';
import { BREADTH_OPERATIONS } from './routes/breadth.ts';
import { PREVIEW_OPERATIONS, WEBHOOK_OPERATIONS } from './routes/webhooks.ts';
import { EXPORT_OPERATIONS } from './routes/exports.ts';
import { DATA_QUALITY_OPERATIONS } from './routes/data-quality.ts';

export const OPERATION_GROUPS: readonly OperationGroup[] = [
  SYSTEM_OPERATIONS,
  MARKET_OPERATIONS,
  DERIVATIVES_OPERATIONS,
  ORDERBOOK_OPERATIONS,
  POSITIONS_OPERATIONS,
  BREADTH_OPERATIONS,
  WEBHOOK_OPERATIONS,
  PREVIEW_OPERATIONS,
  EXPORT_OPERATIONS,
  DATA_QUALITY_OPERATIONS,
];

export const ROUTES: readonly RouteDef[] = OPERATION_GROUPS.flatMap(routesOf);

/**
 * A lacking family's path that is also the parent of one of its routes (altx-rh's `/accounts` under
 * its `/accounts/{account_index}/...`) is a resource already, so the catch-all never sees it: it
 * answers `route_not_found`.
 */
export const UNSUPPORTED_PATHS: readonly UnsupportedPath[] = OPERATION_GROUPS.flatMap(unsupportedPathsOf).filter(
  (unsupported) => !ROUTES.some((route) => route.path.startsWith(`${unsupported.path}/`)),
);

/** A route path as a pattern over request paths: `{name}` is one segment, `{name+}` the rest. */
export function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)(\+?)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return param[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

/** How API Gateway ranks a resource path's segment: a literal, then a parameter, then the greedy rest. */
const segmentRank = (segment: string) => (!segment.startsWith('{') ? 2 : segment.endsWith('+}') ? 0 : 1);

/** Orders resource paths most specific first, the order in which API Gateway tries those a request path matches. */
function bySpecificity(a: string, b: string): number {
  const [x, y] = [a.split('/'), b.split('/')];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const preferred = segmentRank(y[i]!) - segmentRank(x[i]!);
    if (preferred) return preferred;
  }
  // Equal over the shorter path: by length, then by path, so the order is total. Ties that were not
  // transitive let the sort put `/subscriptions/{id}` before `/subscriptions/resume` once routes were added.
  return x.length - y.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** The items on the resource a request path selects, with its path parameters (still percent-encoded). */
export interface ResourceMatch<T> {
  items: T[];
  params: Record<string, string>;
}

/**
 * Matches request paths as API Gateway matches them against its resources: among the items (each
 * on a resource `path`) whose path matches, those on the most specific one. The local gateway picks
 * resources with it; a route group's function picks its route.
 */
export function resourceMatcher<T extends { path: string }>(items: readonly T[]): (requestPath: string) => ResourceMatch<T> | undefined {
  const compiled = [...items]
    .sort((a, b) => bySpecificity(a.path, b.path))
    .map((item) => ({ item, pattern: pathPattern(item.path), names: [...item.path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1]!) }));
  return (requestPath) => {
    const first = compiled.find((c) => c.pattern.test(requestPath));
    if (!first) return undefined;
    const values = first.pattern.exec(requestPath)!.slice(1);
    return {
      items: compiled.filter((c) => c.item.path === first.item.path).map((c) => c.item),
      params: Object.fromEntries(first.names.map((name, i) => [name, values[i]!])),
    };
  };
}

/** One line per OpenAPI tag. */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  System: 'Liveness and this document; no key needed.',
  Trades: 'Fills per venue family; decimals are strings, times RFC 3339 UTC.',
  Candles: 'OHLCV rolled up on demand from 1-minute candles.',
  Orders: 'Trigger orders and order flow from order-level events.',
  Instruments: 'The point-in-time instrument registry per family.',
  'Open interest': 'Open interest samples per market; hip4 per outcome side.',
  Funding: 'Funding rates per perpetual market: decimal fractions, not annualized.',
  'Market state': 'Price history, the latest summary of a market, and how fresh each of its datasets is.',
  Liquidations: 'Liquidation fills and liquidated notional per bucket; side A = a long liquidated, B = a short.',
  Legacy: 'Deprecated un-prefixed routes that answer like the core family.',
  'Order books': 'Native snapshots, order-level (L4) books and diffs, and full-depth L2 derived from them.',
  Positions: 'Account and market positions rebuilt from archived fills: as-of reads, change log, hourly snapshots, market and bulk rows.',
  Breadth: 'Share of instruments above session VWAP, computed every minute.',
  Webhooks: 'Signed webhook notifications: catalogue, allowances and endpoints.',
  'Data quality': 'Status, coverage and gaps, incidents, latency and the monthly SLA, measured by the service itself.',
  Exports:
    'Bulk export jobs: trades and order events as ZSTD Parquet in versioned schemas (trades.v1, order_events.v1), quoted from the manifest, downloaded through short-lived links.',
};

/** Route groups that have at least one route: each becomes one HTTP Lambda function. */
export function routeGroups(): FunctionName[] {
  return [...new Set(ROUTES.map((r) => r.group))];
}

/**
 * Responses the gateway itself produces, before or instead of a handler. The CDK app turns these
 * into API Gateway gateway responses; the local gateway renders them from the same entries.
 */
export const GATEWAY_RESPONSES = {
  UNAUTHORIZED: { status: 401, errorCode: 'unauthorized', message: 'Missing or invalid API key. Provide the X-API-Key header.' },
  // The authorizer denies unknown keys; the spec wants 401 for those too, never 403.
  ACCESS_DENIED: { status: 401, errorCode: 'unauthorized', message: 'Missing or invalid API key. Provide the X-API-Key header.' },
  // API Gateway answers an unknown path with this type (a 403 by default).
  MISSING_AUTHENTICATION_TOKEN: { status: 404, errorCode: 'route_not_found', message: 'No route matches this path.' },
  THROTTLED: { status: 429, errorCode: 'rate_limited', message: 'Rate limit exceeded for this plan. Slow down.' },
  QUOTA_EXCEEDED: { status: 429, errorCode: 'rate_limited', message: 'Request quota exceeded for this plan.' },
  // The authorizer's store throttled or failed past its retries: a client may retry after a second.
  AUTHORIZER_FAILURE: { status: 503, errorCode: 'upstream_unavailable', message: 'Authentication is temporarily unavailable. Retry shortly.', retryAfterS: 1 },
  AUTHORIZER_CONFIGURATION_ERROR: { status: 503, errorCode: 'upstream_unavailable', message: 'Authentication is temporarily unavailable. Retry shortly.' },
  REQUEST_TOO_LARGE: { status: 413, errorCode: 'payload_too_large', message: 'The request body exceeds 10 MB.' },
  // The authorizer returned a usage key that no usage plan holds: an account provisioned wrongly.
  INVALID_API_KEY: { status: 403, errorCode: 'forbidden', message: 'This API key is not enabled for a plan. Contact support.' },
  BAD_REQUEST_BODY: { status: 400, errorCode: 'invalid_parameter', message: 'The request body is invalid.' },
  BAD_REQUEST_PARAMETERS: { status: 400, errorCode: 'invalid_parameter', message: 'The request parameters are invalid.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, errorCode: 'unsupported_media_type', message: 'Send JSON bodies as application/json.' },
  WAF_FILTERED: { status: 403, errorCode: 'forbidden', message: 'The request was blocked.' },
  INTEGRATION_TIMEOUT: { status: 504, errorCode: 'scan_timeout', message: 'The request took too long. Narrow the time window and retry.' },
  DEFAULT_5XX: { status: 500, errorCode: 'internal_error', message: 'Internal server error.' },
} as const;

export type GatewayResponseType = keyof typeof GATEWAY_RESPONSES;

/** A known path called with a method it does not have (an `ANY` mock method in API Gateway). */
export const METHOD_NOT_ALLOWED = { status: 405, errorCode: 'method_not_allowed', message: 'Method not allowed on this path.' } as const;

/** How long API Gateway (and the local gateway) reuses an authorizer answer for the same key. */
export const AUTHORIZER_CACHE_TTL_S = 300;

/** Response headers every answer carries, whoever produced it. */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * The response-shape version: clients send it on every request and every answer carries it. The
 * real service's clients spell the header `0xArchive-Version`; both spellings are read.
 */
export const API_VERSION = '2026-10-01';

export const API_VERSION_HEADER = 'svc-version';

export const API_VERSION_REQUEST_HEADERS = [API_VERSION_HEADER, '0xarchive-version'] as const;

export const API_KEY_HEADER = 'X-API-Key';
