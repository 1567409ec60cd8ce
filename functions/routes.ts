/**
 * The one route table, typed. Routes are declared per route group (a key of FUNCTIONS) as
 * operations: each names its input schemas (path, query, body) and its response schema, and where
 * it is served (one path, or one path per venue family). The group's handler file implements each
 * operation with input and output typed from these schemas (functions/shared/http.ts); lib/ builds
 * API Gateway resources from ROUTES, the local gateway routes with it, the HTTP shell validates
 * with it, and shared/openapi.ts documents it.
 */
import * as v from 'valibot';
import type { FunctionName } from './resources.ts';
import { paramMeta, stringParam, type CursorForm, type ParamSchema } from '../schemas/params.ts';
import { HealthSchema } from '../schemas/responses.ts';
import { familiesOf } from '../schemas/datasets.ts';
import { CapabilitySchema, type DataType } from '../schemas/capabilities.ts';
import {
  CreateEndpointBody, CreateSubscriptionBody, CreatedEndpointSchema, DeletedSchema, DeliveryLogQuery, DeliverySchema, DryRunBody, DryRunSchema, EndpointSchema,
  EstimateBody, EstimateSchema, EventTypeSchema,
  LimitSibling, LimitsSchema, NoteSibling, PatchSubscriptionBody, ResumeAllSiblings, ResumeSiblings, QueuedDeliverySchema, RedeliverySchema, RotatedSecretSchema, SubscriptionSchema, WatchAddressBody, WatchedAddressSchema, idPath,
} from '../schemas/webhooks.ts';
import { FAMILIES, FAMILY_PREFIX, type Family } from './core/venues.ts';
import {
  CreateExportBody, CreateExportHeaders, DownloadQuery, ExportDownloadSchema, ExportJobSchema, ExportQuoteSchema, ListExportsQuery, exportFilePath, exportIdPath,
} from '../schemas/exports.ts';
import { BREADTH_FAMILIES } from './core/breadth/compute.ts';
import { ReplayBody, ReplayJobSchema, ReplayPageQuery, ReplayPageSchema, replayIdPath } from '../schemas/replays.ts';
import {
  CoverageSchema, ExchangeCoverageSchema, IncidentSchema, IncidentsQuery, IncidentsSchema, LatencySchema, SlaQuery, SlaSchema, StatsSchema, StatusSchema, SymbolCoverageQuery, SymbolCoverageSchema, SymbolEntrySchema,
  exchangePath, exchangeSymbolPath, incidentPath,
} from '../schemas/quality.ts';
import {
  AltxLiquidationSchema, AltxLiquidationVolumeSchema, BreadthHistoryQuery, BreadthSnapshotSchema, CandleSchema, CoinFreshnessSchema, CoinSummarySchema, FundingSchema, PriceSnapshotSchema, LiquidationSchema, LiquidationVolumeQuery, LiquidationVolumeSchema, LiquidationsQuery, UserLiquidationsQuery, userPath, OpenInterestSchema, SeriesQuery, CandlesQuery, InstrumentSchema, OrderFlowQuery, OrderFlowSchema, OutcomeSchema, OutcomesQuery, SpotPairSchema, outcomePath, RecentTradesQuery, TradeSchema, TradesQuery,
  TriggerOrderSchema, TriggerOrdersQuery, symbolPath,
} from '../schemas/market.ts';
import {
  BookHistoryQuery, BookQuery, FullDepthBookSchema, FullDepthHistoryQuery, FullDepthQuery, L2DiffSchema, L2DiffsQuery, L3HistoryQuery, L3Query, L3SnapshotSchema,
  L4DiffSchema, L4DiffsQuery, L4HistoryQuery, L4Query, L4SnapshotSchema, OrderBookSchema, TickHistorySchema,
} from '../schemas/orderbook.ts';
import {
  AccountHistoryQuery, AccountQuery, AccountSummarySchema, BulkPositionsQuery, L1AccountsQuery, L1AccountsSchema, MarketPositionSchema, MarketPositionsQuery, MarketSummaryQuery,
  MarketSummarySchema, PositionChangeSchema, PositionSchema, PositionsFreshnessSchema, WalletPositionsQuery, WalletPositionsSchema, WalletRangeQuery, accountIndexPath, addressPath,
} from '../schemas/positions.ts';

/** `ANY` only on the catch-all, as in API Gateway. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'ANY';

export type ParamSchemas = Readonly<Record<string, ParamSchema>>;

export interface ResponseSpec {
  status: number;
  description: string;
  /** `envelope` wraps `schema` as `{success, data, meta}`; `raw` returns it as is. */
  shape: 'envelope' | 'raw';
  schema: v.GenericSchema;
  /** Envelope members beside `data` (the webhook routes' `note`, `limit`, `gap`). */
  siblings?: Readonly<Record<string, v.GenericSchema>>;
  contentType?: string;
}

/** Served at one path, or under every family's prefix (with deprecated un-prefixed aliases). */
type Placement =
  | { method: HttpMethod; path: string }
  | { suffix: string; families: readonly Family[]; datatype: DataType; legacy?: readonly { path: string; operationId: string }[] };

/** One operation: what it accepts and answers, and where. Handlers are typed from it. */
export type OperationSpec = Placement & {
  summary: string;
  tags: readonly string[];
  /** Default `api_key`. */
  auth?: 'api_key' | 'none';
  /** Debits the caller's credits by rows returned (1 per 1,000, at least 1). */
  billed?: boolean;
  /** Left out of the OpenAPI document (the catch-all that answers unknown paths). */
  hidden?: boolean;
  pathParams?: ParamSchemas;
  query?: ParamSchemas;
  /** Request headers the operation reads, by lower-case name: validated by the shell, documented. */
  headers?: ParamSchemas;
  body?: v.GenericSchema;
  response: ResponseSpec;
};

export interface OperationGroup<Ops extends Readonly<Record<string, OperationSpec>> = Readonly<Record<string, OperationSpec>>> {
  group: FunctionName;
  operations: Ops;
}

