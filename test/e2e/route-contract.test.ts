/**
 * The contract as clients see it: one real request to every documented route of the local cloud,
 * each answer validated against the schema the served OpenAPI document publishes for that route
 * and status. Objects are closed for the check (a member the schema does not declare fails), since
 * clients parse with their own schemas and an undeclared member is a shape nobody was told about.
 * A route added without a sample request here fails the coverage test at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv, type ValidateFunction } from '@redocly/ajv';
import { runDetectionOver, startDemoCloud } from '../helpers/local-cloud.ts';
import { incidentStore } from '#shared/deps.ts';
import { apiClient, eventually } from '../helpers/api.ts';
import { invoke } from '#local/invoke.ts';
import { ROUTES } from '#functions/routes.ts';
import type { RouteDef } from '#functions/routes/operation.ts';
import type { Family } from '#core/venues.ts';
import { familiesOf } from '#schemas/datasets.ts';
import { newestRow, readWindow } from '#core/archive/read-pages.ts';
import { ingestBatch } from '#core/archive/ingest.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { buildPositions } from '#core/positions/build.ts';
import { POSITION_FAMILIES } from '#core/positions/engine.ts';
import { latestSnapshotAt, snapshotRowsAt } from '#core/positions/store.ts';

const KEY = 'route-contract-key';
const MIN = 60_000;
// An IP literal needs no DNS; 93.184.216.34 is a public address (deliveries to it simply fail).
const PUBLIC_URL = 'https://93.184.216.34/hooks/contract';
const WATCHED = '0x1111111111111111111111111111111111111111';
/** The demo wallet that trades spot only (README's demo wallets). */
const SPOT_STACKER = '0x0a53dbc5798dd47dc8881f61ed6349965052f443';

let cloud: Awaited<ReturnType<typeof startDemoCloud>>;
let document: { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, unknown> } };
const call = apiClient(() => cloud.url);
const now = Date.now();

beforeAll(async () => {
  // 90 minutes, so that an hourly positions snapshot holds positions whatever the minute the test starts at.
  cloud = await startDemoCloud({ key: KEY });
  const cutoff = Math.floor((Date.now() - 5_000) / MIN) * MIN;
  await invoke('breadth', { time: new Date(cutoff).toISOString() });
  // The seeded history holds the demo's hourly altx trade stop: the detection job makes it an incident.
  await runDetectionOver(Math.floor((Date.now() - 1.5 * 3_600_000) / 3_600_000) * 3_600_000, cutoff);
  incidentId = (await incidentStore().list(0))[0]!.id;
  document = (await call(KEY, 'GET', '/v1/openapi.json')).body;
  // A side's slug (the route matches an outcome's slug or either side's).
  outcomeSlug = (await call(KEY, 'GET', '/v1/perpx/hip4/outcomes/1')).body.data.side_specs[1].slug;
  for (const dataset of ['liquidations', 'altx_liquidations'] as const) {
    for (const family of familiesOf(dataset)) {
      // Liquidations come in bursts (two hours of the demo's altx may have none): the newest of the
      // whole seeded archive, and a window of the hour up to it.
      const row = await newestRow(archiveDeps(), { dataset, family, from: window.end - 12 * 3_600_000, to: window.end });
      if (row)
        liquidated[family] = {
          symbol: String(row.symbol),
          user: String(row.liquidated_user ?? ''),
          window: { start: Number(row.ts) - 3_600_000, end: Number(row.ts) },
        };
    }
  }
  // The demo's spot TWAPs start every 4 hours: the newest status of the last day, and the hour up to
  // it. The seeded span (3 hours) misses them at some times of day: then the spot stacker's TWAP of
  // 10 minutes ago goes in through ingest, as a node's status would.
  const newestTwap = () => newestRow(archiveDeps(), { dataset: 'twaps', family: 'spot', from: window.end - 24 * 3_600_000, to: window.end });
  if (!(await newestTwap())) {
    const status = {
      dataset: 'twaps',
      family: 'spot',
      symbol: SYMBOL.spot,
      ts: window.end - 10 * MIN,
      twap_id: 9_000_001,
      user_address: SPOT_STACKER,
      status: 'activated',
      side: 'B',
      size: '40',
      executed_size: '0',
    };
    await ingestBatch(archiveDeps(), 'normalized', JSON.stringify(status));
  }
  const twap = await newestTwap();
  if (twap)
    Object.assign(twapped, {
      symbol: String(twap.symbol),
      user: String(twap.user_address),
      window: { start: Number(twap.ts) - 3_600_000, end: Number(twap.ts) },
    });
  while ((await buildPositions(archiveDeps())).steps > 0);
  for (const family of POSITION_FAMILIES) {
    // An account holding a position both at the latest snapshot (what the routes read without a time) and at the latest hour (history).
    const [latest, hour] = [(await latestSnapshotAt(archiveDeps(), family, Date.now()))!, (await latestSnapshotAt(archiveDeps(), family, Date.now(), true))!];
    const atHour = new Set((await snapshotRowsAt(archiveDeps(), family, hour)).map((r) => r.account));
    // ... and with a change leg in the sample window (an account may hold one position opened long before).
    const row = (await snapshotRowsAt(archiveDeps(), family, latest)).find((r) => atHour.has(r.account) && (r.last_change_at ?? 0) >= window.start)!;
    holders[family] = { account: row.account, symbol: row.symbol, hour };
  }
  const account = await withRows('accounts', 'altx', { sql: 'l1_address IS NOT NULL', params: {} }, 0);
  l1Address = String(account!.l1_address);
  for (const family of familiesOf('order_events')) {
    const row = await withRows('order_events', family, { sql: 'is_trigger', params: {} });
    if (row) triggered[family] = String(row.symbol);
  }
  const exported = await call(KEY, 'POST', '/v1/exports', { schema: 'trades', family: 'perpx', symbols: ['BTC'], ...window });
  const done = await eventually(
    () => call(KEY, 'GET', `/v1/exports/${exported.body.data.id}`),
    (r) => r.body.data?.state === 'completed',
  );
  Object.assign(completedExport, { id: done.body.data.id, file: done.body.data.files[0].name });
});
afterAll(async () => {
  await cloud?.stop();
});

