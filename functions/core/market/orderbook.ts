/**
 * Order books over the archive. Native books are the venue's own snapshots (20 levels a side on
 * the perpx families). The order-level (L4) book at any instant is rebuilt from the newest
 * checkpoint at or before it plus the diffs after it; full-depth L2 is that book aggregated by
 * price, and L2 diffs are its levels after each block that changed them. Reads are bounded by the
 * checkpoint cadence, never by the archive: a book touches one checkpoint and the diffs since
 * (the replay itself is orderbook-replay.ts).
 */
import { AppError } from '../errors.ts';
import { CAPPED_BOOK_FAMILIES, isSymbolOf, type Family } from '../venues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { coverageStart } from '../archive/coverage.ts';
import { L4Book, type BookOrder, type CheckpointOrder, type Level } from '../book/l4-book.ts';
import { l2Levels, l4BookJson, type CheckpointHead } from './orderbook-sql.ts';
import { BOOK_LOOKBACK_MS, firstCheckpoint, newestHead, withSides } from './orderbook-checkpoints.ts';
import { rebuild, rebuildNetted, type Rebuilt } from './orderbook-replay.ts';

export { BOOK_LOOKBACK_MS, firstCheckpoint };
import { difference, midpoint, sumDecimals } from '../book/decimal.ts';
import { page, startPage, windowPage, type JsonRows, type WindowParams } from './queries.ts';
import { seriesSymbol } from './series.ts';
import { GRANULARITIES, L3_DEPTH_CAP, type FullDepthBook, type Granularity, type L3Snapshot, type L4Snapshot, type OrderBook } from '#schemas/orderbook.ts';

/** Families whose native book is capped at 20 levels a side. */
export const CAPPED_FAMILIES: ReadonlySet<Family> = new Set(CAPPED_BOOK_FAMILIES);

export const iso = (ms: number) => new Date(ms).toISOString();

/** hip4 order books take the bare numeric side id as well as `#N`. */
export const bookSymbol = seriesSymbol;

export interface BookRequest {
  family: Family;
  symbol: string;
  at: number;
  depth?: number;
}

export interface BookHistoryRequest extends WindowParams {
  routeId: string;
  family: Family;
  symbol: string;
  depth?: number;
}

export interface NativeHistoryRequest extends BookHistoryRequest {
  granularity: Granularity;
}

export interface L3Request extends BookRequest {
  account?: string;
}

export interface L3HistoryRequest extends BookHistoryRequest {
  account?: string;
}

/** Families whose native history has resolutions finer than the snapshots (each priced by its granularity). */
export const GRANULAR_FAMILIES: ReadonlySet<Family> = new Set(['altx', 'altx-rh']);

/** The credit multiplier of a native history request (1 where `granularity` is ignored). */
export const granularityMultiplier = (family: Family, granularity: Granularity) => (GRANULAR_FAMILIES.has(family) ? GRANULARITIES[granularity] : 1);

/** The top of a book: mid, spread and spread in basis points, when both sides have a level. */
function touch(bestBid: string | undefined, bestAsk: string | undefined): Pick<OrderBook, 'mid_price' | 'spread' | 'spread_bps'> {
  if (bestBid === undefined || bestAsk === undefined) return {};
  const mid = midpoint(bestBid, bestAsk);
  const spread = difference(bestAsk, bestBid);
  return { mid_price: mid, spread, spread_bps: ((Number(spread) / Number(mid)) * 10_000).toFixed(2) };
}

const wireLevel = (level: Level) => ({ px: level.price, sz: level.size, n: level.count });

export function orderBook(symbol: string, ts: number, bids: readonly Level[], asks: readonly Level[], depth: number | undefined): OrderBook {
  return {
    symbol,
    coin: symbol,
    timestamp: iso(ts),
    bids: bids.slice(0, depth).map(wireLevel),
    asks: asks.slice(0, depth).map(wireLevel),
    ...touch(bids[0]?.price, asks[0]?.price),
  };
}

export function missing(what: string, dataset: 'l2_snapshots' | 'l4_checkpoints', req: BookRequest): AppError {
  const start = coverageStart(dataset, req.family);
  if (start !== undefined && req.at < start) {
    return new AppError('not_found', `The archive holds ${what} for ${req.family} from ${iso(start)}; ${iso(req.at)} is before that.`, { param: 'timestamp' });
  }
  return new AppError('not_found', `No ${what} for ${req.symbol} on ${req.family} in the day up to ${iso(req.at)}.`, { param: 'symbol' });
}

