/**
 * Parameters and response shapes of the order-book routes (reference §2 and §3: OrderBook,
 * FullDepthL2, L2Diff, L4Snapshot, L4Diff). Native books and full-depth L2 levels carry decimal
 * strings; order-level rows and L2 diffs carry JSON numbers, as the real client reads them.
 */
import * as v from 'valibot';
import { cursorParam, enumParam, epochMsParam, integerParam, positionCursorParam, stringParam } from './params.ts';
import { NATIVE_BOOK_LEVELS } from './venues.ts';

const time = v.pipe(v.string(), v.description('RFC 3339 UTC'));
const decimal = v.pipe(v.string(), v.description('decimal string'));
const count = v.pipe(v.number(), v.integer());

const instant = { timestamp: epochMsParam('The instant, epoch ms (default now)') };
const window = {
  start: epochMsParam('Window start, epoch ms (inclusive; default 24 hours before now)'),
  end: epochMsParam('Window end, epoch ms (default now)'),
};
const cursor = { cursor: cursorParam({ description: 'meta.next_cursor of the previous page, passed unchanged' }) };
/** The real service's transparent cursors (reference §4.3): books by their time, L2 diffs by block. */
const bookCursor = { cursor: positionCursorParam('the books') };
const historyLimit = { limit: integerParam({ min: 1, max: 1000, default: 100, description: 'Books per page' }) };

/** The native book is capped at 20 levels a side on the perpx families; altx books have every served level. */
export const NATIVE_DEPTH_CAP = NATIVE_BOOK_LEVELS;
const nativeDepth = {
  depth: integerParam({
    min: 1,
    max: 10_000,
    description: `Levels per side, best first (at most ${NATIVE_DEPTH_CAP} on perpx, spot, hip3 and hip4; default all the snapshot has)`,
  }),
};
const fullDepth = { depth: integerParam({ min: 1, max: 100_000, description: 'Levels per side, best first (default every level)' }) };
const orderDepth = { depth: integerParam({ min: 1, max: 100_000, description: 'Resting orders per side, in priority (default every order)' }) };

export const BookQuery = { ...instant, ...nativeDepth };
/** altx and altx-rh history resolutions, with their credit multipliers (reference §7); the perpx families ignore it. */
export const GRANULARITIES = { checkpoint: 1, '30s': 2, '10s': 3, '1s': 10, tick: 20 } as const;
export type Granularity = keyof typeof GRANULARITIES;
/** At most this many deltas in one tick answer. */
export const TICK_DELTAS = 1_000;

export const BookHistoryQuery = {
  ...window,
  ...historyLimit,
  ...nativeDepth,
  // tick: the instant of the last delta served; the deltas after it.
  cursor: positionCursorParam('the books (tick: the deltas)'),
  granularity: enumParam(Object.keys(GRANULARITIES) as [Granularity, ...Granularity[]], {
    default: 'checkpoint',
    description:
      'altx, altx-rh: `checkpoint` the native snapshots (about a minute apart); `30s`, `10s`, `1s` the book at every such instant; `tick` the book at `start` and up to 1000 level deltas after it. Ignored on the perpx families',
  }),
};

/** L3 (altx only): `depth` and `limit` are clamped, not refused. */
export const L3_DEPTH_CAP = 250;
const account = { account: stringParam({ description: 'Only orders of this account number', pattern: /^\d{1,20}$/ }) };
export const L3Query = {
  ...instant,
  ...account,
  depth: integerParam({ min: 0, max: 1_000_000, description: `Orders per side, clamped to 1..${L3_DEPTH_CAP} (default ${L3_DEPTH_CAP})` }),
};
export const L3HistoryQuery = {
  ...window,
  ...account,
  ...bookCursor,
  limit: integerParam({ min: 0, max: 1_000_000, default: 100, description: 'Books per page, clamped to 1..1000' }),
};
export const FullDepthQuery = { ...instant, ...fullDepth };
export const FullDepthHistoryQuery = { ...window, ...historyLimit, ...bookCursor, ...fullDepth };
export const L4Query = { ...instant, ...orderDepth };
export const L4HistoryQuery = { ...window, ...historyLimit, ...bookCursor, ...orderDepth };
export const L2DiffsQuery = { ...window, ...historyLimit, cursor: positionCursorParam('the blocks', { id: 'block_number' }) };
export const L4DiffsQuery = { ...window, limit: integerParam({ min: 1, max: 10_000, default: 1000, description: 'Diffs per page' }), ...cursor };

const LevelSchema = v.object({ px: decimal, sz: decimal, n: v.pipe(count, v.description('orders at this price')) });