/** A copy of a schema in which every object that lists its properties allows no others. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const out = Object.fromEntries(
    Object.entries(schema).map(([k, val]) => [
      k,
      k === 'properties' ? Object.fromEntries(Object.entries(val as object).map(([p, s]) => [p, closed(s)])) : closed(val),
    ]),
  );
  if ('properties' in out && !('additionalProperties' in out)) out.additionalProperties = false;
  return out;
}

const validators = new Map<string, ValidateFunction>();
/** One validator instance for the document: its components are added (and compiled as referenced) once, not once a route. */
let documentAjv: Ajv | undefined;
function publishedValidator(route: RouteDef): ValidateFunction {
  const key = `${route.method} ${route.path}`;
  let validate = validators.get(key);
  if (!validate) {
    const schema = document.paths[route.path]?.[route.method.toLowerCase()]?.responses?.[route.response.status]?.content?.['application/json']?.schema;
    expect(schema, `${key} publishes a ${route.response.status} schema`).toBeDefined();
    // OpenAPI 3.0 schemas (nullable, $ref into components); each route's schema refers into the document's.
    const ajv = (documentAjv ??= new Ajv({ strict: false, allErrors: true }).addSchema({ $id: 'doc', components: closed(document.components) }, 'doc'));
    const rebased = JSON.parse(JSON.stringify(closed(schema)).replaceAll('"#/components/', '"doc#/components/'));
    validate = ajv.compile(rebased);
    validators.set(key, validate);
  }
  return validate;
}

// Symbols with data in the demo market, per family, in their path form (hip4 `#N` as `%23N`).
const SYMBOL: Readonly<Record<Family, string>> = {
  perpx: 'BTC',
  spot: 'HYPE-USDC',
  hip3: 'xyz:TSLA',
  hip4: '%2310',
  altx: 'ETH',
  'altx-rh': 'BTC',
};
const window = { start: now - 2 * 3_600_000, end: now - 5_000 };
const ids: Record<'endpoint' | 'subscription' | 'delivery' | 'export' | 'replay', string> = {
  endpoint: '',
  subscription: '',
  delivery: '',
  export: '',
  replay: '',
};
/** An incident the minute detection recorded over the demo's history (its hip3 book stall or altx trade gap). */
let incidentId = '';
/** A completed export job and one of its files (the download route needs one). */
const completedExport = { id: '', file: '' };

/** `params` names path values where the family's default symbol has no rows for the route (liquidations are sparse). */
interface Sample {
  params?: (route: RouteDef) => Record<string, string>;
  query?: Record<string, string | number> | ((route: RouteDef) => Record<string, string | number>);
  body?: () => unknown;
}

