/**
 * The webhook event-type catalogue, as data (SPEC "Events", "Webhook configuration", params table
 * and floors). 28 types are declared and 24 are live; a type that is not live refuses
 * subscriptions. The management API validates configurations against these declarations and
 * `GET /v1/webhooks/event-types` serves them.
 */
export type Venue = 'perpx' | 'hip3' | 'spot' | 'altx' | 'altx-rh' | 'hip4';
export type MetricType = 'number' | 'integer' | 'text' | 'enum' | 'boolean' | 'timestamp';

export interface MetricDecl { type: MetricType; unit?: string; values?: readonly string[]; description?: string }
export type ParamDecl =
  | { type: 'integer' | 'number'; default: number; min?: number; max?: number; menu?: readonly number[]; unit?: string; description: string }
  | { type: 'enum'; default: string; menu: readonly string[]; description: string }
  | { type: 'array_of_number'; default: readonly number[]; min: number; max: number; unit?: string; description: string };

export interface EventTypeDecl {
  type: string;
  live: boolean;
  description: string;
  scope: 'public' | 'addresses' | 'user';
  venues: readonly Venue[];
  /** Scope keys accepted in `filters` besides `conditions`, `params` and declared params. */
  scopeKeys: readonly ('venue' | 'symbols' | 'addresses')[];
  params: Readonly<Record<string, ParamDecl>>;
  metrics: Readonly<Record<string, MetricDecl>>;
  /** The notional metric `min_notional_usd` stands for, when the type has one. */
  notionalMetric?: string;
  costFloor: { metric: string; min: number; note?: string } | null;
  latencyClass: 'seconds' | 'minutes';
}

export const OPERATORS = {
  number: ['greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal', 'equal', 'not_equal', 'between', 'not_between', 'in', 'not_in'],
  text: ['equal', 'not_equal', 'in', 'not_in', 'contains', 'not_contains', 'starts_with', 'ends_with'],
  boolean: ['equal', 'not_equal'],
  timestamp: ['before', 'after', 'equal'],
  any: ['is_empty', 'is_not_empty'],
} as const;

const MARKET_VENUES: readonly Venue[] = ['perpx', 'hip3', 'spot', 'altx'];
const maxAge = (fallback = 3600): Record<string, ParamDecl> => ({
  max_age_s: { type: 'integer', default: fallback, min: 60, max: 86_400, unit: 's', description: 'Oldest occurrence still delivered after a service-side outage' },
});
const usd = (description: string): MetricDecl => ({ type: 'number', unit: 'USD', description });
const pct = (description: string): MetricDecl => ({ type: 'number', unit: '%', description });
/** Relative metrics: null (never firing) when the denominator is under 10,000 USD. */
const relative = (withWallet = false): Record<string, MetricDecl> => ({
  notional_pct_volume_1h: pct('Notional as a share of the market\'s last-hour volume'),
  notional_pct_volume_24h: pct('Notional as a share of the market\'s last-day volume'),
  notional_pct_oi: pct('Notional as a share of open interest (perps only)'),
  ...(withWallet && { notional_pct_wallet_volume_30d: pct('Notional as a share of the wallet\'s 30-day volume') }),
});
const common = (venues: readonly Venue[]): Record<string, MetricDecl> => ({
  venue: { type: 'enum', values: venues },
  symbol: { type: 'text' },
  timestamp: { type: 'timestamp' },
});

function decl(d: Omit<EventTypeDecl, 'scopeKeys' | 'latencyClass' | 'costFloor'> & Partial<Pick<EventTypeDecl, 'scopeKeys' | 'latencyClass' | 'costFloor'>>): EventTypeDecl {
  return { scopeKeys: [], latencyClass: 'minutes', costFloor: null, ...d };
}

