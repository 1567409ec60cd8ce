/**
 * The one route table. Each route names its method, path, the route-group function that serves it
 * (a key of FUNCTIONS), whether it needs an API key, and the valibot schemas of its input and
 * output. lib/ builds API Gateway resources from it, the local gateway routes with it, the HTTP
 * shell validates with it, and bin/openapi.ts documents it. Handlers live in the group's entry file.
 */
import * as v from 'valibot';
import type { FunctionName } from './resources.ts';
import type { ParamSchema } from '../schemas/params.ts';
import { HealthSchema } from '../schemas/responses.ts';
import {
  CreateEndpointBody, CreateSubscriptionBody, CreatedEndpointSchema, DeletedSchema, DeliveryLogQuery, DeliverySchema, DryRunBody, DryRunSchema, EndpointSchema,
  EstimateBody, EstimateSchema, EventTypeSchema,
  LimitsSchema, PatchSubscriptionBody, QueuedDeliverySchema, RedeliverySchema, RotatedSecretSchema, SubscriptionSchema, WatchAddressBody, WatchedAddressSchema, idPath,
} from '../schemas/webhooks.ts';
import { FAMILIES, FAMILY_PREFIX, type Family } from './core/venues.ts';
import {
  BreadthHistoryQuery, BreadthSnapshotSchema, CandleSchema, CandlesQuery, InstrumentSchema, OrderFlowQuery, OrderFlowSchema, RecentTradesQuery, TradeSchema, TradesQuery,
  TriggerOrderSchema, TriggerOrdersQuery, symbolPath,
} from '../schemas/market.ts';

export type MarketAction = 'trades' | 'recentTrades' | 'candles' | 'triggerOrders' | 'orderFlow' | 'instruments' | 'instrument' | 'breadthCurrent' | 'breadthHistory';

const FAMILY_LABEL: Readonly<Record<Family, string>> = {
  perpx: 'Perpx', spot: 'Spot', hip3: 'Hip3', hip4: 'Hip4', altx: 'Altx', 'altx-rh': 'AltxRh',
};

interface MarketRouteSpec {
  action: MarketAction;
  suffix: string;
  families: readonly Family[];
  summary: string;
  tag: string;
  query?: RouteDef['query'];
  pathParams?: RouteDef['pathParams'];
  response: RouteDef['response'];
}

const MARKET_ROUTES: readonly MarketRouteSpec[] = [
  {
    action: 'trades', suffix: '/trades/{symbol}', families: FAMILIES, summary: 'Trades (fills) in a time window, oldest first', tag: 'Trades',
    pathParams: symbolPath, query: TradesQuery, response: { status: 200, description: 'A page of trades', shape: 'envelope', schema: v.array(TradeSchema) },
  },
  {
    action: 'recentTrades', suffix: '/trades/{symbol}/recent', families: ['perpx', 'hip4', 'altx', 'altx-rh'], summary: 'The newest trades, newest first', tag: 'Trades',
    pathParams: symbolPath, query: RecentTradesQuery, response: { status: 200, description: 'The newest trades', shape: 'envelope', schema: v.array(TradeSchema) },
  },
  {
    action: 'candles', suffix: '/candles/{symbol}', families: FAMILIES, summary: 'Candles rolled up on demand from 1-minute candles', tag: 'Candles',
    pathParams: symbolPath, query: CandlesQuery, response: { status: 200, description: 'A page of candles; a missing bar is not a zero bar', shape: 'envelope', schema: v.array(CandleSchema) },
  },
  {
    action: 'triggerOrders', suffix: '/orders/{symbol}/tpsl', families: ['perpx', 'hip3', 'hip4'], summary: 'Trigger orders (take-profit / stop-loss)', tag: 'Orders',
    pathParams: symbolPath, query: TriggerOrdersQuery, response: { status: 200, description: 'A page of trigger-order rows', shape: 'envelope', schema: v.array(TriggerOrderSchema) },
  },
  {
    action: 'orderFlow', suffix: '/orders/{symbol}/flow', families: ['perpx', 'hip3', 'hip4'], summary: 'Order-event counts per time bucket', tag: 'Orders',
    pathParams: symbolPath, query: OrderFlowQuery, response: { status: 200, description: 'Order-flow buckets', shape: 'envelope', schema: v.array(OrderFlowSchema) },
  },
  {
    action: 'instruments', suffix: '/instruments', families: FAMILIES, summary: 'The instrument registry (point in time: now)', tag: 'Instruments',
    response: { status: 200, description: 'Every listed instrument', shape: 'envelope', schema: v.array(InstrumentSchema) },
  },
  {
    action: 'instrument', suffix: '/instruments/{symbol}', families: FAMILIES, summary: 'One instrument of the registry', tag: 'Instruments',
    pathParams: symbolPath, response: { status: 200, description: 'The instrument', shape: 'envelope', schema: InstrumentSchema },
  },
];