/**
 * Markets (and a wallet) with rows in the window for the sparse datasets, per family that has them,
 * found in beforeAll: the demo market moves with the clock, so a fixed symbol may have none.
 */
const liquidated: Partial<Record<Family, { symbol: string; user: string; window: { start: number; end: number } }>> = {};
const triggered: Partial<Record<Family, string>> = {};
/** A hip4 outcome side's slug (found in beforeAll). */
let outcomeSlug = '';
/** A spot pair and wallet with a TWAP status in `window` (found in beforeAll). */
const twapped = { symbol: '', user: '', window: { start: 0, end: 0 } };
/** Per positions family: an account holding positions at the latest snapshot and at the latest hour, with a change leg in the window, one of its markets, and that hour. */
const holders: Partial<Record<Family, { account: string; symbol: string; hour: number }>> = {};
let l1Address = '';
const withRows = async (
  dataset: 'liquidations' | 'altx_liquidations' | 'order_events' | 'accounts',
  family: Family,
  filter?: { sql: string; params: Record<string, never> },
  from = window.start,
) => (await readWindow(archiveDeps(), { dataset, family, from, to: window.end, limit: 1, filter })).rows[0];
const holder = (route: RouteDef) => holders[route.family!]!;
const accountSample = (query: Record<string, string | number> = {}): Sample => ({
  params: (route): Record<string, string> => ({ [route.path.includes('{address}') ? 'address' : 'account_index']: holder(route).account }),
  query,
});