export const EVENT_TYPES: readonly EventTypeDecl[] = [
  decl({ type: 'export.job.completed', live: true, description: 'A bulk export finished', scope: 'user', venues: [], params: {}, metrics: { job_id: { type: 'text' } } }),
  decl({ type: 'export.job.failed', live: true, description: 'A bulk export failed', scope: 'user', venues: [], params: {}, metrics: { job_id: { type: 'text' }, error_message: { type: 'text' } } }),
  decl({ type: 'webhook.test', live: true, description: 'A test delivery', scope: 'user', venues: [], params: {}, metrics: {}, latencyClass: 'seconds' }),
  decl({
    type: 'market.liquidation', live: true, description: 'A liquidation; fills of one cascade collapse into one event per account and instant',
    scope: 'public', venues: ['perpx', 'hip3', 'altx'], scopeKeys: ['venue', 'symbols'], params: maxAge(), latencyClass: 'seconds',
    metrics: { ...common(['perpx', 'hip3', 'altx']), notional_usd: usd('Liquidated notional'), side: { type: 'enum', values: ['long', 'short'] }, liquidated_user: { type: 'text' }, direction: { type: 'text' }, ...relative() },
    notionalMetric: 'notional_usd', costFloor: { metric: 'notional_usd', min: 100, note: 'Liquidations under 100 USD notional are never read' },
  }),
  decl({
    type: 'market.liquidation_burst', live: true, description: 'Liquidation volume in a rolling window crosses the threshold (rising edge only)',
    scope: 'public', venues: ['perpx', 'hip3', 'altx'], scopeKeys: ['venue', 'symbols'],
    params: {
      window_s: { type: 'integer', default: 300, menu: [60, 300, 900, 3600], unit: 's', description: 'Rolling window' },
      threshold_mode: { type: 'enum', default: 'usd', menu: ['usd', 'pct_oi', 'pct_volume_1h'], description: 'What the threshold measures' },
      threshold_usd: { type: 'number', default: 1_000_000, min: 1000, unit: 'USD', description: 'Threshold in USD (a top-level `threshold` means this)' },
      threshold_pct: { type: 'number', default: 1, min: 0.01, max: 100, unit: '%', description: 'Threshold in percent for the pct modes' },
    },
    metrics: { ...common(['perpx', 'hip3', 'altx']), notional_usd: usd('Liquidated notional in the window'), liquidation_count: { type: 'integer' }, ...relative() },
    notionalMetric: 'notional_usd',
  }),
  decl({
    type: 'market.funding_flip', live: true, description: 'The funding rate changes sign', scope: 'public', venues: ['perpx', 'hip3'], scopeKeys: ['venue', 'symbols'], params: {},
    metrics: { ...common(['perpx', 'hip3']), funding_rate: { type: 'number' }, flipped_to: { type: 'enum', values: ['positive', 'negative'] } },
  }),
  decl({ type: 'market.listed', live: true, description: 'A new market, once per market', scope: 'public', venues: MARKET_VENUES, scopeKeys: ['venue'], params: {}, metrics: common(MARKET_VENUES) }),
  decl({ type: 'market.delisted', live: false, description: 'A market flipped inactive', scope: 'public', venues: ['perpx', 'hip3', 'altx', 'altx-rh'], scopeKeys: ['venue', 'symbols'], params: {}, metrics: common(['perpx', 'hip3', 'altx', 'altx-rh']) }),
  decl({
    type: 'market.oi_delta', live: true, description: 'Open interest moved by at least the threshold over the window; once per direction per crossing',
    scope: 'public', venues: ['perpx', 'hip3'], scopeKeys: ['venue', 'symbols'],
    params: {
      window_s: { type: 'integer', default: 900, menu: [300, 900, 3600], unit: 's', description: 'Window' },
      threshold_pct: { type: 'number', default: 10, min: 0.1, max: 1000, unit: '%', description: 'Move that fires' },
    },
    metrics: { ...common(['perpx', 'hip3']), delta_pct: pct('Move over the window'), delta_usd: usd('Move over the window'), direction: { type: 'enum', values: ['up', 'down'] }, open_interest_usd: usd('Open interest now') },
    costFloor: { metric: 'open_interest_usd', min: 100_000, note: 'Only markets with at least 100,000 USD open interest are considered' },
  }),
  decl({
    type: 'market.breadth_cross', live: true, description: 'The share above session VWAP crossed the threshold, with hysteresis; venue-wide',
    scope: 'public', venues: ['perpx', 'hip3'], scopeKeys: ['venue'],
    params: {
      threshold: { type: 'number', default: 30, min: 1, max: 99, unit: '%', description: 'Breadth level' },
      hysteresis_pct: { type: 'number', default: 5, min: 0, max: 50, unit: '%', description: 'Band that must be left before firing again' },
    },
    metrics: { venue: { type: 'enum', values: ['perpx', 'hip3'] }, value_pct: pct('Breadth now'), direction: { type: 'enum', values: ['up', 'down'] }, timestamp: { type: 'timestamp' } },
  }),
  decl({
    type: 'market.pga_payment', live: true, description: 'A priority gas auction payment; symbols name the payment token', scope: 'public', venues: ['perpx'], scopeKeys: ['venue', 'symbols'],
    params: maxAge(), metrics: { ...common(['perpx']), amount: { type: 'number' }, token: { type: 'text' }, notional_usd: usd('Payment value') },
    notionalMetric: 'notional_usd', costFloor: { metric: 'amount', min: 1.5, note: 'Payments of 1.5 native tokens and up; at most 50 payment events per UTC day' },
  }),
  decl({
    type: 'hip4.settlement', live: true, description: 'An outcome side settled; symbols use #<id>', scope: 'public', venues: ['hip4'], scopeKeys: ['venue', 'symbols'],
    params: maxAge(7200), metrics: { ...common(['hip4']), notional_usd: usd('Settled notional'), resolution: { type: 'enum', values: ['yes', 'no'] } },
    notionalMetric: 'notional_usd', costFloor: { metric: 'notional_usd', min: 500, note: 'Scans from 500 USD; a rule without min_notional_usd receives 1,000 USD and up' },
  }),
  decl({
    type: 'oracle.stall', live: false, description: 'A dex oracle stopped publishing', scope: 'public', venues: ['hip3'], scopeKeys: ['venue'],
    params: { window_s: { type: 'integer', default: 300, menu: [60, 120, 300, 900, 3600], unit: 's', description: 'Silence that counts as a stall' } },
    metrics: { dex: { type: 'text' }, state: { type: 'enum', values: ['stalled', 'recovered', 'expired'] }, stall_s: { type: 'number', unit: 's' } },
  }),
  decl({
    type: 'oracle.jump', live: true, description: 'An oracle price moved at least the threshold between updates', scope: 'public', venues: ['hip3'], scopeKeys: ['venue', 'symbols'],
    params: { threshold_pct: { type: 'number', default: 2, min: 0.1, max: 50, unit: '%', description: 'Move that fires' } },
    metrics: { ...common(['hip3']), dex: { type: 'text' }, change_pct: pct('Move between updates'), direction: { type: 'enum', values: ['up', 'down'] } },
  }),
  decl({
    type: 'chain.block_stall', live: false, description: 'Blocks stopped for threshold_s', scope: 'public', venues: ['perpx'], scopeKeys: ['venue'],
    params: { threshold_s: { type: 'integer', default: 20, menu: [10, 20, 30, 60, 120, 300, 600], unit: 's', description: 'Silence that counts' } },
    metrics: { state: { type: 'enum', values: ['stalled', 'recovered'] }, stall_s: { type: 'number', unit: 's' } },
  }),
  decl({
    type: 'chain.block_time_degraded', live: false, description: 'Block cadence below the trailing 24 h baseline', scope: 'public', venues: ['perpx'], scopeKeys: ['venue'],
    params: {
      degraded_pct: { type: 'integer', default: 20, menu: [10, 20, 30, 50], unit: '%', description: 'Slowdown against the baseline' },
      consecutive_minutes: { type: 'integer', default: 2, menu: [1, 2, 3, 5], unit: 'min', description: 'Minutes it must last' },
    },
    metrics: { state: { type: 'enum', values: ['degraded', 'recovered'] }, degraded_pct: pct('Slowdown') },
  }),
  decl({
    type: 'chain.upgrade_detected', live: true, description: 'A new node build; started and completed share incident_id', scope: 'public', venues: ['perpx'], scopeKeys: ['venue'],
    params: {}, latencyClass: 'seconds',
    metrics: {
      state: { type: 'enum', values: ['started', 'completed'] }, commit: { type: 'text' },
      weekday_utc: { type: 'enum', values: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] }, duration_s: { type: 'number', unit: 's' },
    },
  }),
  ...(['archive.gap_detected', 'archive.gap_resolved'] as const).map((type) => decl({
    type, live: true, description: type.endsWith('detected') ? 'An ingestion stream stalled beyond its cadence' : 'A stalled stream resumed',
    scope: 'public', venues: MARKET_VENUES, scopeKeys: ['venue'], params: {},
    metrics: { venue: { type: 'enum', values: MARKET_VENUES }, stream: { type: 'text' }, gap_s: { type: 'number', unit: 's' } },
  })),
  ...(['ingest.stall', 'ingest.recovered'] as const).map((type) => decl({
    type, live: true, description: type === 'ingest.stall' ? 'One market\'s L2 feed silent for threshold_s' : 'A stall cleared; shares incident_id',
    scope: 'public', venues: MARKET_VENUES, scopeKeys: ['venue', 'symbols'],
    params: { threshold_s: { type: 'integer', default: 600, menu: [60, 120, 300, 600, 1800, 3600], unit: 's', description: 'Silence that counts (judged only at five times a market\'s usual update interval)' } },
    metrics: { ...common(MARKET_VENUES), age_s: { type: 'number', unit: 's' } },
  })),
  decl({
    type: 'account.fill', live: true, description: 'A fill by a watched address', scope: 'addresses', venues: ['perpx', 'hip3', 'spot', 'hip4', 'altx', 'altx-rh'],
    scopeKeys: ['venue', 'symbols', 'addresses'], params: maxAge(), latencyClass: 'seconds', notionalMetric: 'notional_usd',
    metrics: {
      ...common(['perpx', 'hip3', 'spot', 'hip4', 'altx', 'altx-rh']), address: { type: 'text' }, side: { type: 'enum', values: ['buy', 'sell'] },
      size: { type: 'number' }, price: { type: 'number' }, notional_usd: usd('Fill notional'), taker: { type: 'boolean' }, fill_count: { type: 'integer' }, ...relative(true),
    },
  }),
  decl({
    type: 'account.transfer', live: true, description: 'A transfer by a watched address', scope: 'addresses', venues: ['perpx', 'spot'],
    scopeKeys: ['venue', 'symbols', 'addresses'], params: maxAge(), latencyClass: 'seconds', notionalMetric: 'usdc_value',
    metrics: { venue: { type: 'enum', values: ['perpx', 'spot'] }, address: { type: 'text' }, token: { type: 'text' }, amount: { type: 'number' }, kind: { type: 'text' }, role: { type: 'enum', values: ['source', 'destination'] }, usdc_value: usd('Transfer value in USDC'), timestamp: { type: 'timestamp' } },
  }),
  decl({
    type: 'account.liquidated', live: true, description: 'A watched address was liquidated', scope: 'addresses', venues: ['perpx', 'hip3', 'altx'],
    scopeKeys: ['venue', 'symbols', 'addresses'], params: maxAge(), latencyClass: 'seconds', notionalMetric: 'notional_usd',
    metrics: { ...common(['perpx', 'hip3', 'altx']), address: { type: 'text' }, notional_usd: usd('Liquidated notional'), ...relative() },
  }),
  decl({
    type: 'account.order_rejected', live: true, description: 'An involuntary engine cancel of a watched address\'s order', scope: 'addresses', venues: ['perpx', 'hip3'],
    scopeKeys: ['venue', 'symbols', 'addresses'], params: maxAge(),
    metrics: { ...common(['perpx', 'hip3']), address: { type: 'text' }, reason: { type: 'enum', values: ['reduceOnlyCanceled', 'selfTradeCanceled', 'siblingFilledCanceled', 'openInterestCapCanceled', 'marginCanceled', 'liquidatedCanceled', 'scheduledCancel'] } },
  }),
  decl({
    type: 'account.twap_lifecycle', live: true, description: 'A watched address\'s TWAP lifecycle', scope: 'addresses', venues: ['perpx', 'hip3', 'spot'],
    scopeKeys: ['venue', 'symbols', 'addresses'], params: maxAge(),
    metrics: { ...common(['perpx', 'hip3', 'spot']), address: { type: 'text' }, status: { type: 'enum', values: ['activated', 'finished', 'terminated'] }, fill_pct: pct('Share of the TWAP filled') },
  }),
  decl({
    type: 'account.hip4_settled', live: true, description: 'A watched address\'s outcome settlement', scope: 'addresses', venues: ['hip4'],
    scopeKeys: ['venue', 'symbols', 'addresses'], params: maxAge(7200), notionalMetric: 'notional_usd',
    metrics: { ...common(['hip4']), address: { type: 'text' }, notional_usd: usd('Settled notional'), resolution: { type: 'enum', values: ['yes', 'no'] } },
  }),
  decl({
    type: 'billing.credit_low', live: true, description: 'Credits remaining fell to a configured level', scope: 'user', venues: [],
    params: { levels_pct: { type: 'array_of_number', default: [25, 10, 0], min: 0, max: 100, unit: '%', description: 'Percent-remaining levels' } },
    metrics: { level_pct: pct('The level reached'), credits_remaining: { type: 'number' } },
  }),
];