export function operationGroup<const Ops extends Readonly<Record<string, OperationSpec>>>(group: FunctionName, operations: Ops): OperationGroup<Ops> {
  return { group, operations };
}

export interface RouteDef {
  operationId: string;
  /** The key of the operation (in its group) that serves this route. */
  operation: string;
  method: HttpMethod;
  /** API Gateway resource path; `{name}` segments are path parameters. */
  path: string;
  group: FunctionName;
  auth: 'api_key' | 'none';
  summary: string;
  tags: readonly string[];
  deprecated?: boolean;
  hidden?: boolean;
  /** Replacement route named in the `Deprecation`/`Link` headers of a deprecated route. */
  successor?: string;
  billed?: boolean;
  /** The venue family a per-family route serves. */
  family?: Family;
  /** What a per-family route serves, as `/v1/capabilities` lists it. */
  datatype?: DataType;
  pathParams?: ParamSchemas;
  query?: ParamSchemas;
  headers?: ParamSchemas;
  /**
   * The real service's transparent cursor form, where it has one (its `cursor` parameter's, see
   * cursorParam; reference §4.3, and breadth's the spec's): the route emits and accepts it, and the
   * shell neither seals nor opens it, except the sealed cursors the route issued before it had a
   * form (core/cursor-seal.ts admitCursor). Absent, every cursor the route hands out is sealed with
   * the cursor key and bound to the route.
   */
  cursorForm?: CursorForm;
  body?: v.GenericSchema;
  response: ResponseSpec;
}

const FAMILY_LABEL: Readonly<Record<Family, string>> = {
  perpx: 'Perpx', spot: 'Spot', hip3: 'Hip3', hip4: 'Hip4', altx: 'Altx', 'altx-rh': 'AltxRh',
};

const capitalized = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** `openInterest` -> `open_interest`: operation names as data types and tool names. */
export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The path of a per-family operation under a family that lacks it. It is not a route (API Gateway
 * would need a resource and methods for each, and a stack holds 500 resources): the catch-all
 * answers it with 404 `unsupported_for_venue` naming where the data is, not a bare `route_not_found`.
 */
export interface UnsupportedPath {
  path: string;
  venue: Family;
  datatype: string;
  availableOn: readonly { venue: Family; route: string }[];
}

/** Where each per-family operation of a group is not offered, in declaration order. */
export function unsupportedPathsOf(operationGroup: OperationGroup): UnsupportedPath[] {
  return Object.entries(operationGroup.operations).flatMap(([operation, spec]) => {
    if ('path' in spec) return [];
    const availableOn = spec.families.map((venue) => ({ venue, route: `${FAMILY_PREFIX[venue]}${spec.suffix}` }));
    return FAMILIES.filter((f) => !spec.families.includes(f))
      .map((venue) => ({ path: `${FAMILY_PREFIX[venue]}${spec.suffix}`, venue, datatype: snakeCase(operation), availableOn }));
  });
}

/** The routes of one group, in declaration order. */
export function routesOf(operationGroup: OperationGroup): RouteDef[] {
  const routes: RouteDef[] = [];
  for (const [operation, spec] of Object.entries(operationGroup.operations)) {
    const { summary, tags, auth = 'api_key', billed, hidden, pathParams, query, headers, body, response } = spec;
    const cursorForm = query?.cursor && paramMeta(query.cursor)?.cursorForm;
    const common = { operation, group: operationGroup.group, auth, billed, hidden, pathParams, query, headers, ...(cursorForm && { cursorForm }), body, response };
    if ('path' in spec) {
      routes.push({ ...common, operationId: operation, method: spec.method, path: spec.path, summary, tags });
      continue;
    }
    for (const family of spec.families) {
      routes.push({
        ...common, operationId: `get${FAMILY_LABEL[family]}${capitalized(operation)}`, method: 'GET', path: `${FAMILY_PREFIX[family]}${spec.suffix}`,
        summary: `${summary} (${family})`, tags, family, datatype: spec.datatype,
      });
    }
    // Deprecated un-prefixed routes answer like their core (perpx) replacements.
    const successor = `${FAMILY_PREFIX.perpx}${spec.suffix}`;
    for (const alias of spec.legacy ?? []) {
      routes.push({
        ...common, operationId: alias.operationId, method: 'GET', path: alias.path, summary: `Deprecated: use ${successor}`, tags: ['Legacy'],
        deprecated: true, successor, family: 'perpx',
      });
    }
  }
  return routes;
}

/** The response specs keep their schema's type: handlers' output is checked against it. */
const page = <const S extends v.GenericSchema>(schema: S, description: string, status = 200, siblings?: ResponseSpec['siblings']) =>
  ({ status, description, shape: 'envelope' as const, schema, ...(siblings && { siblings }) });