const operationName = (action: MarketAction) => action.charAt(0).toUpperCase() + action.slice(1);

function marketRoutes(): RouteDef[] {
  const routes: RouteDef[] = [];
  for (const spec of MARKET_ROUTES) {
    for (const family of spec.families) {
      routes.push({
        operationId: `get${FAMILY_LABEL[family]}${operationName(spec.action)}`, method: 'GET', path: `${FAMILY_PREFIX[family]}${spec.suffix}`,
        group: 'market', auth: 'api_key', summary: `${spec.summary} (${family})`, tags: [spec.tag], action: spec.action, family, billed: true,
        pathParams: spec.pathParams, query: spec.query, response: spec.response,
      });
    }
  }
  // Deprecated un-prefixed routes answer like their core replacements.
  const legacy = (suffix: string, action: MarketAction, operationId: string, replacement: string) => {
    const spec = MARKET_ROUTES.find((s) => s.action === action)!;
    routes.push({
      operationId, method: 'GET', path: `/v1${suffix}`, group: 'market', auth: 'api_key', summary: `Deprecated: use ${replacement}`,
      tags: ['Legacy'], deprecated: true, successor: replacement, action, family: 'perpx', billed: true, pathParams: spec.pathParams, query: spec.query, response: spec.response,
    });
  };
  legacy('/trades/{symbol}', 'trades', 'getLegacyTrades', '/v1/perpx/trades/{symbol}');
  legacy('/trades/{symbol}/cursor', 'trades', 'getLegacyTradesCursor', '/v1/perpx/trades/{symbol}');
  legacy('/instruments', 'instruments', 'getLegacyInstruments', '/v1/perpx/instruments');
  legacy('/instruments/{symbol}', 'instrument', 'getLegacyInstrument', '/v1/perpx/instruments/{symbol}');
  return routes;
}

/** `ANY` only on the catch-all, as in API Gateway. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'ANY';

export interface RouteDef {
  operationId: string;
  method: HttpMethod;
  /** API Gateway resource path; `{name}` segments are path parameters. */
  path: string;
  group: FunctionName;
  auth: 'api_key' | 'none';
  summary: string;
  tags: readonly string[];
  deprecated?: boolean;
  /** Left out of the OpenAPI document (the catch-all that answers unknown paths). */
  hidden?: boolean;
  /** Replacement route named in the `Deprecation`/`Link` headers of a deprecated route. */
  successor?: string;
  /** Debits the caller's credits by rows returned (1 per 1,000, at least 1). */
  billed?: boolean;
  /** What the group's handler does for this route, and for which venue family. */
  action?: MarketAction;
  family?: Family;
  pathParams?: Readonly<Record<string, ParamSchema>>;
  query?: Readonly<Record<string, ParamSchema>>;
  body?: v.GenericSchema;
  response: {
    status: number;
    description: string;
    /** `envelope` wraps `schema` as `{success, data, meta}`; `raw` returns it as is. */
    shape: 'envelope' | 'raw';
    schema: v.GenericSchema;
    contentType?: string;
  };
}

