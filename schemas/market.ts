/** Parameters and response rows of the market-data routes (SPEC "Endpoints" and "Resources"). */
import * as v from 'valibot';
import { booleanParam, cursorParam, enumParam, epochMsParam, integerParam, positionCursorParam, stringParam } from './params.ts';
import { BREADTH_INTERVALS, CANDLE_INTERVALS, FLOW_INTERVALS, SAMPLE_INTERVALS, intervalNames } from './intervals.ts';

export const symbolPath = { symbol: stringParam({ description: 'Symbol in the family form (hip4 `#N` sent as `%23N`)', maxLength: 64, required: true }) };

const window = {
  start: epochMsParam('Window start, epoch ms (inclusive; default 24 hours before now)'),
  end: epochMsParam('Window end, epoch ms (default now)'),
};
const cursor = { cursor: cursorParam({ description: 'meta.next_cursor of the previous page, passed unchanged' }) };
/** The real service's transparent cursors (reference §4.3), where it has one. */
const tradeCursor = { cursor: positionCursorParam('the rows', { id: 'trade_id' }) };
/** Trade rows carry `B`/`A`; clients also say `buy`/`sell`: both spellings are accepted. */
export const TRADE_SIDES = ['buy', 'sell', 'B', 'A'] as const;
export type TradeSide = (typeof TRADE_SIDES)[number];
const side = { side: enumParam(TRADE_SIDES, { description: 'Only trades whose taker side is this: buy or B, sell or A' }) };

export const TradesQuery = {
  ...window,
  limit: integerParam({ min: 1, max: 1000, default: 100, description: 'Rows per page' }),
  ...tradeCursor,
  ...side,
};

export const RecentTradesQuery = {
  limit: integerParam({ min: 1, max: 1000, default: 100, description: 'Newest trades to return, newest first' }),
  ...side,
};

export const CandlesQuery = {
  interval: enumParam(intervalNames(CANDLE_INTERVALS), {
    default: '1h',
    description: 'Bucket width, rolled up from 1-minute candles',
    errorCode: 'invalid_interval',
  }),
  ...window,
  limit: integerParam({ min: 1, max: 10_000, default: 100, description: 'Candles per page' }),
  cursor: positionCursorParam('the candles opening'),
};

export const TriggerOrdersQuery = {
  ...window,
  triggered: booleanParam('true keeps only triggers that fired; false drops them'),
  user: stringParam({ description: 'Only this wallet (0x address, any case)', pattern: /^0x[0-9a-fA-F]{40}$/ }),
  limit: integerParam({ min: 1, max: 10_000, default: 1000, description: 'Rows per page' }),
  ...cursor,
};

export const OrderFlowQuery = {
  ...window,
  interval: enumParam(intervalNames(FLOW_INTERVALS), { default: '1m', description: 'Bucket width (`granularity` is ignored)', errorCode: 'invalid_interval' }),
  limit: integerParam({ min: 1, max: 10_000, default: 1000, description: 'Buckets to return (no cursor)' }),
};

const decimal = v.pipe(v.string(), v.description('decimal string'));
const time = v.pipe(v.string(), v.description('RFC 3339 UTC'));

/** Members after `timestamp` appear where they apply to the fill and are absent otherwise (never null). */
export const TradeSchema = v.object({
  symbol: v.string(),
  coin: v.pipe(v.string(), v.description('deprecated alias of symbol')),
  side: v.picklist(['B', 'A']),
  price: decimal,
  size: decimal,
  timestamp: time,
  trade_id: v.optional(v.number()),
  crossed: v.optional(v.boolean()),
  fee: v.optional(decimal),
  fee_token: v.optional(v.string()),
  closed_pnl: v.optional(decimal),
  direction: v.optional(v.string()),
  start_position: v.optional(decimal),
  user_address: v.optional(v.string()),
  tx_hash: v.optional(v.string()),
  order_id: v.optional(v.number()),
  cloid: v.optional(v.string()),
  maker_address: v.optional(v.string()),
  taker_address: v.optional(v.string()),
  twap_id: v.optional(v.number()),
  builder_address: v.optional(v.string()),
  builder_fee: v.optional(decimal),
  deployer_fee: v.optional(decimal),
  priority_gas: v.optional(v.pipe(v.number(), v.description('HYPE (hip3)'))),
  account_index: v.optional(v.pipe(v.string(), v.description("altx and altx-rh: the venue's account number"))),
  source: v.optional(v.pipe(v.picklist(['bucket', 'ws']), v.description('altx and altx-rh: `bucket` = canonical row, `ws` = preliminary'))),
});

