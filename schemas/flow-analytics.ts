/**
 * Parameters and rows of the routes derived from trades and order events beyond the spec (issue
 * 45): cumulative volume delta and order history. Shapes as the reference client's types and
 * validation schemas read them (reference §3): numbers where it reads numbers, times as RFC 3339
 * strings with an integer-ms twin.
 */
import * as v from 'valibot';
import { booleanParam, cursorParam, enumParam, epochMsParam, integerParam, positionCursorParam, stringParam } from './params.ts';
import { CANDLE_INTERVALS, intervalNames } from './intervals.ts';

/** CVD buckets: the candle widths; 4h, 1d and 1w open on epoch boundaries (reference §3 CvdBucket). */
export const CVD_INTERVALS = CANDLE_INTERVALS;
export type CvdInterval = keyof typeof CVD_INTERVALS;

export const CvdQuery = {
  start: epochMsParam('Window start, epoch ms (inclusive). Without start or cursor: the newest `limit` buckets of the 24 hours before end, and no cursor'),
  end: epochMsParam('Window end, epoch ms (default now)'),
  interval: enumParam(intervalNames(CVD_INTERVALS), { default: '1h', description: 'Bucket width', errorCode: 'invalid_interval' }),
  limit: integerParam({ min: 1, max: 10_000, default: 500, description: 'Buckets per page' }),
  cursor: positionCursorParam('the buckets opening', { bucketed: true }),
};

const volume = v.pipe(v.number(), v.description('taker notional, price x size'));

/** One bucket of taker flow; buckets without trades are absent. */
export const CvdBucketSchema = v.object({
  timestamp: v.pipe(v.string(), v.description('bucket open, RFC 3339 UTC')),
  timestamp_ms: v.pipe(v.number(), v.integer(), v.description('bucket open, epoch ms')),
  buy_volume: volume,
  sell_volume: volume,
  delta: v.pipe(v.number(), v.description('buy_volume minus sell_volume')),
  cumulative_delta: v.pipe(v.number(), v.description('running sum of delta from the first bucket of this page (it restarts on every page)')),
});
export type CvdBucket = v.InferOutput<typeof CvdBucketSchema>;

/** The status filter of order history, as clients send it: `open` is a placement, the others the event of that name. */
export const ORDER_HISTORY_STATUSES = ['open', 'filled', 'canceled', 'triggered', 'force_canceled'] as const;
export type OrderHistoryStatus = (typeof ORDER_HISTORY_STATUSES)[number];
/** `limit`: not a trigger order; `trigger`: a trigger order that is not a position TP/SL; `tpsl`: a position TP/SL. */
export const ORDER_HISTORY_TYPES = ['limit', 'trigger', 'tpsl'] as const;
export type OrderHistoryType = (typeof ORDER_HISTORY_TYPES)[number];

export const OrderHistoryQuery = {
  start: epochMsParam('Window start, epoch ms (inclusive; default 24 hours before now)'),
  end: epochMsParam('Window end, epoch ms (default now)'),
  status: enumParam(ORDER_HISTORY_STATUSES, { description: 'Only events of this kind (open = placements)' }),
  order_type: enumParam(ORDER_HISTORY_TYPES, { description: 'limit: not a trigger; trigger: a trigger that is not a position TP/SL; tpsl: a position TP/SL' }),
  triggered: booleanParam('true keeps only triggered events; false drops them'),
  user: stringParam({ description: 'Only this wallet (0x address, any case)', pattern: /^0x[0-9a-fA-F]{40}$/ }),
  limit: integerParam({ min: 1, max: 10_000, default: 1000, description: 'Rows per page' }),
  cursor: cursorParam({ description: 'meta.next_cursor of the previous page, passed unchanged' }),
};

const price = v.pipe(v.number(), v.description('decimal as a JSON number'));

/** One order event, oldest first; a member the event does not carry (no limit price, no cloid) is absent. */
export const OrderHistoryEventSchema = v.object({
  coin: v.string(),
  symbol: v.string(),
  timestamp: v.pipe(v.string(), v.description('RFC 3339 UTC')),
  block_time: v.pipe(v.string(), v.description('RFC 3339 UTC')),
  block_number: v.number(),
  seq: v.number(),
  oid: v.number(),
  user_address: v.string(),
  side: v.picklist(['B', 'A']),
  event: v.string(),
  status: v.pipe(v.string(), v.description("the venue's order status after the event")),
  limit_price: v.optional(price),
  size: v.optional(price),
  orig_size: v.optional(price),
  order_type: v.string(),
  tif: v.optional(v.string()),
  reduce_only: v.boolean(),
  is_trigger: v.boolean(),
  is_position_tpsl: v.boolean(),
  trigger_condition: v.optional(v.string()),
  trigger_price: v.optional(price),
  cloid: v.optional(v.string()),
});
export type OrderHistoryEvent = v.InferOutput<typeof OrderHistoryEventSchema>;

/** Spot TWAP statuses by pair or by wallet: a window, oldest first (reference §2.4). */
export const SpotTwapQuery = {
  start: epochMsParam('Window start, epoch ms (inclusive; default 24 hours before now)'),
  end: epochMsParam('Window end, epoch ms (default now)'),
  limit: integerParam({ min: 1, max: 10_000, default: 100, description: 'Rows per page' }),
  cursor: cursorParam({ description: 'meta.next_cursor of the previous page, passed unchanged' }),
};

/**
 * One TWAP status (activated, finished, terminated) as the venue reports it, with what its fills
 * (trades carrying its twap id) add: the notional executed up to the status and the first fill's
 * time. Members the archive does not hold (minutes, randomize, block) are absent.
 */
export const SpotTwapSchema = v.object({
  coin: v.pipe(v.string(), v.description('the pair, dashed')),
  timestamp: v.pipe(v.string(), v.description('status time, RFC 3339 UTC')),
  twap_id: v.number(),
  user_address: v.string(),
  side: v.picklist(['B', 'A']),
  status: v.string(),
  size: v.pipe(v.number(), v.description('the order size as the status reports it')),
  executed_size: v.pipe(v.number(), v.description('size executed by the status')),
  executed_notional: v.pipe(v.number(), v.description("sum of price x size of the TWAP's fills up to the status")),
  started_at: v.optional(v.pipe(v.string(), v.description("the first fill's time, RFC 3339 UTC; absent when no fill is archived in the 24 hours before"))),
});
export type SpotTwap = v.InferOutput<typeof SpotTwapSchema>;