export const SYSTEM_OPERATIONS = operationGroup('system', {
  getHealth: {
    method: 'GET', path: '/health', auth: 'none', summary: 'Liveness check; needs no key and does not validate one', tags: ['System'],
    response: { status: 200, description: 'The service is up', shape: 'raw', schema: HealthSchema },
  },
  getOpenApi: {
    method: 'GET', path: '/v1/openapi.json', auth: 'none', summary: 'This OpenAPI 3.0.3 document', tags: ['System'],
    response: { status: 200, description: 'The OpenAPI document', shape: 'raw', schema: v.record(v.string(), v.unknown()) },
  },
  getCapabilities: {
    method: 'GET', path: '/v1/capabilities', auth: 'none', summary: 'What each family serves: routes, coverage start, cadence, page limit, intervals (no key; cached 5 minutes)',
    tags: ['System'], response: page(v.array(CapabilitySchema), 'One row per family and data type, generated from the route table'),
  },
  // The API reference: Redoc (a standalone bundle from node_modules, served by this function, so
  // the page needs no network beyond this API) over the OpenAPI document.
  getDocs: {
    method: 'GET', path: '/docs', auth: 'none', hidden: true, summary: 'The API reference page, rendered from the OpenAPI document', tags: ['System'],
    response: { status: 200, description: 'An HTML page', shape: 'raw', schema: v.string(), contentType: 'text/html' },
  },
  getDocsScript: {
    method: 'GET', path: '/docs/redoc.standalone.js', auth: 'none', hidden: true, summary: 'The renderer of the API reference page', tags: ['System'],
    response: { status: 200, description: 'JavaScript', shape: 'raw', schema: v.string(), contentType: 'application/javascript' },
  },
  getSymbols: {
    method: 'GET', path: '/v1/symbols', auth: 'none', summary: 'Every symbol of every family with data in the last 24 hours: data types, coverage, bytes a day (no key; cached 5 minutes)',
    tags: ['System'], response: page(v.array(SymbolEntrySchema), 'One entry per family and symbol'),
  },
  getStats: {
    method: 'GET', path: '/v1/stats', auth: 'none', summary: 'What the archive holds: families, symbols, data types, records and bytes of the last 24 hours, open incidents (no key; cached 5 minutes)',
    tags: ['System'], response: page(StatsSchema, 'Archive statistics'),
  },
  getStatusCoverage: {
    method: 'GET', path: '/v1/status/coverage', auth: 'none', summary: 'Coverage per venue and data type over the last 30 days, as /v1/data-quality/coverage (no key; cached 5 minutes)',
    tags: ['System'], response: page(CoverageSchema, 'Coverage of every venue'),
  },
  // API Gateway answers an unmatched path before any authorizer runs. This catch-all makes it
  // authenticate first, so callers without a valid key get 401 on every path (as the real
  // service does) and authenticated callers get 404 route_not_found.
  unknownRoute: {
    method: 'ANY', path: '/{proxy+}', hidden: true, summary: 'Any path no route matches', tags: ['System'],
    pathParams: { proxy: stringParam({ description: 'The request path without its leading slash', required: true }) },
    response: { status: 404, description: 'No route matches this path', shape: 'raw', schema: v.unknown() },
  },
});

/**
 * Market data per venue family. A route's families are the families that have its dataset (the
 * dataset registry's coverage); recent trades are served only where the venue publishes a live
 * trade tape (SPEC "Trades").
 */
export const MARKET_OPERATIONS = operationGroup('market', {
  trades: {
    datatype: 'trades',
    suffix: '/trades/{symbol}', families: familiesOf('trades'), summary: 'Trades (fills) in a time window, oldest first', tags: ['Trades'], billed: true,
    legacy: [{ path: '/v1/trades/{symbol}', operationId: 'getLegacyTrades' }, { path: '/v1/trades/{symbol}/cursor', operationId: 'getLegacyTradesCursor' }],
    pathParams: symbolPath, query: TradesQuery, response: page(v.array(TradeSchema), 'A page of trades'),
  },
  recentTrades: {
    datatype: 'trades',
    suffix: '/trades/{symbol}/recent', families: ['perpx', 'hip4', 'altx', 'altx-rh'], summary: 'The newest trades, newest first', tags: ['Trades'], billed: true,
    pathParams: symbolPath, query: RecentTradesQuery, response: page(v.array(TradeSchema), 'The newest trades'),
  },
  candles: {
    datatype: 'candles',
    suffix: '/candles/{symbol}', families: familiesOf('candles_1m'), summary: 'Candles rolled up on demand from 1-minute candles', tags: ['Candles'], billed: true,
    pathParams: symbolPath, query: CandlesQuery, response: page(v.array(CandleSchema), 'A page of candles; a missing bar is not a zero bar'),
  },
  triggerOrders: {
    datatype: 'trigger_orders',
    suffix: '/orders/{symbol}/tpsl', families: familiesOf('order_events'), summary: 'Trigger orders (take-profit / stop-loss)', tags: ['Orders'], billed: true,
    pathParams: symbolPath, query: TriggerOrdersQuery, response: page(v.array(TriggerOrderSchema), 'A page of trigger-order rows'),
  },
  orderFlow: {
    datatype: 'order_flow',
    suffix: '/orders/{symbol}/flow', families: familiesOf('order_events'), summary: 'Order-event counts per time bucket', tags: ['Orders'], billed: true,
    pathParams: symbolPath, query: OrderFlowQuery, response: page(v.array(OrderFlowSchema), 'Order-flow buckets'),
  },
  instruments: {
    datatype: 'instruments',
    suffix: '/instruments', families: familiesOf('instruments'), summary: 'The instrument registry (point in time: now)', tags: ['Instruments'], billed: true,
    legacy: [{ path: '/v1/instruments', operationId: 'getLegacyInstruments' }],
    response: page(v.array(InstrumentSchema), 'Every listed instrument'),
  },
  instrument: {
    datatype: 'instruments',
    suffix: '/instruments/{symbol}', families: familiesOf('instruments'), summary: 'One instrument of the registry', tags: ['Instruments'], billed: true,
    legacy: [{ path: '/v1/instruments/{symbol}', operationId: 'getLegacyInstrument' }],
    pathParams: symbolPath, response: page(InstrumentSchema, 'The instrument'),
  },
  spotPairs: {
    datatype: 'instruments',
    suffix: '/pairs', families: ['spot'], summary: 'Spot pairs of the token registry (point in time: now)', tags: ['Instruments'], billed: true,
    response: page(v.array(SpotPairSchema), 'Every listed pair, by pair index'),
  },
  spotPair: {
    datatype: 'instruments',
    suffix: '/pairs/{symbol}', families: ['spot'], summary: 'One spot pair', tags: ['Instruments'], billed: true,
    pathParams: symbolPath, response: page(SpotPairSchema, 'The pair'),
  },
  outcomes: {
    datatype: 'instruments',
    suffix: '/outcomes', families: ['hip4'], summary: 'Outcome markets, both sides each, by id', tags: ['Instruments'], billed: true,
    query: OutcomesQuery, response: page(v.array(OutcomeSchema), 'A page of outcomes (without aggregated_oi)'),
  },
  outcome: {
    datatype: 'instruments',
    suffix: '/outcomes/{outcome_id}', families: ['hip4'], summary: 'One outcome market, with the open interest of both sides', tags: ['Instruments'], billed: true,
    pathParams: outcomePath, response: page(OutcomeSchema, 'The outcome'),
  },
});