export const CandleSchema = v.object({
  timestamp: time,
  open: v.number(),
  high: v.number(),
  low: v.number(),
  close: v.number(),
  volume: v.pipe(v.number(), v.description('base-asset volume')),
  quote_volume: v.pipe(v.number(), v.description('quote volume (USD; USDH on hip4)')),
  trade_count: v.pipe(v.number(), v.integer()),
});

export const TriggerOrderSchema = v.object({
  timestamp: time,
  block_time: time,
  block_number: v.number(),
  seq: v.number(),
  coin: v.string(),
  user_address: v.string(),
  status: v.string(),
  event: v.string(),
  side: v.picklist(['B', 'A']),
  limit_price: v.nullable(v.number()),
  size: v.nullable(v.number()),
  orig_size: v.nullable(v.number()),
  oid: v.number(),
  order_type: v.string(),
  trigger_condition: v.nullable(v.string()),
  trigger_price: v.nullable(v.number()),
  is_trigger: v.boolean(),
  is_position_tpsl: v.boolean(),
  reduce_only: v.boolean(),
});

export const OrderFlowSchema = v.object({
  timestamp: time,
  limit_orders_placed: v.number(),
  orders_canceled: v.number(),
  orders_filled: v.number(),
  trigger_orders_placed: v.number(),
  tpsl_orders_placed: v.number(),
  orders_triggered: v.number(),
  orders_force_canceled: v.number(),
});

/** hip3 markets add `coin`, `namespace` and `ticker`; hip4 sides `coin`, `outcome_id`, `side` and `asset_id`; absent elsewhere. */
export const InstrumentSchema = v.object({
  symbol: v.string(),
  name: v.string(),
  instrument_type: v.picklist(['perp', 'spot', 'outcome']),
  sz_decimals: v.number(),
  coin: v.optional(v.pipe(v.string(), v.description('hip3 and hip4: the symbol'))),
  namespace: v.optional(v.pipe(v.string(), v.description('hip3: the builder dex'))),
  ticker: v.optional(v.pipe(v.string(), v.description('hip3: the symbol after the dex'))),
  outcome_id: v.optional(v.pipe(v.number(), v.integer(), v.description('hip4'))),
  side: v.optional(v.pipe(v.picklist([0, 1]), v.description('hip4: 0 = Yes, 1 = No'))),
  asset_id: v.optional(v.pipe(v.number(), v.integer(), v.description('hip4'))),
  max_leverage: v.optional(v.number()),
  dex: v.optional(v.string()),
  quote: v.optional(v.string()),
  is_active: v.boolean(),
  listed_at: time,
  delisted_at: v.optional(time),
});

/** Open interest and funding history: native cadence, or the last sample of each bucket. */
export const SeriesQuery = {
  ...window,
  interval: enumParam(intervalNames(SAMPLE_INTERVALS), {
    description: 'The last sample of each bucket (never an average); omit for the native cadence',
    errorCode: 'invalid_interval',
  }),
  limit: integerParam({ min: 1, max: 1000, default: 100, description: 'Rows per page' }),
  cursor: positionCursorParam('the samples (with interval, the buckets opening)', { bucketed: true }),
};

/** hip4 sides add `outcome_id` and `side` and have no oracle price; members that do not apply are absent. */
export const OpenInterestSchema = v.object({
  symbol: v.string(),
  coin: v.string(),
  timestamp: time,
  open_interest: decimal,
  mark_price: v.optional(decimal),
  oracle_price: v.optional(decimal),
  mid_price: v.optional(decimal),
  day_ntl_volume: v.optional(decimal),
  outcome_id: v.optional(v.pipe(v.number(), v.integer(), v.description('hip4'))),
  side: v.optional(v.pipe(v.picklist([0, 1]), v.description('hip4: 0 = Yes, 1 = No'))),
});

export const FundingSchema = v.object({
  symbol: v.string(),
  coin: v.string(),
  timestamp: time,
  funding_rate: v.pipe(v.string(), v.description('decimal fraction per funding interval, not annualized')),
  premium: v.optional(decimal),
});