const bookMembers = {
  symbol: v.string(),
  coin: v.pipe(v.string(), v.description('deprecated alias of symbol')),
  timestamp: time,
  bids: v.pipe(v.array(LevelSchema), v.description('best first')),
  asks: v.pipe(v.array(LevelSchema), v.description('best first')),
  mid_price: v.optional(decimal),
  spread: v.optional(decimal),
  spread_bps: v.optional(v.pipe(v.string(), v.description('basis points, 2 decimals'))),
};

/** `mid_price`, `spread` and `spread_bps` are absent when a side is empty. */
export const OrderBookSchema = v.object(bookMembers);

/** Every level of the order-level book aggregated by price; the counts and totals are before `depth` truncation. */
export const FullDepthBookSchema = v.object({
  ...bookMembers,
  bid_levels: count,
  ask_levels: count,
  total_bid_size: v.number(),
  total_ask_size: v.number(),
});

export const L2DiffSchema = v.object({
  timestamp: time,
  block_number: count,
  side: v.picklist(['B', 'A']),
  price: v.number(),
  size: v.pipe(v.number(), v.description("the level's size after the block; 0 = the level is gone")),
  count: v.pipe(count, v.description('orders at the level after the block')),
});

const RestingOrderSchema = v.object({
  oid: count,
  user_address: v.string(),
  side: v.picklist(['B', 'A']),
  price: v.number(),
  size: v.number(),
  timestamp: v.pipe(v.nullable(time), v.description('when the order took its place in the queue; null = unknown')),
  timestamp_ms: v.nullable(count),
});

export const L4SnapshotSchema = v.object({
  coin: v.string(),
  timestamp: time,
  checkpoint_timestamp: time,
  diffs_applied: count,
  last_block_number: count,
  bids: v.pipe(v.array(RestingOrderSchema), v.description('best price first, in queue order')),
  asks: v.array(RestingOrderSchema),
  bid_count: count,
  ask_count: count,
  total_bid_size: v.number(),
  total_ask_size: v.number(),
  is_crossed: v.optional(v.pipe(v.literal(true), v.description('present only when the best bid is at or above the best ask'))),
});

export const L4DiffSchema = v.object({
  timestamp: time,
  block_number: count,
  seq: count,
  oid: count,
  user_address: v.string(),
  coin: v.string(),
  side: v.picklist(['B', 'A']),
  price: v.number(),
  diff_type: v.picklist(['new', 'update', 'remove']),
  new_size: v.nullable(v.number()),
  insert_before: v.pipe(v.nullable(count), v.description('a new order queued just before this oid; null = at the back')),
});

/** `granularity=tick`: the book at the window's start, then level deltas (size 0 removes the level). */
export const TickHistorySchema = v.object({
  checkpoint: OrderBookSchema,
  deltas: v.array(
    v.object({
      timestamp: v.pipe(count, v.description('epoch ms')),
      side: v.picklist(['bid', 'ask']),
      price: v.number(),
      size: v.pipe(v.number(), v.description("the level's size after the change; 0 removes it")),
      sequence: v.pipe(count, v.description('increasing')),
    }),
  ),
});

const L3OrderSchema = v.object({
  order_index: count,
  owner_account_index: count,
  side: v.picklist(['bid', 'ask']),
  price: v.number(),
  remaining_size: v.number(),
  original_size: v.number(),
});

/** altx order-level book: bids then asks, best first, in queue order; counts and totals before truncation. */
export const L3SnapshotSchema = v.object({
  coin: v.string(),
  timestamp: time,
  orders: v.array(L3OrderSchema),
  bid_count: count,
  ask_count: count,
  total_bid_size: v.number(),
  total_ask_size: v.number(),
  mid_price: v.nullable(decimal),
  spread: v.nullable(decimal),
  spread_bps: v.nullable(v.string()),
  truncated: v.pipe(v.boolean(), v.description(`true when a side had more than depth (at most ${L3_DEPTH_CAP}) orders`)),
});

export type OrderBook = v.InferOutput<typeof OrderBookSchema>;
export type TickHistory = v.InferOutput<typeof TickHistorySchema>;
export type L3Snapshot = v.InferOutput<typeof L3SnapshotSchema>;
export type FullDepthBook = v.InferOutput<typeof FullDepthBookSchema>;
export type L2Diff = v.InferOutput<typeof L2DiffSchema>;
export type L4Snapshot = v.InferOutput<typeof L4SnapshotSchema>;
export type L4Diff = v.InferOutput<typeof L4DiffSchema>;