/** One sample request per operation; per-family operations take their family's symbol. */
const SAMPLES: Readonly<Record<string, Sample>> = {
  getHealth: {},
  getCapabilities: {},
  getOpenApi: {},
  trades: { query: { ...window, limit: 5 } },
  recentTrades: { query: { limit: 5 } },
  cvd: { query: { ...window, interval: '5m', limit: 5 } },
  orderHistory: { query: { ...window, limit: 5 } },
  candles: { query: { ...window, interval: '5m', limit: 5 } },
  triggerOrders: { params: (route) => ({ symbol: encodeURIComponent(triggered[route.family!]!) }), query: { ...window, limit: 5 } },
  orderFlow: { query: { ...window, interval: '5m' } },
  triggerLevels: { query: { range_pct: 10, buckets: 20 } },
  triggerLevelsHistory: { query: { ...window, limit: 3, buckets: 10 } },
  liquidationLevels: { query: { buckets: 10 } },
  liquidationLevelsHistory: { query: { ...window, limit: 3, buckets: 10, side: 'bid' } },
  instruments: {},
  instrument: {},
  spotPairs: {},
  spotPair: {},
  spotTwap: { params: () => ({ symbol: twapped.symbol }), query: () => ({ ...twapped.window, limit: 5 }) },
  spotTwapUser: { params: () => ({ user: twapped.user }), query: () => ({ ...twapped.window, limit: 5 }) },
  outcomes: { query: { limit: 2 } },
  outcome: { params: () => ({ outcome_id: '1' }) },
  outcomeBySlug: { params: () => ({ slug: encodeURIComponent(outcomeSlug) }) },
  walletClassify: { query: { min_orders: 0, limit: 5, sort: 'maker_ratio' } },
  questions: { query: { limit: 1 } },
  question: { params: () => ({ question_id: '0' }) },
  oracleExternalPrice: {},
  oracleDiscoveryBounds: {},
  openInterest: { query: { ...window, limit: 5 } },
  openInterestCurrent: {},
  funding: { query: { ...window, interval: '15m', limit: 5 } },
  fundingCurrent: {},
  prices: { query: { ...window, interval: '5m', limit: 5 } },
  summary: {},
  freshness: {},
  liquidations: {
    params: (route) => ({ symbol: encodeURIComponent(liquidated[route.family!]!.symbol) }),
    query: (route) => ({ ...liquidated[route.family!]!.window, limit: 5 }),
  },
  userLiquidations: { params: (route) => ({ user: liquidated[route.family!]!.user }), query: (route) => ({ ...liquidated[route.family!]!.window, limit: 5 }) },
  liquidationVolume: {
    params: (route) => ({ symbol: encodeURIComponent(liquidated[route.family!]!.symbol) }),
    query: (route) => ({ ...liquidated[route.family!]!.window, interval: '15m', limit: 5 }),
  },
  breadthCurrent: {},
  orderbook: { query: { timestamp: window.end, depth: 5 } },
  orderbookHistory: { query: { ...window, limit: 3, depth: 5 } },
  l2Orderbook: { query: { timestamp: window.end, depth: 5 } },
  l2OrderbookHistory: { query: { start: now - 20 * MIN, end: window.end, limit: 2, depth: 3 } },
  l2OrderbookDiffs: { query: { start: now - 10 * MIN, end: window.end, limit: 5 } },
  l4Orderbook: { query: { timestamp: window.end, depth: 3 } },
  l4OrderbookDiffs: { query: { start: now - 10 * MIN, end: window.end, limit: 5 } },
  l4OrderbookHistory: { query: { start: now - 20 * MIN, end: window.end, limit: 2, depth: 3 } },
  l3Orderbook: { query: { timestamp: window.end, depth: 3 } },
  l3OrderbookHistory: { query: { start: now - 20 * MIN, end: window.end, limit: 2 } },
  breadthHistory: { query: { start: now - 3_600_000, limit: 5 } },
  walletPositions: accountSample(),
  walletPositionChanges: accountSample({ ...window, limit: 5 }),
  walletPositionHistory: accountSample({ ...window, limit: 5 }),
  walletAccount: accountSample(),
  walletAccountHistory: accountSample({ ...window, limit: 5 }),
  accountPositions: accountSample(),
  accountPositionChanges: accountSample({ ...window, limit: 5 }),
  accountPositionHistory: accountSample({ ...window, limit: 5 }),
  accountSummary: accountSample(),
  accountSummaryHistory: accountSample({ ...window, limit: 5 }),
  marketPositions: { params: (route) => ({ symbol: encodeURIComponent(holder(route).symbol) }), query: { limit: 5 } },
  marketPositionsSummary: { params: (route) => ({ symbol: encodeURIComponent(holder(route).symbol) }) },
  bulkPositions: { query: (route) => ({ hour: holder(route).hour, limit: 5 }) },
  get l1Accounts(): Sample {
    return { query: { l1_address: l1Address } };
  },
  positionsFreshness: {},
  getSymbols: {},
  getStats: {},
  getStatusCoverage: {},
  getDataQualityStatus: {},
  getDataQualityCoverage: {},
  getExchangeCoverage: { params: () => ({ exchange: 'hip3' }) },
  getSymbolCoverage: { params: () => ({ exchange: 'hip3', symbol: encodeURIComponent('xyz:TSLA') }), query: { from: window.start, to: window.end } },
  listIncidents: { query: { limit: 5 } },
  get getIncident(): Sample {
    return { params: () => ({ id: incidentId }) };
  },
  getLatency: {},
  getSla: {},
  listWebhookEventTypes: {},
  getWebhookLimits: {},
  createWebhookEndpoint: { body: () => ({ url: PUBLIC_URL, description: 'contract' }) },
  listWebhookEndpoints: {},
  getWebhookEndpoint: {},
  rotateWebhookSecret: {},
  enableWebhookEndpoint: {},
  testWebhookEndpoint: {},
  listWebhookDeliveries: { query: { limit: 10 } },
  redeliverWebhookDelivery: {},
  watchAddress: { body: () => ({ address: WATCHED, label: 'desk' }) },
  listWatchedAddresses: {},
  createWebhookSubscription: {
    body: () => ({ endpoint_id: ids.endpoint, event_type: 'market.liquidation', filters: { venue: 'perpx', min_notional_usd: 1000 } }),
  },
  listWebhookSubscriptions: {},
  getWebhookSubscription: {},
  patchWebhookSubscription: { body: () => ({ enabled: false }) },
  resumeWebhookSubscription: {},
  resumeAllWebhookSubscriptions: {},
  estimateWebhookSubscription: { body: () => ({ event_type: 'market.liquidation', config: { venue: 'perpx', min_notional_usd: 1000 }, lookback_days: 1 }) },
  dryRunWebhookSubscription: { body: () => ({ event_type: 'market.liquidation', config: { venue: 'perpx' }, lookback_s: 3600 }) },
  replayWebhookSubscription: { body: () => ({ subscription_id: ids.subscription, start: window.end - 365 * 86_400_000, end: window.end }) },
  getWebhookReplay: { query: { limit: 10 } },
  // The replay above covers a year (a day a partition), so it is still running when the cancel comes.
  cancelWebhookReplay: {},
  // Every perpx market of the window (many symbol-days), so the job is still running when the cancel comes.
  createExport: { body: () => ({ schema: 'trades', family: 'perpx', ...window }) },
  cancelExport: {},
  listExports: { query: { limit: 5 } },
  getExport: {},
  getExportFile: { params: () => ({ id: completedExport.id, name: completedExport.file }) },
  deleteWebhookSubscription: {},
  unwatchAddress: {},
  deleteWebhookEndpoint: {},
};