/** Liquidation routes' windows: Hist, 100 rows by default, 1000 at most. */
const liquidationWindow = { ...window, limit: integerParam({ min: 1, max: 1000, default: 100, description: 'Rows per page' }) };

export const LiquidationsQuery = { ...liquidationWindow, ...tradeCursor };

export const userPath = { user: stringParam({ description: 'Wallet address (0x, any case)', pattern: /^0x[0-9a-fA-F]{40}$/, required: true }) };

export const UserLiquidationsQuery = {
  ...liquidationWindow,
  cursor: positionCursorParam('the rows'),
  symbol: stringParam({ description: 'Only this market', maxLength: 64 }),
  coin: stringParam({ description: 'Alias of symbol (the name the TypeScript client sends)', maxLength: 64 }),
};

export const LiquidationVolumeQuery = {
  ...liquidationWindow,
  cursor: positionCursorParam('the buckets opening', { bucketed: true }),
  interval: enumParam(intervalNames(SAMPLE_INTERVALS), { default: '1h', description: 'Bucket width', errorCode: 'invalid_interval' }),
};

/** One liquidation fill: `side` A = a long was liquidated, B = a short. */
export const LiquidationSchema = v.object({
  symbol: v.string(),
  coin: v.string(),
  timestamp: time,
  liquidated_user: v.string(),
  liquidator_user: v.optional(v.string()),
  price: decimal,
  size: decimal,
  side: v.pipe(v.picklist(['A', 'B']), v.description('A = long liquidated, B = short liquidated')),
  mark_price: v.optional(decimal),
  closed_pnl: v.optional(decimal),
  direction: v.optional(v.string()),
  trade_id: v.number(),
  tx_hash: v.optional(v.string()),
});

/** One altx liquidation trade: both accounts (numbered, as strings) and each side's state before it. */
export const AltxLiquidationSchema = v.object({
  symbol: v.string(),
  timestamp: time,
  timestamp_ms: v.pipe(v.number(), v.integer()),
  transaction_time_us: v.pipe(v.number(), v.integer()),
  trade_id: v.number(),
  liquidation_type: v.string(),
  price: v.number(),
  size: v.number(),
  usd_amount: v.pipe(v.number(), v.description('notional in USDC')),
  ask_account: v.string(),
  bid_account: v.string(),
  ask_order_id: v.number(),
  bid_order_id: v.number(),
  is_maker_ask: v.boolean(),
  taker_position_size_before: v.number(),
  maker_position_size_before: v.number(),
  taker_entry_quote_before: v.number(),
  maker_entry_quote_before: v.number(),
  taker_initial_margin_fraction_before: v.number(),
  maker_initial_margin_fraction_before: v.number(),
  taker_allocated_margin_usdc_before: v.number(),
  taker_allocated_margin_usdc_after: v.number(),
  maker_allocated_margin_usdc_before: v.number(),
  maker_allocated_margin_usdc_after: v.number(),
  taker_fee: v.number(),
  maker_fee: v.number(),
  taker_position_sign_changed: v.boolean(),
  maker_position_sign_changed: v.boolean(),
  block_height: v.number(),
  tx_hash: v.string(),
  raw_json: v.pipe(v.string(), v.description('the venue payload; empty for rows from its finalized export')),
  source: v.picklist(['ws', 'bucket']),
});

const usd = v.pipe(v.number(), v.description('USD notional, price x size'));
const integer = v.pipe(v.number(), v.integer());
/** A bucket of liquidated notional; buckets without liquidations are absent. */
export const LiquidationVolumeSchema = v.object({
  symbol: v.string(),
  coin: v.string(),
  timestamp: time,
  total_usd: usd,
  long_usd: usd,
  short_usd: usd,
  count: integer,
  long_count: integer,
  short_count: integer,
});

/** Prices from the open-interest samples; a price the venue does not publish is absent (hip4 has no oracle). */
export const PriceSnapshotSchema = v.object({
  timestamp: time,
  mark_price: v.optional(decimal),
  oracle_price: v.optional(decimal),
  mid_price: v.optional(decimal),
});

/** The latest state of a market; members that do not apply to the family, or that have no recent record, are absent. */
export const CoinSummarySchema = v.object({
  symbol: v.string(),
  coin: v.string(),
  timestamp: v.pipe(time, v.description('the newest record the summary is built from')),
  mark_price: v.optional(decimal),
  oracle_price: v.optional(decimal),
  mid_price: v.optional(decimal),
  funding_rate: v.optional(decimal),
  premium: v.optional(decimal),
  open_interest: v.optional(decimal),
  volume_24h: v.optional(v.pipe(decimal, v.description('quote notional traded in the last 24 hours'))),
  liquidation_volume_24h: v.optional(usd),
  long_liquidation_volume_24h: v.optional(usd),
  short_liquidation_volume_24h: v.optional(usd),
});

