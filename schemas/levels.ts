/**
 * Parameters and shapes of the level maps beyond the spec (issue 45): resting trigger orders and
 * projected liquidation prices, each aggregated into price buckets around the market's mark price,
 * now or at snapshot instants. Shapes as the reference client's types and validation schemas read
 * them (reference §3 TriggerLevels, LiqLevels): numbers, times as RFC 3339 with an integer-ms twin.
 */
import * as v from 'valibot';
import { booleanParam, enumParam, epochMsParam, integerParam, positionCursorParam } from './params.ts';

/** bid, buy and B keep the bid (long) side; ask, sell and A the ask (short) side; the other side is zeroed. */
export const LEVEL_SIDES = ['bid', 'ask', 'buy', 'sell', 'B', 'A'] as const;
export type LevelSide = (typeof LEVEL_SIDES)[number];

/** The bucketing of one map: `range_pct` either side of the mark, cut into `buckets` equal buckets. */
export const LevelsQuery = {
  range_pct: integerParam({ min: 1, max: 50, default: 10, description: 'Percent either side of the mark price the buckets cover' }),
  buckets: integerParam({ min: 10, max: 200, default: 50, description: 'Number of equal-width price buckets' }),
  side: enumParam(LEVEL_SIDES, { description: 'Keep one side (bid/buy/B: bids or longs; ask/sell/A: asks or shorts); the other is zeroed' }),
};

export const LiquidationLevelsQuery = {
  ...LevelsQuery,
  at: epochMsParam('Point in time, epoch ms: the newest snapshot at or before it (default now)'),
};

export const LevelsHistoryQuery = {
  start: epochMsParam('Window start, epoch ms (inclusive; default 24 hours before end)'),
  end: epochMsParam('Window end, epoch ms (inclusive; default now)'),
  limit: integerParam({ min: 1, max: 100, default: 24, description: 'Snapshots per page' }),
  summary: booleanParam("true leaves out each snapshot's levels (totals only)"),
  cursor: positionCursorParam('snapshots'),
  ...LevelsQuery,
};

const num = (description: string) => v.pipe(v.number(), v.description(description));
const snapshotTs = v.pipe(v.string(), v.description('snapshot instant, RFC 3339 UTC'));
const snapshotTsMs = v.pipe(v.number(), v.integer(), v.description('snapshot instant, epoch ms'));

export const TriggerLevelBucketSchema = v.object({
  price_bucket: num('bucket centre price'),
  bid_count: num('resting buy-side trigger orders whose trigger price is in the bucket'),
  bid_size: num('their remaining size'),
  ask_count: num('resting sell-side trigger orders whose trigger price is in the bucket'),
  ask_size: num('their remaining size'),
});
export type TriggerLevelBucket = v.InferOutput<typeof TriggerLevelBucketSchema>;

const triggerTotals = {
  mid_price: num('the newest mark price at or before the instant: the centre of the range'),
  total_bid_size: num('bid size summed over the levels served'),
  total_ask_size: num('ask size summed over the levels served'),
};

/**
 * Trigger orders resting at an instant: an order placed as a trigger whose newest event at or before
 * the instant is its placement (not yet triggered, filled or canceled), placed within the lookback.
 */
export const TriggerLevelsSchema = v.object({
  ...triggerTotals,
  as_of: v.pipe(v.string(), v.description('the instant the resting state describes (the read time), RFC 3339 UTC')),
  levels: v.array(TriggerLevelBucketSchema),
});
export type TriggerLevels = v.InferOutput<typeof TriggerLevelsSchema>;

export const TriggerLevelsItemSchema = v.object({
  snapshot_ts: snapshotTs,
  snapshot_ts_ms: snapshotTsMs,
  ...triggerTotals,
  levels: v.optional(v.array(TriggerLevelBucketSchema)),
});
export type TriggerLevelsItem = v.InferOutput<typeof TriggerLevelsItemSchema>;

export const LiquidationLevelBucketSchema = v.object({
  price: num('bucket centre price'),
  long_notional: num('notional (size x mark) of long positions whose liquidation price is in the bucket'),
  short_notional: num('notional of short positions whose liquidation price is in the bucket'),
  long_count: num('long positions in the bucket'),
  short_count: num('short positions in the bucket'),
});
export type LiquidationLevelBucket = v.InferOutput<typeof LiquidationLevelBucketSchema>;

/**
 * The liquidation price rule (the venue's documented formula, solved where equity meets maintenance
 * margin): liq = entry - side x margin_available / |size| / (1 - side / maintenance_leverage), side
 * +1 long and -1 short, maintenance leverage twice the market's max leverage. The archive does not
 * see margin, so each position is taken as isolated with the initial margin of max leverage
 * (|size| x entry / max_leverage): the nearest liquidation price the position can have.
 */
const liquidationTotals = {
  mid_price: num('the mark price of the snapshot: the centre of the range'),
  block_number: v.pipe(v.number(), v.integer(), v.description('the newest order-event block of the market at or before the snapshot; 0 when none is archived')),
  total_long: num('notional of every long position with a liquidation price, in range or not'),
  total_short: num('notional of every short position with a liquidation price, in range or not'),
  flagged_notional: num('notional of positions without an entry price or max leverage: no liquidation price, left out of the buckets'),
  source: v.pipe(v.picklist(['raw', 'histogram']), v.description('raw: bucketed from each position')),
};

export const LiquidationLevelsSchema = v.pipe(
  v.object({
    snapshot_ts: snapshotTs,
    snapshot_ts_ms: snapshotTsMs,
    ...liquidationTotals,
    levels: v.array(LiquidationLevelBucketSchema),
  }),
  v.description(
    'Projected liquidation prices of the positions at a snapshot, by price bucket. Rule: liq = entry - side x (|size| x entry / max_leverage - |size| x entry / (2 x max_leverage)) / |size| / (1 - side / (2 x max_leverage)): isolated at max leverage, maintenance margin half the initial margin',
  ),
);
export type LiquidationLevels = v.InferOutput<typeof LiquidationLevelsSchema>;

export const LiquidationLevelsItemSchema = v.object({
  snapshot_ts: snapshotTs,
  snapshot_ts_ms: snapshotTsMs,
  ...liquidationTotals,
  levels: v.optional(v.array(LiquidationLevelBucketSchema)),
});
export type LiquidationLevelsItem = v.InferOutput<typeof LiquidationLevelsItemSchema>;