/** The concrete path of a route: its symbol, or the id its resource was created with. */
function pathOf(route: RouteDef, sample?: Sample): string {
  const params = sample?.params?.(route) ?? {};
  const idOf = route.path.startsWith('/v1/exports')
    ? ids.export
    : route.path.startsWith('/v1/webhooks/subscriptions/replays')
      ? ids.replay
      : route.path.startsWith('/v1/webhooks/deliveries')
        ? ids.delivery
        : route.path.startsWith('/v1/webhooks/subscriptions')
          ? ids.subscription
          : route.path.startsWith('/v1/webhooks/addresses')
            ? WATCHED
            : ids.endpoint;
  return route.path
    .replace(/\{(\w+)\}/g, (whole, name: string) => params[name] ?? whole)
    .replace('{symbol}', SYMBOL[route.family ?? 'perpx'])
    .replace('{id}', idOf);
}

// Webhook routes run in SAMPLES order (creations before reads, deletes last); the rest as listed.
const documented = ROUTES.filter((r) => !r.hidden);
const order = Object.keys(SAMPLES);
const routes = [...documented].sort((a, b) => order.indexOf(a.operation) - order.indexOf(b.operation));
const exercised = new Set<string>();

describe('every documented route answers what the OpenAPI document publishes', () => {
  it.each(routes.map((r) => [r.operationId, r] as const))('%s', async (_id, route) => {
    // Prepare
    const sample = SAMPLES[route.operation];
    expect(sample, `a sample request for operation ${route.operation}`).toBeDefined();
    const query = new URLSearchParams(
      Object.entries((typeof sample!.query === 'function' ? sample!.query(route) : sample!.query) ?? {}).map(([k, val]): [string, string] => [k, String(val)]),
    ).toString();

    // Act
    const res = await call(KEY, route.method, `${pathOf(route, sample)}${query ? `?${query}` : ''}`, sample!.body?.());

    // Assess
    expect(res.status, JSON.stringify(res.body)).toBe(route.response.status);
    const validate = publishedValidator(route);
    expect(validate(res.body) ? [] : validate.errors, JSON.stringify(res.body).slice(0, 400)).toEqual([]);
    // An empty page would pass without a row being checked: market and breadth samples have rows.
    if (['market', 'derivatives', 'orderbook', 'breadth-api', 'positions'].includes(route.group))
      expect([res.body.data].flat().length, 'rows to check').toBeGreaterThan(0);
    if (route.operation === 'createWebhookEndpoint') ids.endpoint = res.body.data.id;
    if (route.operation === 'createWebhookSubscription') ids.subscription = res.body.data.id;
    if (route.operation === 'testWebhookEndpoint') ids.delivery = res.body.data.delivery_id;
    if (route.operation === 'createExport') ids.export = res.body.data.id;
    if (route.operation === 'replayWebhookSubscription') ids.replay = res.body.data.id;
    exercised.add(route.operationId);
  });

  it('refuses an undeclared member, a null where the schema has none, and a missing has_more page member', async () => {
    // Prepare
    const route = ROUTES.find((r) => r.operationId === 'getPerpxTrades')!;
    const { body } = await call(KEY, 'GET', `${pathOf(route)}?start=${window.start}&end=${window.end}&limit=2`);
    const validate = publishedValidator(route);
    const variant = (change: (copy: any) => void) => {
      const copy = structuredClone(body);
      change(copy);
      return copy;
    };

    // Act / Assess
    expect(validate(body)).toBe(true);
    expect(
      validate(
        variant((b) => {
          b.data[0].extra = 1;
        }),
      ),
    ).toBe(false);
    expect(
      validate(
        variant((b) => {
          b.data[0].cloid = null;
        }),
      ),
    ).toBe(false);
    expect(
      validate(
        variant((b) => {
          b.meta.next_cursor = null;
        }),
      ),
    ).toBe(false);
    expect(
      validate(
        variant((b) => {
          b.unexpected = true;
        }),
      ),
    ).toBe(false);
  });

  it('left no documented route without a sample request', () => {
    expect(documented.map((r) => r.operationId).filter((id) => !exercised.has(id))).toEqual([]);
  });
});