/**
 * Where a sampled series is served: every family with its dataset, and the deprecated un-prefixed
 * core path (`/v1<suffix>`) as `getLegacy<Operation>`.
 */
const sampledSeries = (dataset: 'open_interest' | 'funding', operation: string, suffix: string, tag: string) => ({
  suffix, families: familiesOf(dataset), tags: [tag], billed: true, pathParams: symbolPath,
  legacy: [{ path: `/v1${suffix}`, operationId: `getLegacy${capitalized(operation)}` }],
});

/** Families with liquidations: core and hip3 in the shared dataset, altx in its own. */
const LIQUIDATION_FAMILIES = FAMILIES.filter((f) => familiesOf('liquidations').includes(f) || familiesOf('altx_liquidations').includes(f));

/** Open interest, funding, liquidations and the per-market state (prices, summary, freshness) per family that has the data. */
export const DERIVATIVES_OPERATIONS = operationGroup('derivatives', {
  openInterest: {
    datatype: 'oi',
    ...sampledSeries('open_interest', 'openInterest', '/openinterest/{symbol}', 'Open interest'),
    summary: 'Open interest history: native cadence, or the last sample per interval',
    query: SeriesQuery, response: page(v.array(OpenInterestSchema), 'A page of open-interest samples, oldest first'),
  },
  openInterestCurrent: {
    datatype: 'oi',
    ...sampledSeries('open_interest', 'openInterestCurrent', '/openinterest/{symbol}/current', 'Open interest'),
    summary: 'The newest open-interest sample and its age', response: page(OpenInterestSchema, 'The newest sample; meta.age_ms says how old'),
  },
  funding: {
    datatype: 'funding',
    ...sampledSeries('funding', 'funding', '/funding/{symbol}', 'Funding'),
    summary: 'Funding-rate history: native cadence, or the last sample per interval',
    query: SeriesQuery, response: page(v.array(FundingSchema), 'A page of funding samples, oldest first'),
  },
  fundingCurrent: {
    datatype: 'funding',
    ...sampledSeries('funding', 'fundingCurrent', '/funding/{symbol}/current', 'Funding'),
    summary: 'The newest funding sample and its age', response: page(FundingSchema, 'The newest sample; meta.age_ms says how old'),
  },
  liquidations: {
    datatype: 'liquidations',
    suffix: '/liquidations/{symbol}', families: LIQUIDATION_FAMILIES, tags: ['Liquidations'], billed: true, pathParams: symbolPath,
    summary: 'Liquidation fills of a market, oldest first; a cascade\'s fills stay individual rows',
    query: LiquidationsQuery, response: page(v.array(v.union([LiquidationSchema, AltxLiquidationSchema])), 'A page of liquidation fills (altx: its own row shape)'),
  },
  userLiquidations: {
    datatype: 'liquidations',
    suffix: '/liquidations/user/{user}', families: ['perpx'], tags: ['Liquidations'], billed: true, pathParams: userPath,
    summary: 'A wallet\'s liquidations, as the liquidated party or the liquidator, oldest first',
    query: UserLiquidationsQuery, response: page(v.array(LiquidationSchema), 'A page of liquidation fills'),
  },
  liquidationVolume: {
    datatype: 'liquidations',
    suffix: '/liquidations/{symbol}/volume', families: LIQUIDATION_FAMILIES, tags: ['Liquidations'], billed: true, pathParams: symbolPath,
    summary: 'Liquidated notional per bucket, long and short, with counts (altx: total and count)',
    query: LiquidationVolumeQuery, response: page(v.array(v.union([LiquidationVolumeSchema, AltxLiquidationVolumeSchema])), 'Buckets with liquidations, oldest first'),
  },
  prices: {
    datatype: 'market_state',
    suffix: '/prices/{symbol}', families: familiesOf('open_interest'), tags: ['Market state'], billed: true, pathParams: symbolPath,
    summary: 'Mark, oracle and mid price history: native cadence, or the last sample per interval',
    query: SeriesQuery, response: page(v.array(PriceSnapshotSchema), 'A page of price snapshots, oldest first'),
  },
  summary: {
    datatype: 'market_state',
    suffix: '/summary/{symbol}', families: familiesOf('open_interest'), tags: ['Market state'], billed: true, pathParams: symbolPath,
    summary: 'The latest prices, funding and open interest, with 24-hour traded and liquidated notional',
    response: page(CoinSummarySchema, 'The summary; members the family does not have are absent'),
  },
  freshness: {
    datatype: 'market_state',
    suffix: '/freshness/{symbol}', families: FAMILIES, tags: ['Market state'], billed: true, pathParams: symbolPath,
    summary: 'Per dataset, the newest record of the market and its lag behind now',
    response: page(CoinFreshnessSchema, 'One bucket per dataset the family has'),
  },
});

/** Full-depth L2 is derived from the order-level book, on core and hip3 only; L4 is the perpx families', L3 altx's. */
const FULL_DEPTH_FAMILIES: readonly Family[] = ['perpx', 'hip3'];
const L4_FAMILIES: readonly Family[] = ['perpx', 'spot', 'hip3', 'hip4'];
const book = (suffix: string, families: readonly Family[]) => ({ suffix, families, tags: ['Order books'], billed: true, pathParams: symbolPath });