const freshnessBucket = v.object({
  last_updated: v.nullable(v.pipe(time, v.description('the newest record of the dataset; null when none in the last 7 days'))),
  lag_ms: v.nullable(v.pipe(v.number(), v.integer(), v.description('measured_at minus last_updated'))),
});
/** Per dataset the family has: when its newest record of the market is from, and how far behind now. */
export const CoinFreshnessSchema = v.object({
  symbol: v.string(),
  coin: v.string(),
  exchange: v.string(),
  measured_at: time,
  orderbook: freshnessBucket,
  trades: freshnessBucket,
  funding: v.optional(freshnessBucket),
  open_interest: v.optional(freshnessBucket),
  liquidations: v.optional(freshnessBucket),
  twap: v.optional(v.pipe(freshnessBucket, v.description('spot'))),
});

/** A spot pair of the token registry: base and quote tokens with their decimals. */
export const SpotPairSchema = v.object({
  symbol: v.string(),
  coin: v.string(),
  pair_index: integer,
  name: v.pipe(v.string(), v.description('`PURR/USDC` for the canonical pair, `@<index>` otherwise')),
  is_canonical: v.boolean(),
  base_token_id: integer,
  quote_token_id: integer,
  base_token_name: v.string(),
  quote_token_name: v.string(),
  base_sz_decimals: integer,
  base_wei_decimals: integer,
  quote_sz_decimals: integer,
  quote_wei_decimals: integer,
  first_seen_at: time,
  last_updated_at: time,
});

export const OutcomesQuery = {
  is_settled: booleanParam('Only settled (true) or live (false) outcomes'),
  slug: stringParam({ description: 'The outcome whose slug, or one of whose side slugs, this is (0 or 1 rows)', maxLength: 200 }),
  limit: integerParam({ min: 1, max: 1000, default: 100, description: 'Outcomes per page' }),
  ...cursor,
};

export const slugPath = {
  slug: stringParam({ description: "An outcome's slug or one of its sides' (one path segment, percent-encoded)", maxLength: 200, required: true }),
};

export const outcomePath = {
  outcome_id: integerParam({ min: 0, max: 99_999_999, description: 'Outcome id (a side `#N` belongs to outcome N // 10)', required: true }),
};

const contracts = v.pipe(v.number(), v.description('contracts'));
/** One outcome market of hip4: both sides, what the venue's description says, and whether it settled. */
export const OutcomeSchema = v.object({
  outcome_id: integer,
  name: v.string(),
  description_raw: v.string(),
  class: v.optional(v.string()),
  underlying: v.optional(v.string()),
  expiry: v.optional(time),
  target_price: v.optional(v.pipe(v.number(), v.description('strike in USD, not a probability'))),
  period: v.optional(v.string()),
  side_specs: v.array(
    v.object({ side: v.picklist([0, 1]), name: v.string(), coin: v.string(), asset_id: integer, display_title: v.string(), slug: v.string() }),
  ),
  is_settled: v.boolean(),
  status: v.picklist(['live', 'settled']),
  source_seen_at: time,
  display_title: v.string(),
  slug: v.string(),
  outcome_pair: v.pipe(v.array(v.string()), v.description('the two side coins, `#N` form')),
  aggregated_oi: v.optional(
    v.pipe(
      v.object({
        side0_open_interest_contracts: contracts,
        side1_open_interest_contracts: contracts,
        outcome_display_open_interest_contracts: v.pipe(contracts, v.description('the larger side')),
        paired_set_supply_contracts: v.pipe(contracts, v.description('the smaller side: sets of both sides outstanding')),
        side_supply_parity: v.boolean(),
        currency: v.literal('USDH'),
        as_of: time,
        side0_as_of: time,
        side1_as_of: time,
      }),
      v.description('single-outcome reads only; absent when a side has no recent sample'),
    ),
  ),
});