/** Rows rendered by this module (not by DuckDB), joined the way a page of JSON rows is. */
export function rendered<T>(rows: readonly T[], nextCursor: string | null, meta?: Record<string, unknown>): JsonRows<T> {
  return { json: rows.map((r) => JSON.stringify(r)).join(','), count: rows.length, nextCursor, ...(meta && { meta }) };
}

const sideTotal = (orders: readonly BookOrder[]) => Number(sumDecimals(orders.map((o) => o.size)));

function restingOrder(order: BookOrder) {
  return {
    oid: order.oid,
    user_address: order.user,
    side: order.side,
    price: Number(order.price),
    size: Number(order.size),
    timestamp: order.placedAt === null ? null : iso(order.placedAt),
    timestamp_ms: order.placedAt,
  };
}

function l4Snapshot(symbol: string, at: number, rebuilt: Rebuilt, depth: number | undefined): L4Snapshot {
  const { book } = rebuilt;
  const bids = book.side('B');
  const asks = book.side('A');
  return {
    coin: symbol,
    timestamp: iso(at),
    checkpoint_timestamp: iso(rebuilt.checkpointTs),
    diffs_applied: rebuilt.diffsApplied,
    last_block_number: rebuilt.lastBlock,
    bids: bids.slice(0, depth).map(restingOrder),
    asks: asks.slice(0, depth).map(restingOrder),
    bid_count: bids.length,
    ask_count: asks.length,
    total_bid_size: sideTotal(bids),
    total_ask_size: sideTotal(asks),
    ...(book.isCrossed() && { is_crossed: true as const }),
  };
}

function fullDepthBook(symbol: string, at: number, book: L4Book, depth: number | undefined): FullDepthBook {
  return {
    ...orderBook(symbol, at, book.levels('B', depth), book.levels('A', depth), undefined),
    bid_levels: book.levelCount('B'),
    ask_levels: book.levelCount('A'),
    total_bid_size: Number(book.total('B')),
    total_ask_size: Number(book.total('A')),
  };
}

/** The newest checkpoint's place for a book at an instant, or the answer that there is none. */
async function headOf(deps: ArchiveDeps, req: BookRequest): Promise<CheckpointHead> {
  const head = isSymbolOf(req.family, req.symbol) ? await newestHead(deps, req.family, req.symbol, req.at) : undefined;
  if (!head) throw missing('order-level books', 'l4_checkpoints', req);
  return head;
}

/** The book replayed here from the checkpoint's JSON sides (not yet columnar, or a window SQL cannot net). */
const replayed = async (deps: ArchiveDeps, req: BookRequest, head: CheckpointHead) =>
  await rebuildNetted(deps, req.family, req.symbol, await withSides(deps, req.family, req.symbol, head), req.at);

/**
 * The order-level book at an instant as JSON text: every resting order (or `depth` per side) in
 * priority, shaped in SQL from the checkpoint's order rows (orderbook-sql.ts), else replayed here.
 */
export async function l4BookText(deps: ArchiveDeps, req: BookRequest): Promise<string> {
  const head = await headOf(deps, req);
  const shaped = await l4BookJson(deps, req.family, head, { symbol: req.symbol, at: req.at, depth: req.depth });
  return shaped ?? JSON.stringify(l4Snapshot(req.symbol, req.at, await replayed(deps, req, head), req.depth));
}

/** The order-level book at an instant, as an object. */
export const l4Book = async (deps: ArchiveDeps, req: BookRequest): Promise<L4Snapshot> => JSON.parse(await l4BookText(deps, req)) as L4Snapshot;

/** Full-depth L2 at an instant as JSON text: the order-level book aggregated by price (in SQL where it can be). */
export async function l2BookText(deps: ArchiveDeps, req: BookRequest): Promise<string> {
  const head = await headOf(deps, req);
  const shaped = await l2Levels(deps, req.family, head, { symbol: req.symbol, at: req.at, depth: req.depth });
  if (!shaped) return JSON.stringify(fullDepthBook(req.symbol, req.at, (await replayed(deps, req, head)).book, req.depth));
  const { bids, asks, best_bid, best_ask, ...counts } = shaped;
  const top = JSON.stringify({ symbol: req.symbol, coin: req.symbol, timestamp: iso(req.at) });
  const rest = JSON.stringify({ ...touch(best_bid ?? undefined, best_ask ?? undefined), ...counts });
  return `${top.slice(0, -1)},"bids":${bids},"asks":${asks},${rest.slice(1)}`;
}