export const EVENT_TYPE_BY_NAME: ReadonlyMap<string, EventTypeDecl> = new Map(EVENT_TYPES.map((d) => [d.type, d]));

/** The operator groups a metric type accepts (every metric also takes the `any` group). */
export function operatorsFor(type: MetricType): readonly string[] {
  const group = type === 'number' || type === 'integer' ? OPERATORS.number : type === 'text' || type === 'enum' ? OPERATORS.text : OPERATORS[type];
  return [...group, ...OPERATORS.any];
}

/** The catalogue entry as served by GET /v1/webhooks/event-types. */
export function publicDeclaration(d: EventTypeDecl) {
  const metricTypes = new Set(Object.values(d.metrics).map((m) => (m.type === 'integer' ? 'number' : m.type === 'enum' ? 'text' : m.type)));
  return {
    type: d.type,
    schema_version: 1,
    live: d.live,
    description: d.description,
    scope: d.scope,
    venues: d.venues,
    filters: [...d.scopeKeys, 'conditions', 'params', ...(d.notionalMetric ? ['min_notional_usd'] : []), ...Object.keys(d.params)],
    params: d.params,
    metrics: d.metrics,
    operators: Object.fromEntries([...[...metricTypes].map((t) => [t, OPERATORS[t as keyof typeof OPERATORS]]), ['any', OPERATORS.any]]),
    cost_floor: d.costFloor,
    latency_class: d.latencyClass,
    filters_example: filtersExample(d),
  };
}

function filtersExample(d: EventTypeDecl): Record<string, unknown> {
  const example: Record<string, unknown> = {};
  if (d.scopeKeys.includes('venue') && d.venues[0]) example.venue = d.venues[0];
  if (d.scopeKeys.includes('symbols')) example.symbols = [d.venues[0] === 'hip3' ? 'xyz:TSLA' : d.venues[0] === 'hip4' ? '#10' : 'BTC'];
  if (d.notionalMetric) example.min_notional_usd = 10_000;
  const firstParam = Object.entries(d.params)[0];
  if (firstParam) example.params = { [firstParam[0]]: firstParam[1].default };
  return example;
}