/** Order books: native snapshots, order-level (L4) books and diffs, and full-depth L2 derived from them. */
export const ORDERBOOK_OPERATIONS = operationGroup('orderbook', {
  orderbook: {
    datatype: 'l2_orderbook',
    ...book('/orderbook/{symbol}', familiesOf('l2_snapshots')), legacy: [{ path: '/v1/orderbook/{symbol}', operationId: 'getLegacyOrderbook' }],
    summary: 'The native book snapshot at or before an instant (default now)', query: BookQuery,
    response: page(OrderBookSchema, 'The book, levels best first; mid, spread and spread_bps when both sides have one'),
  },
  orderbookHistory: {
    datatype: 'l2_orderbook',
    ...book('/orderbook/{symbol}/history', familiesOf('l2_snapshots')), legacy: [{ path: '/v1/orderbook/{symbol}/history', operationId: 'getLegacyOrderbookHistory' }],
    summary: 'Native book snapshots in a window, oldest first (altx, altx-rh: finer granularities and tick deltas)', query: BookHistoryQuery,
    response: page(v.union([v.array(OrderBookSchema), TickHistorySchema]), 'A page of books; with granularity=tick, the book at start and its deltas'),
  },
  l2Orderbook: {
    datatype: 'l2_full_depth',
    ...book('/orderbook/{symbol}/l2', FULL_DEPTH_FAMILIES), summary: 'Full-depth L2 at an instant: the order-level book aggregated by price',
    query: FullDepthQuery, response: page(FullDepthBookSchema, 'Every level (or depth per side); counts and totals before truncation'),
  },
  l2OrderbookHistory: {
    datatype: 'l2_full_depth',
    ...book('/orderbook/{symbol}/l2/history', FULL_DEPTH_FAMILIES), summary: 'Full-depth L2 at each checkpoint in a window, oldest first',
    query: FullDepthHistoryQuery, response: page(v.array(FullDepthBookSchema), 'A page of full-depth books'),
  },
  l2OrderbookDiffs: {
    datatype: 'l2_full_depth',
    ...book('/orderbook/{symbol}/l2/diffs', FULL_DEPTH_FAMILIES), summary: 'Full-depth L2 changes: each level a block changed, with its size and order count after it',
    query: L2DiffsQuery, response: page(v.array(L2DiffSchema), 'A page of level changes, in block order; a page never splits a block'),
  },
  l4Orderbook: {
    datatype: 'l4_orderbook',
    ...book('/orderbook/{symbol}/l4', L4_FAMILIES), summary: 'The order-level book at an instant: every resting order in queue priority',
    query: L4Query, response: page(L4SnapshotSchema, 'The book, rebuilt from the newest checkpoint and the diffs after it'),
  },
  l4OrderbookDiffs: {
    datatype: 'l4_orderbook',
    ...book('/orderbook/{symbol}/l4/diffs', L4_FAMILIES), summary: 'Order-level diffs (new, update, remove) in block and sequence order',
    query: L4DiffsQuery, response: page(v.array(L4DiffSchema), 'A page of diffs'),
  },
  l4OrderbookHistory: {
    datatype: 'l4_orderbook',
    ...book('/orderbook/{symbol}/l4/history', L4_FAMILIES), summary: 'Order-level checkpoints in a window, oldest first',
    query: L4HistoryQuery, response: page(v.array(L4SnapshotSchema), 'A page of checkpoints'),
  },
  l3Orderbook: {
    datatype: 'l3_orderbook',
    ...book('/l3orderbook/{symbol}', ['altx']), summary: 'The order-level (L3) book at an instant: at most 250 orders a side, optionally one account\'s',
    query: L3Query, response: page(L3SnapshotSchema, 'Bids then asks, best first, in queue order'),
  },
  l3OrderbookHistory: {
    datatype: 'l3_orderbook',
    ...book('/l3orderbook/{symbol}/history', ['altx']), summary: 'L3 books at each checkpoint in a window, oldest first',
    query: L3HistoryQuery, response: page(v.array(L3SnapshotSchema), 'A page of L3 books'),
  },
});

const ADDRESSED: readonly Family[] = ['perpx', 'hip3'];
const NUMBERED: readonly Family[] = ['altx', 'altx-rh'];
const positions = (suffix: string, families: readonly Family[]) => ({ suffix, families, tags: ['Positions'], billed: true });
const wallet = (suffix: string) => ({ ...positions(`/wallets/{address}${suffix}`, ADDRESSED), pathParams: addressPath });
const account = (suffix: string) => ({ ...positions(`/accounts/{account_index}${suffix}`, NUMBERED), pathParams: accountIndexPath });

/**
 * Account and market positions (SPEC "Account and market positions"): core and hip3 key accounts by
 * wallet address, altx and altx-rh by account index; spot and hip4 have none.
 */