/** Full-depth L2 at an instant, as an object. */
export const l2Book = async (deps: ArchiveDeps, req: BookRequest): Promise<FullDepthBook> => JSON.parse(await l2BookText(deps, req)) as FullDepthBook;

/** Checkpoints in a window, oldest first, each rendered by `render`. */
async function checkpointPage<T>(
  deps: ArchiveDeps,
  req: BookHistoryRequest,
  now: number,
  render: (ts: number, block: number, book: L4Book) => T,
  filters: Record<string, unknown> = { depth: req.depth },
): Promise<JsonRows<T>> {
  const paging = startPage('l4_checkpoints', req, req.symbol, filters, now);
  if ('done' in paging) return paging.done;
  const result = await windowPage(
    deps,
    {
      dataset: 'l4_checkpoints',
      family: req.family,
      symbol: req.symbol,
      limit: req.limit,
      projection: `{'ts': ts, 'block_number': block_number, 'bids': bids::JSON, 'asks': asks::JSON}`,
    },
    paging,
  );
  const rows = (JSON.parse(`[${result.json}]`) as { ts: number; block_number: number; bids: CheckpointOrder[]; asks: CheckpointOrder[] }[]).map((r) =>
    render(r.ts, r.block_number, L4Book.fromCheckpoint(r.bids, r.asks)),
  );
  return rendered(rows, page(result, paging).nextCursor);
}

export const l4History = (deps: ArchiveDeps, req: BookHistoryRequest, now: number): Promise<JsonRows<L4Snapshot>> =>
  checkpointPage(deps, req, now, (ts, block, book) =>
    l4Snapshot(req.symbol, ts, { book, checkpointTs: ts, diffsApplied: 0, lastBlock: block, position: [block, -1] }, req.depth),
  );

export const l2History = (deps: ArchiveDeps, req: BookHistoryRequest, now: number): Promise<JsonRows<FullDepthBook>> =>
  checkpointPage(deps, req, now, (ts, _block, book) => fullDepthBook(req.symbol, ts, book, req.depth));

function l3Snapshot(symbol: string, at: number, book: L4Book, depth: number | undefined, account: string | undefined): L3Snapshot {
  const cap = Math.min(L3_DEPTH_CAP, Math.max(1, depth ?? L3_DEPTH_CAP));
  const mine = (o: BookOrder) => account === undefined || o.user === account;
  const bids = book.side('B').filter(mine);
  const asks = book.side('A').filter(mine);
  const l3 = (o: BookOrder) => ({
    order_index: o.oid,
    owner_account_index: Number(o.user),
    side: o.side === 'B' ? ('bid' as const) : ('ask' as const),
    price: Number(o.price),
    remaining_size: Number(o.size),
    original_size: Number(o.origSize),
  });
  const top = touch(book.best('B'), book.best('A'));
  return {
    coin: symbol,
    timestamp: iso(at),
    orders: [...bids.slice(0, cap), ...asks.slice(0, cap)].map(l3),
    bid_count: bids.length,
    ask_count: asks.length,
    total_bid_size: sideTotal(bids),
    total_ask_size: sideTotal(asks),
    mid_price: top.mid_price ?? null,
    spread: top.spread ?? null,
    spread_bps: top.spread_bps ?? null,
    truncated: bids.length > cap || asks.length > cap,
  };
}

/** altx L3: the order-level book at an instant, at most 250 orders a side, optionally one account's. */
export async function l3Book(deps: ArchiveDeps, req: L3Request): Promise<L3Snapshot> {
  const rebuilt = await rebuild(deps, req);
  if (!rebuilt) throw missing('order-level books', 'l4_checkpoints', req);
  return l3Snapshot(req.symbol, req.at, rebuilt.book, req.depth, req.account);
}

/** altx L3 at each checkpoint of a window (`limit` clamped to 1..1000). */
export const l3History = (deps: ArchiveDeps, req: L3HistoryRequest, now: number): Promise<JsonRows<L3Snapshot>> =>
  checkpointPage(
    deps,
    { ...req, limit: Math.min(1000, Math.max(1, req.limit)) },
    now,
    (ts, _block, book) => l3Snapshot(req.symbol, ts, book, undefined, req.account),
    { account: req.account },
  );