/** The real service's question cursor is the last question id served (reference §4.3: `"0"`, `"5"`). */
export const QuestionsQuery = {
  limit: integerParam({ min: 1, max: 1000, default: 100, description: 'Questions per page' }),
  cursor: cursorParam({ form: 'id', maxLength: 16, description: 'meta.next_cursor: the id of the last question served; questions with a greater id follow' }),
};

export const questionPath = { question_id: integerParam({ min: 0, max: 99_999_999, description: 'Question id', required: true }) };

/**
 * A hip4 question: a ballot grouping outcome markets, one named outcome per choice plus the
 * fallback outcome that resolves Yes when no named choice does. Outcome ids are `/outcomes` ids.
 */
export const QuestionSchema = v.object({
  question_id: integer,
  name: v.string(),
  description: v.pipe(v.string(), v.description("the venue's pipe-delimited question metadata")),
  fallback_outcome_id: integer,
  named_outcome_ids: v.pipe(v.array(integer), v.description('ascending')),
  settled_named_outcomes: v.pipe(v.array(integer), v.description('the named outcomes that have settled, ascending')),
  first_seen_at: v.pipe(time, v.description('the first listing of any of its outcomes')),
  last_updated_at: v.pipe(time, v.description('the newest registry record of any of its outcomes')),
});
export type Question = v.InferOutput<typeof QuestionSchema>;

/** altx volume buckets: a total and a count (the venue reports no reliable long/short direction). */
export const AltxLiquidationVolumeSchema = v.object({
  symbol: v.string(),
  timestamp: time,
  timestamp_ms: integer,
  total_usd: usd,
  count: integer,
});

export type Trade = v.InferOutput<typeof TradeSchema>;
export type AltxLiquidation = v.InferOutput<typeof AltxLiquidationSchema>;
export type AltxLiquidationVolume = v.InferOutput<typeof AltxLiquidationVolumeSchema>;
export type SpotPair = v.InferOutput<typeof SpotPairSchema>;
export type Outcome = v.InferOutput<typeof OutcomeSchema>;
export type PriceSnapshot = v.InferOutput<typeof PriceSnapshotSchema>;
export type CoinSummary = v.InferOutput<typeof CoinSummarySchema>;
export type CoinFreshness = v.InferOutput<typeof CoinFreshnessSchema>;
export type Liquidation = v.InferOutput<typeof LiquidationSchema>;
export type LiquidationVolume = v.InferOutput<typeof LiquidationVolumeSchema>;
export type BreadthSnapshotView = v.InferOutput<typeof BreadthSnapshotSchema>;
export type OpenInterest = v.InferOutput<typeof OpenInterestSchema>;
export type Funding = v.InferOutput<typeof FundingSchema>;
export type Candle = v.InferOutput<typeof CandleSchema>;
export type TriggerOrder = v.InferOutput<typeof TriggerOrderSchema>;
export type OrderFlowBucket = v.InferOutput<typeof OrderFlowSchema>;
export type Instrument = v.InferOutput<typeof InstrumentSchema>;

export const BreadthHistoryQuery = {
  start: epochMsParam('Inclusive, epoch ms (default 24 hours before now, whatever end is)'),
  end: epochMsParam('Inclusive, epoch ms (default now)'),
  interval: enumParam(intervalNames(BREADTH_INTERVALS), {
    description: 'Last snapshot of each bucket; omit for raw 1-minute rows',
    errorCode: 'invalid_interval',
  }),
  // Values above 1000 are clamped, not refused (SPEC "Breadth").
  limit: integerParam({ min: 1, max: Number.MAX_SAFE_INTEGER, default: 100, description: 'Rows per page; silently clamped to 1000' }),
  cursor: cursorParam({
    form: 'ms',
    description: '<ts_ms>: meta.next_cursor, or the calculated_at (epoch ms) of the last snapshot served; snapshots after it (exclusive)',
    maxLength: 16,
  }),
};

const counts = v.object({
  candidates: v.number(),
  eligible: v.number(),
  above: v.number(),
  at: v.number(),
  below: v.number(),
  excluded_no_session_volume: v.number(),
  excluded_stale_price: v.number(),
});
const perNamespace = v.record(v.string(), v.number());
export const BreadthSnapshotSchema = v.object({
  session_date: v.string(),
  calculated_at: time,
  value_pct: v.nullable(v.number()),
  coverage_ratio: v.number(),
  counts,
  namespaces: v.object({ eligible: perNamespace, above: perNamespace, at: perNamespace, below: perNamespace }),
});