export const POSITIONS_OPERATIONS = operationGroup('positions', {
  walletPositions: {
    datatype: 'positions',
    ...wallet('/positions'), summary: 'A wallet\'s positions: the latest snapshot, an hourly snapshot, or reconstructed at any instant', query: WalletPositionsQuery,
    response: page(WalletPositionsSchema, 'Positions, the account summary on the first page, and account_seen when there are none'),
  },
  walletPositionChanges: {
    datatype: 'positions',
    ...wallet('/positions/changes'), summary: 'A wallet\'s change log in [start, end): one leg per fill with the position before and after', query: WalletRangeQuery,
    response: page(v.array(PositionChangeSchema), 'Legs, oldest first, clamped to meta.built_through'),
  },
  walletPositionHistory: {
    datatype: 'positions',
    ...wallet('/positions/history'), summary: 'A wallet\'s positions at each hourly snapshot in [start, end)', query: WalletRangeQuery,
    response: page(v.array(PositionSchema), 'Hourly position rows with snapshot_ts; a page covers at most 168 hours'),
  },
  walletAccount: {
    datatype: 'positions',
    ...wallet('/account'), summary: 'A wallet\'s account summary at the latest snapshot (hip3: one row per dex unless dex is given)', query: AccountQuery,
    response: page(v.array(AccountSummarySchema), 'Account summaries'),
  },
  walletAccountHistory: {
    datatype: 'positions',
    ...wallet('/account/history'), summary: 'A wallet\'s account summary at each hourly snapshot in [start, end)', query: AccountHistoryQuery,
    response: page(v.array(AccountSummarySchema), 'Hourly account summaries'),
  },
  accountPositions: {
    datatype: 'positions',
    ...account('/positions'), summary: 'An account\'s positions: the latest snapshot, an hourly snapshot, or reconstructed at any instant', query: WalletPositionsQuery,
    response: page(WalletPositionsSchema, 'Positions, the account summary on the first page, and account_seen when there are none'),
  },
  accountPositionChanges: {
    datatype: 'positions',
    ...account('/positions/changes'), summary: 'An account\'s change log in [start, end), with finality', query: WalletRangeQuery,
    response: page(v.array(PositionChangeSchema), 'Legs, oldest first, clamped to meta.built_through'),
  },
  accountPositionHistory: {
    datatype: 'positions',
    ...account('/positions/history'), summary: 'An account\'s positions at each hourly snapshot in [start, end)', query: WalletRangeQuery,
    response: page(v.array(PositionSchema), 'Hourly position rows with snapshot_ts; a page covers at most 168 hours'),
  },
  accountSummary: {
    datatype: 'positions',
    ...account('/account'), summary: 'An account\'s position aggregates at the latest snapshot', response: page(v.array(AccountSummarySchema), 'One account summary'),
  },
  accountSummaryHistory: {
    datatype: 'positions',
    ...account('/account/history'), summary: 'An account\'s position aggregates at each hourly snapshot in [start, end)', query: AccountHistoryQuery,
    response: page(v.array(AccountSummarySchema), 'Hourly account summaries'),
  },
  marketPositions: {
    datatype: 'positions',
    ...positions('/positions/{symbol}', [...ADDRESSED, ...NUMBERED]), pathParams: symbolPath, query: MarketPositionsQuery,
    summary: 'Every open position in one market at a snapshot, largest value first; meta.totals on the first page',
    response: page(v.array(MarketPositionSchema), 'Positions; a page stays on its snapshot (409 snapshot_advanced once it is replaced)'),
  },
  marketPositionsSummary: {
    datatype: 'positions',
    ...positions('/positions/{symbol}/summary', [...ADDRESSED, ...NUMBERED]), pathParams: symbolPath, query: MarketSummaryQuery,
    summary: 'Long/short counts, sizes, values, average entries and top-10 shares: the latest snapshot, or each hour of a window',
    response: page(v.array(MarketSummarySchema), 'Summaries, oldest first; a page covers at most 168 hours'),
  },
  bulkPositions: {
    datatype: 'positions',
    ...positions('/positions', [...ADDRESSED, ...NUMBERED]), query: BulkPositionsQuery,
    summary: 'Every open position at one hourly snapshot, by account and market: JSON, or an Arrow IPC stream (format=arrow)',
    response: page(v.array(MarketPositionSchema), 'Positions (Arrow: the same rows, metadata in x-count, x-next-cursor, x-schema-version)'),
  },
  l1Accounts: {
    datatype: 'accounts',
    ...positions('/accounts', ['altx']), query: L1AccountsQuery, summary: 'The account indexes an L1 address owns (altx mainnet only)',
    response: page(L1AccountsSchema, 'The L1 address, its account count and the accounts, oldest first'),
  },
  positionsFreshness: {
    method: 'GET', path: '/v1/data-quality/positions', tags: ['Positions'], billed: true,
    summary: 'Per venue: the newest live and hourly positions snapshots, their age, and how far the change log is built and finalized',
    response: page(v.array(PositionsFreshnessSchema), 'One row per venue'),
  },
});

/** Breadth above session VWAP, core and hip3 only (no spot, no hip4 breadth). */
export const BREADTH_OPERATIONS = operationGroup('breadth-api', {
  breadthCurrent: {
    datatype: 'breadth',
    suffix: '/breadth/above-vwap/current', families: BREADTH_FAMILIES, summary: 'Latest breadth snapshot, even if stale', tags: ['Breadth'], billed: true,
    response: page(BreadthSnapshotSchema, 'The latest snapshot'),
  },
  breadthHistory: {
    datatype: 'breadth',
    suffix: '/breadth/above-vwap', families: BREADTH_FAMILIES, summary: 'Breadth minute history', tags: ['Breadth'], billed: true,
    query: BreadthHistoryQuery, response: page(v.array(BreadthSnapshotSchema), 'Snapshots, oldest first'),
  },
});

const webhooks = (method: HttpMethod, path: string) => ({ method, path: `/v1/webhooks${path}`, tags: ['Webhooks'] });