export const ROUTES: readonly RouteDef[] = [
  {
    operationId: 'getHealth',
    method: 'GET',
    path: '/health',
    group: 'system',
    auth: 'none',
    summary: 'Liveness check; needs no key and does not validate one',
    tags: ['System'],
    response: { status: 200, description: 'The service is up', shape: 'raw', schema: HealthSchema },
  },
  {
    operationId: 'getOpenApi',
    method: 'GET',
    path: '/v1/openapi.json',
    group: 'system',
    auth: 'none',
    summary: 'This OpenAPI 3.0.3 document',
    tags: ['System'],
    response: { status: 200, description: 'The OpenAPI document', shape: 'raw', schema: v.record(v.string(), v.unknown()) },
  },
  ...marketRoutes(),
  ...breadthRoutes(),
  ...webhookRoutes(),
  {
    // API Gateway answers an unmatched path before any authorizer runs. This catch-all makes it
    // authenticate first, so callers without a valid key get 401 on every path (as the real
    // service does) and authenticated callers get 404 route_not_found.
    operationId: 'unknownRoute',
    method: 'ANY',
    path: '/{proxy+}',
    group: 'system',
    auth: 'api_key',
    hidden: true,
    summary: 'Any path no route matches',
    tags: ['System'],
    response: { status: 404, description: 'No route matches this path', shape: 'raw', schema: v.unknown() },
  },
];

/** One line per OpenAPI tag. */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  System: 'Liveness and this document; no key needed.',
  Trades: 'Fills per venue family; decimals are strings, times RFC 3339 UTC.',
  Candles: 'OHLCV rolled up on demand from 1-minute candles.',
  Orders: 'Trigger orders and order flow from order-level events.',
  Instruments: 'The point-in-time instrument registry per family.',
  Legacy: 'Deprecated un-prefixed routes that answer like the core family.',
  Breadth: 'Share of instruments above session VWAP, computed every minute.',
  Webhooks: 'Signed webhook notifications: catalogue, allowances and endpoints.',
};

/** Breadth above session VWAP, core and hip3 only (no spot, no hip4 breadth). */
function breadthRoutes(): RouteDef[] {
  return (['perpx', 'hip3'] as const).flatMap((family): RouteDef[] => [
    {
      operationId: `get${FAMILY_LABEL[family]}BreadthCurrent`, method: 'GET', path: `${FAMILY_PREFIX[family]}/breadth/above-vwap/current`,
      group: 'breadth-api', auth: 'api_key', billed: true, summary: `Latest breadth snapshot, even if stale (${family})`, tags: ['Breadth'],
      action: 'breadthCurrent', family,
      response: { status: 200, description: 'The latest snapshot', shape: 'envelope', schema: BreadthSnapshotSchema },
    },
    {
      operationId: `get${FAMILY_LABEL[family]}BreadthHistory`, method: 'GET', path: `${FAMILY_PREFIX[family]}/breadth/above-vwap`,
      group: 'breadth-api', auth: 'api_key', billed: true, summary: `Breadth minute history (${family})`, tags: ['Breadth'],
      action: 'breadthHistory', family, query: BreadthHistoryQuery,
      response: { status: 200, description: 'Snapshots, oldest first', shape: 'envelope', schema: v.array(BreadthSnapshotSchema) },
    },
  ]);
}

