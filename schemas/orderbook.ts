/**
 * Parameters and response shapes of the order-book routes (reference §2 and §3: OrderBook,
 * FullDepthL2, L2Diff, L4Snapshot, L4Diff). Native books and full-depth L2 levels carry decimal
 * strings; order-level rows and L2 diffs carry JSON numbers, as the real client reads them.
 */
import * as v from 'valibot';
import { epochMsParam, integerParam, stringParam } from './params.ts';

const time = v.pipe(v.string(), v.description('RFC 3339 UTC'));
const decimal = v.pipe(v.string(), v.description('decimal string'));
const count = v.pipe(v.number(), v.integer());

const instant = { timestamp: epochMsParam('The instant, epoch ms (default now)') };
const window = {
  start: epochMsParam('Window start, epoch ms (inclusive; default 24 hours before now)'),
  end: epochMsParam('Window end, epoch ms (default now)'),
};
const cursor = { cursor: stringParam({ description: 'meta.next_cursor of the previous page, passed unchanged', maxLength: 512 }) };
const historyLimit = { limit: integerParam({ min: 1, max: 1000, default: 100, description: 'Books per page' }) };

/** The native book is capped at 20 levels a side on the perpx families; altx books have every served level. */
export const NATIVE_DEPTH_CAP = 20;
const nativeDepth = {
  depth: integerParam({ min: 1, max: 10_000, description: `Levels per side, best first (at most ${NATIVE_DEPTH_CAP} on perpx, spot, hip3 and hip4; default all the snapshot has)` }),
};
const fullDepth = { depth: integerParam({ min: 1, max: 100_000, description: 'Levels per side, best first (default every level)' }) };
const orderDepth = { depth: integerParam({ min: 1, max: 100_000, description: 'Resting orders per side, in priority (default every order)' }) };

export const BookQuery = { ...instant, ...nativeDepth };
export const BookHistoryQuery = { ...window, ...historyLimit, ...cursor, ...nativeDepth };
export const FullDepthQuery = { ...instant, ...fullDepth };
export const FullDepthHistoryQuery = { ...window, ...historyLimit, ...cursor, ...fullDepth };
export const L4Query = { ...instant, ...orderDepth };
export const L4HistoryQuery = { ...window, ...historyLimit, ...cursor, ...orderDepth };
export const L2DiffsQuery = { ...window, ...historyLimit, ...cursor };
export const L4DiffsQuery = { ...window, limit: integerParam({ min: 1, max: 10_000, default: 1000, description: 'Diffs per page' }), ...cursor };

const LevelSchema = v.object({ px: decimal, sz: decimal, n: v.pipe(count, v.description('orders at this price')) });

const bookMembers = {
  symbol: v.string(), coin: v.pipe(v.string(), v.description('deprecated alias of symbol')), timestamp: time,
  bids: v.pipe(v.array(LevelSchema), v.description('best first')), asks: v.pipe(v.array(LevelSchema), v.description('best first')),
  mid_price: v.optional(decimal), spread: v.optional(decimal), spread_bps: v.optional(v.pipe(v.string(), v.description('basis points, 2 decimals'))),
};

/** `mid_price`, `spread` and `spread_bps` are absent when a side is empty. */
export const OrderBookSchema = v.object(bookMembers);

/** Every level of the order-level book aggregated by price; the counts and totals are before `depth` truncation. */
export const FullDepthBookSchema = v.object({
  ...bookMembers,
  bid_levels: count, ask_levels: count, total_bid_size: v.number(), total_ask_size: v.number(),
});

export const L2DiffSchema = v.object({
  timestamp: time, block_number: count, side: v.picklist(['B', 'A']), price: v.number(),
  size: v.pipe(v.number(), v.description('the level\'s size after the block; 0 = the level is gone')),
  count: v.pipe(count, v.description('orders at the level after the block')),
});

const RestingOrderSchema = v.object({
  oid: count, user_address: v.string(), side: v.picklist(['B', 'A']), price: v.number(), size: v.number(),
  timestamp: v.pipe(v.nullable(time), v.description('when the order took its place in the queue; null = unknown')),
  timestamp_ms: v.nullable(count),
});

export const L4SnapshotSchema = v.object({
  coin: v.string(), timestamp: time, checkpoint_timestamp: time, diffs_applied: count, last_block_number: count,
  bids: v.pipe(v.array(RestingOrderSchema), v.description('best price first, in queue order')), asks: v.array(RestingOrderSchema),
  bid_count: count, ask_count: count, total_bid_size: v.number(), total_ask_size: v.number(),
  is_crossed: v.optional(v.pipe(v.literal(true), v.description('present only when the best bid is at or above the best ask'))),
});

export const L4DiffSchema = v.object({
  timestamp: time, block_number: count, seq: count, oid: count, user_address: v.string(), coin: v.string(), side: v.picklist(['B', 'A']),
  price: v.number(), diff_type: v.picklist(['new', 'update', 'remove']), new_size: v.nullable(v.number()),
  insert_before: v.pipe(v.nullable(count), v.description('a new order queued just before this oid; null = at the back')),
});

export type OrderBook = v.InferOutput<typeof OrderBookSchema>;
export type FullDepthBook = v.InferOutput<typeof FullDepthBookSchema>;
export type L2Diff = v.InferOutput<typeof L2DiffSchema>;
export type L4Snapshot = v.InferOutput<typeof L4SnapshotSchema>;
export type L4Diff = v.InferOutput<typeof L4DiffSchema>;