/** Webhook management (SPEC "Webhook routes"; paths not shown there follow the real service). */
export const WEBHOOK_OPERATIONS = operationGroup('webhooks', {
  listWebhookEventTypes: { ...webhooks('GET', '/event-types'), summary: 'The live catalogue of event declarations', response: page(v.array(EventTypeSchema), 'Every declared event type') },
  getWebhookLimits: { ...webhooks('GET', '/limits'), summary: 'Allowances and usage of the caller\'s plan', response: page(LimitsSchema, 'Plan, delivery inclusion, used versus limit') },
  listWebhookEndpoints: { ...webhooks('GET', '/endpoints'), summary: 'The caller\'s endpoints, oldest first (no secrets)', response: page(v.array(EndpointSchema), 'Endpoints') },
  createWebhookEndpoint: {
    ...webhooks('POST', '/endpoints'), summary: 'Create an endpoint; its secret is shown once', body: CreateEndpointBody, response: page(CreatedEndpointSchema, 'The endpoint with its secret', 201, NoteSibling),
  },
  getWebhookEndpoint: { ...webhooks('GET', '/endpoints/{id}'), summary: 'One endpoint (no secret)', pathParams: idPath, response: page(EndpointSchema, 'The endpoint') },
  deleteWebhookEndpoint: { ...webhooks('DELETE', '/endpoints/{id}'), summary: 'Delete an endpoint', pathParams: idPath, response: page(DeletedSchema, 'Deleted') },
  enableWebhookEndpoint: { ...webhooks('POST', '/endpoints/{id}/enable'), summary: 'Re-enable a disabled endpoint', pathParams: idPath, response: page(EndpointSchema, 'The endpoint, active') },
  rotateWebhookSecret: {
    ...webhooks('POST', '/endpoints/{id}/rotate'), summary: 'A new secret, shown once; the previous one stays valid 24 hours', pathParams: idPath,
    response: page(RotatedSecretSchema, 'The new secret', 200, NoteSibling),
  },
  testWebhookEndpoint: {
    ...webhooks('POST', '/endpoints/{id}/test'), summary: 'Queue a signed webhook.test delivery', pathParams: idPath, response: page(QueuedDeliverySchema, 'The queued delivery', 202),
  },
  listWebhookDeliveries: {
    ...webhooks('GET', '/endpoints/{id}/deliveries'), summary: 'The endpoint\'s delivery log, newest first (30 days)', pathParams: idPath, query: DeliveryLogQuery,
    response: page(v.array(DeliverySchema), 'Deliveries'),
  },
  redeliverWebhookDelivery: {
    ...webhooks('POST', '/deliveries/{id}/redeliver'), summary: 'A new attempt of a past delivery, keeping its event id', pathParams: idPath,
    response: page(RedeliverySchema, 'The delivery, pending again', 202, NoteSibling),
  },
  listWebhookSubscriptions: { ...webhooks('GET', '/subscriptions'), summary: 'The caller\'s subscriptions across endpoints', response: page(v.array(SubscriptionSchema), 'Subscriptions') },
  createWebhookSubscription: {
    ...webhooks('POST', '/subscriptions'), summary: 'Create a rule; echoes the stored configuration with defaults', body: CreateSubscriptionBody,
    response: page(SubscriptionSchema, 'The subscription', 201),
  },
  getWebhookSubscription: { ...webhooks('GET', '/subscriptions/{id}'), summary: 'One subscription', pathParams: idPath, response: page(SubscriptionSchema, 'The subscription') },
  patchWebhookSubscription: {
    ...webhooks('PATCH', '/subscriptions/{id}'), summary: 'Replace the configuration, or switch enabled', pathParams: idPath, body: PatchSubscriptionBody,
    response: page(SubscriptionSchema, 'The subscription'),
  },
  deleteWebhookSubscription: { ...webhooks('DELETE', '/subscriptions/{id}'), summary: 'Remove a rule', pathParams: idPath, response: page(DeletedSchema, 'Deleted') },
  resumeWebhookSubscription: {
    ...webhooks('POST', '/subscriptions/{id}/resume'), summary: 'Resume one paused rule (replays nothing)', pathParams: idPath,
    response: page(SubscriptionSchema, 'The subscription; sibling gap', 200, ResumeSiblings),
  },
  resumeAllWebhookSubscriptions: {
    ...webhooks('POST', '/subscriptions/resume'), summary: 'Resume every paused rule (replays nothing)',
    response: page(v.array(SubscriptionSchema), 'Resumed subscriptions; siblings resumed_count and gap', 200, ResumeAllSiblings),
  },
  listWatchedAddresses: {
    ...webhooks('GET', '/addresses'), summary: 'Watched addresses; sibling limit is the plan\'s cap', response: page(v.array(WatchedAddressSchema), 'Watched addresses', 200, LimitSibling),
  },
  watchAddress: {
    ...webhooks('POST', '/addresses'), summary: 'Watch an address (idempotent); sibling limit', body: WatchAddressBody, response: page(WatchedAddressSchema, 'The watched address', 201, LimitSibling),
  },
  unwatchAddress: { ...webhooks('DELETE', '/addresses/{id}'), summary: 'Stop watching an address', pathParams: idPath, response: page(DeletedSchema, 'Deleted') },
});

/** Estimate and dry-run replay the archive, so they run in their own group (with DuckDB). */
export const PREVIEW_OPERATIONS = operationGroup('webhook-preview', {
  estimateWebhookSubscription: {
    ...webhooks('POST', '/subscriptions/estimate'),
    summary: 'How often a rule would fire: per day over lookback_days, a threshold ladder and the metric\'s distribution (6 calls a minute with dry-run)',
    body: EstimateBody, response: page(EstimateSchema, 'The estimate'),
  },
  dryRunWebhookSubscription: {
    ...webhooks('POST', '/subscriptions/dry-run'), summary: 'What a rule would have delivered over the last lookback_s, newest first (6 calls a minute with estimate)',
    body: DryRunBody, response: page(DryRunSchema, 'The occurrences'),
  },
  replayWebhookSubscription: {
    ...webhooks('POST', '/subscriptions/replay'),
    summary: 'Replay a rule (a subscription, or an event type and config) over any past window as a job: its occurrences to page through, optionally delivered as late replay events; billed by archive rows read',
    body: ReplayBody, response: page(ReplayJobSchema, 'The job, running', 202),
  },
  getWebhookReplay: {
    ...webhooks('GET', '/subscriptions/replays/{id}'),
    summary: 'A replay job: state, progress, and a page of its occurrences oldest first',
    pathParams: replayIdPath, query: ReplayPageQuery, response: page(ReplayPageSchema, 'The job and a page of its occurrences'),
  },
  cancelWebhookReplay: {
    ...webhooks('DELETE', '/subscriptions/replays/{id}'),
    summary: 'Cancel a queued or running replay job (409 once it has finished): nothing more is delivered; the days already replayed stay readable and are billed',
    pathParams: replayIdPath, response: page(ReplayJobSchema, 'The job, canceled'),
  },
});

const exportRoute = (method: HttpMethod, path: string) => ({ method, path: `/v1/exports${path}`, tags: ['Exports'] });