/** Webhook management (SPEC "Webhook routes"; paths not shown there follow the real service). */
function webhookRoutes(): RouteDef[] {
  const route = (operationId: string, method: HttpMethod, path: string, summary: string, response: RouteDef['response'], extra: Partial<RouteDef> = {}): RouteDef => ({
    operationId, method, path: `/v1/webhooks${path}`, group: 'webhooks', auth: 'api_key', summary, tags: ['Webhooks'], response, ...extra,
  });
  const one = (schema: v.GenericSchema, description: string, status = 200): RouteDef['response'] => ({ status, description, shape: 'envelope', schema });
  return [
    route('listWebhookEventTypes', 'GET', '/event-types', 'The live catalogue of event declarations', one(v.array(EventTypeSchema), 'Every declared event type')),
    route('getWebhookLimits', 'GET', '/limits', 'Allowances and usage of the caller\'s plan', one(LimitsSchema, 'Plan, delivery inclusion, used versus limit')),
    route('listWebhookEndpoints', 'GET', '/endpoints', 'The caller\'s endpoints, oldest first (no secrets)', one(v.array(EndpointSchema), 'Endpoints')),
    route('createWebhookEndpoint', 'POST', '/endpoints', 'Create an endpoint; its secret is shown once', one(CreatedEndpointSchema, 'The endpoint with its secret', 201), { body: CreateEndpointBody }),
    route('getWebhookEndpoint', 'GET', '/endpoints/{id}', 'One endpoint (no secret)', one(EndpointSchema, 'The endpoint'), { pathParams: idPath }),
    route('deleteWebhookEndpoint', 'DELETE', '/endpoints/{id}', 'Delete an endpoint', one(DeletedSchema, 'Deleted'), { pathParams: idPath }),
    route('enableWebhookEndpoint', 'POST', '/endpoints/{id}/enable', 'Re-enable a disabled endpoint', one(EndpointSchema, 'The endpoint, active'), { pathParams: idPath }),
    route('rotateWebhookSecret', 'POST', '/endpoints/{id}/rotate', 'A new secret, shown once; the previous one stays valid 24 hours', one(RotatedSecretSchema, 'The new secret'), { pathParams: idPath }),
    route('testWebhookEndpoint', 'POST', '/endpoints/{id}/test', 'Queue a signed webhook.test delivery', one(QueuedDeliverySchema, 'The queued delivery', 202), { pathParams: idPath }),
    route('listWebhookDeliveries', 'GET', '/endpoints/{id}/deliveries', 'The endpoint\'s delivery log, newest first (30 days)', one(v.array(DeliverySchema), 'Deliveries'), { pathParams: idPath, query: DeliveryLogQuery }),
    route('redeliverWebhookDelivery', 'POST', '/deliveries/{id}/redeliver', 'A new attempt of a past delivery, keeping its event id', one(RedeliverySchema, 'The delivery, pending again', 202), { pathParams: idPath }),
    route('listWebhookSubscriptions', 'GET', '/subscriptions', 'The caller\'s subscriptions across endpoints', one(v.array(SubscriptionSchema), 'Subscriptions')),
    route('createWebhookSubscription', 'POST', '/subscriptions', 'Create a rule; echoes the stored configuration with defaults', one(SubscriptionSchema, 'The subscription', 201), { body: CreateSubscriptionBody }),
    route('getWebhookSubscription', 'GET', '/subscriptions/{id}', 'One subscription', one(SubscriptionSchema, 'The subscription'), { pathParams: idPath }),
    route('patchWebhookSubscription', 'PATCH', '/subscriptions/{id}', 'Replace the configuration, or switch enabled', one(SubscriptionSchema, 'The subscription'), { pathParams: idPath, body: PatchSubscriptionBody }),
    route('deleteWebhookSubscription', 'DELETE', '/subscriptions/{id}', 'Remove a rule', one(DeletedSchema, 'Deleted'), { pathParams: idPath }),
    route('resumeWebhookSubscription', 'POST', '/subscriptions/{id}/resume', 'Resume one paused rule (replays nothing)', one(SubscriptionSchema, 'The subscription; sibling gap'), { pathParams: idPath }),
    route('resumeAllWebhookSubscriptions', 'POST', '/subscriptions/resume', 'Resume every paused rule (replays nothing)', one(v.array(SubscriptionSchema), 'Resumed subscriptions; siblings resumed_count and gap')),
    route('estimateWebhookSubscription', 'POST', '/subscriptions/estimate', 'How often a rule would fire: per day over lookback_days, a threshold ladder and the metric\'s distribution (6 calls a minute with dry-run)',
      one(EstimateSchema, 'The estimate'), { body: EstimateBody, group: 'webhook-preview' }),
    route('dryRunWebhookSubscription', 'POST', '/subscriptions/dry-run', 'What a rule would have delivered over the last lookback_s, newest first (6 calls a minute with estimate)',
      one(DryRunSchema, 'The occurrences'), { body: DryRunBody, group: 'webhook-preview' }),
    route('listWatchedAddresses', 'GET', '/addresses', 'Watched addresses; sibling limit is the plan\'s cap', one(v.array(WatchedAddressSchema), 'Watched addresses')),
    route('watchAddress', 'POST', '/addresses', 'Watch an address (idempotent); sibling limit', one(WatchedAddressSchema, 'The watched address', 201), { body: WatchAddressBody }),
    route('unwatchAddress', 'DELETE', '/addresses/{id}', 'Stop watching an address', one(DeletedSchema, 'Deleted'), { pathParams: idPath }),
  ];
}

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
  AUTHORIZER_FAILURE: { status: 503, errorCode: 'upstream_unavailable', message: 'Authentication is temporarily unavailable. Retry shortly.' },
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
export const API_KEY_HEADER = 'X-API-Key';