/** Bulk export jobs (SPEC "Limits"; shapes after Databento's and Tardis' batch downloads). */
export const EXPORT_OPERATIONS = operationGroup('exports', {
  createExport: {
    ...exportRoute('POST', ''),
    summary: 'Quote an export and start it as a job (202), or only quote it with dry_run (200); an Idempotency-Key header makes a retry return the same job',
    headers: CreateExportHeaders,
    body: CreateExportBody,
    response: page(v.union([ExportJobSchema, ExportQuoteSchema]), 'The job (queued), or the quote of a dry run', 202),
  },
  listExports: {
    ...exportRoute('GET', ''), summary: 'The caller\'s export jobs, newest first', query: ListExportsQuery, response: page(v.array(ExportJobSchema), 'Export jobs'),
  },
  getExport: {
    ...exportRoute('GET', '/{id}'), summary: 'One export job: state, progress, price; its files once completed', pathParams: exportIdPath, response: page(ExportJobSchema, 'The job'),
  },
  cancelExport: {
    ...exportRoute('DELETE', '/{id}'), summary: 'Cancel a queued or running job; files already written are removed', pathParams: exportIdPath,
    response: page(ExportJobSchema, 'The job, canceled'),
  },
  getExportFile: {
    ...exportRoute('GET', '/{id}/files/{name}'),
    summary: 'A pre-signed download link for one file of a completed job, valid 5 minutes (redirect=true answers 307 with it in Location)',
    pathParams: exportFilePath, query: DownloadQuery, response: page(ExportDownloadSchema, 'The link'),
  },
});

const quality = (path: string) => ({ method: 'GET' as const, path: `/v1/data-quality${path}`, tags: ['Data quality'] });
/**
 * Data quality from what the service measures: the manifest's cadence statistics (coverage, gaps,
 * completeness, ingest lag), the incidents the minute detectors open and resolve, and the REST
 * latency the HTTP shell records. `/v1/data-quality/positions` is the positions group's.
 */
export const DATA_QUALITY_OPERATIONS = operationGroup('data-quality', {
  getDataQualityStatus: {
    ...quality('/status'), summary: 'Overall and per-venue status, per data type completeness over 24 hours, open incidents',
    response: page(StatusSchema, 'The status'),
  },
  getDataQualityCoverage: {
    ...quality('/coverage'), summary: 'Per venue and data type over the last 30 days: first and last record, records, symbols, resolution, lag, completeness (cached 5 minutes)',
    response: page(CoverageSchema, 'Coverage of every venue; meta.cached_at says when it was measured'),
  },
  getExchangeCoverage: {
    ...quality('/coverage/{exchange}'), summary: 'One venue\'s coverage per data type over the last 30 days (cached 5 minutes)', pathParams: exchangePath,
    response: page(ExchangeCoverageSchema, 'The venue\'s coverage'),
  },
  getSymbolCoverage: {
    ...quality('/coverage/{exchange}/{symbol}'), summary: 'One market\'s coverage per data type: gaps against its expected cadence, observed cadence, completeness (cached 1 minute)',
    pathParams: exchangeSymbolPath, query: SymbolCoverageQuery, response: page(SymbolCoverageSchema, 'The market\'s coverage; data types without rows in the window are absent'),
  },
  listIncidents: {
    ...quality('/incidents'), summary: 'Incidents opened and resolved by the gap and stall detectors, newest first', query: IncidentsQuery,
    response: page(IncidentsSchema, 'A page of incidents with the total'),
  },
  getIncident: { ...quality('/incidents/{id}'), summary: 'One incident', pathParams: incidentPath, response: page(IncidentSchema, 'The incident') },
  getLatency: {
    ...quality('/latency'), summary: 'Ingest lag per venue and data type (event time to readable) and REST latency over the last hour and day',
    response: page(LatencySchema, 'Latency per venue'),
  },
  getSla: {
    ...quality('/sla'), summary: 'A month\'s SLA: targets, measured uptime, completeness and p99 latency, met or missed', query: SlaQuery,
    response: page(SlaSchema, 'The month\'s SLA'),
  },
});

export const OPERATION_GROUPS: readonly OperationGroup[] = [
  SYSTEM_OPERATIONS, MARKET_OPERATIONS, DERIVATIVES_OPERATIONS, ORDERBOOK_OPERATIONS, POSITIONS_OPERATIONS, BREADTH_OPERATIONS, WEBHOOK_OPERATIONS, PREVIEW_OPERATIONS,
  EXPORT_OPERATIONS, DATA_QUALITY_OPERATIONS,
];

export const ROUTES: readonly RouteDef[] = OPERATION_GROUPS.flatMap(routesOf);

/**
 * A lacking family's path that is also the parent of one of its routes (altx-rh's `/accounts` under
 * its `/accounts/{account_index}/...`) is a resource already, so the catch-all never sees it: it
 * answers `route_not_found`.
 */
export const UNSUPPORTED_PATHS: readonly UnsupportedPath[] = OPERATION_GROUPS.flatMap(unsupportedPathsOf)
  .filter((unsupported) => !ROUTES.some((route) => route.path.startsWith(`${unsupported.path}/`)));

/** A route path as a pattern over request paths: `{name}` is one segment, `{name+}` the rest. */
export function pathPattern(path: string): RegExp {
  const source = path.split('/').map((segment) => {
    const param = /^\{(\w+)(\+?)\}$/.exec(segment);
    if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return param[2] ? '(.+)' : '([^/]+)';
  }).join('/');
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
  return 0;
}

/** The items on the resource a request path selects, with its path parameters (still percent-encoded). */
export interface ResourceMatch<T> { items: T[]; params: Record<string, string> }

/**
 * Matches request paths as API Gateway matches them against its resources: among the items (each
 * on a resource `path`) whose path matches, those on the most specific one. The local gateway picks
 * resources with it; a route group's function picks its route.
 */
export function resourceMatcher<T extends { path: string }>(items: readonly T[]): (requestPath: string) => ResourceMatch<T> | undefined {
  const compiled = [...items].sort((a, b) => bySpecificity(a.path, b.path))
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
  Exports: 'Bulk export jobs: trades and order events as ZSTD Parquet in versioned schemas (trades.v1, order_events.v1), quoted from the manifest, downloaded through short-lived links.',
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
