/**
 * Order books over the archive. Native books are the venue's own snapshots (20 levels a side on
 * the perpx families). The order-level (L4) book at any instant is rebuilt from the newest
 * checkpoint at or before it plus the diffs after it; full-depth L2 is that book aggregated by
 * price, and L2 diffs are its levels after each block that changed them. Reads are bounded by the
 * checkpoint cadence, never by the archive: a book touches one checkpoint and the diffs since.
 */
import { AppError } from '../errors.ts';
import { isSymbolOf, type Family } from '../venues.ts';
import type { ArchiveDeps } from '../../ports/archive.ts';
import type { Row } from '../../ports/sql.ts';
import { newestRow, readWindow, readWindowJson, windowSource } from '../archive/read.ts';
import { coverageStart } from '../archive/coverage.ts';
import { L4Book, type BookDiff, type BookOrder, type BookSide, type CheckpointOrder, type Level } from '../book/l4-book.ts';
import { canonicalDecimal, difference, midpoint, sumDecimals } from '../book/decimal.ts';
import { EMPTY, page, startPage, type JsonRows, type WindowParams } from './queries.ts';
import { seriesSymbol } from './series.ts';
import { isoSql } from './shape.ts';
import { NATIVE_DEPTH_CAP, type FullDepthBook, type L2Diff, type L4Diff, type L4Snapshot, type OrderBook } from '../../../schemas/orderbook.ts';

/** A book is the newest snapshot or checkpoint at most a day before the instant asked for. */
const BOOK_LOOKBACK_MS = 86_400_000;
/** Families whose native book is capped at 20 levels a side. */
const CAPPED_FAMILIES: ReadonlySet<Family> = new Set(['perpx', 'spot', 'hip3', 'hip4']);

const iso = (ms: number) => new Date(ms).toISOString();

/** hip4 order books take the bare numeric side id as well as `#N`. */
export const bookSymbol = seriesSymbol;

export interface BookRequest { family: Family; symbol: string; at: number; depth?: number }
export interface BookHistoryRequest extends WindowParams { routeId: string; family: Family; symbol: string; depth?: number }

/** The top of a book: mid, spread and spread in basis points, when both sides have a level. */
function touch(bestBid: string | undefined, bestAsk: string | undefined): Pick<OrderBook, 'mid_price' | 'spread' | 'spread_bps'> {
  if (bestBid === undefined || bestAsk === undefined) return {};
  const mid = midpoint(bestBid, bestAsk);
  const spread = difference(bestAsk, bestBid);
  return { mid_price: mid, spread, spread_bps: ((Number(spread) / Number(mid)) * 10_000).toFixed(2) };
}

const wireLevel = (level: Level) => ({ px: level.price, sz: level.size, n: level.count });

function orderBook(symbol: string, ts: number, bids: readonly Level[], asks: readonly Level[], depth: number | undefined): OrderBook {
  return {
    symbol, coin: symbol, timestamp: iso(ts),
    bids: bids.slice(0, depth).map(wireLevel), asks: asks.slice(0, depth).map(wireLevel),
    ...touch(bids[0]?.price, asks[0]?.price),
  };
}

function checkNativeDepth(family: Family, depth: number | undefined): void {
  if (depth !== undefined && depth > NATIVE_DEPTH_CAP && CAPPED_FAMILIES.has(family)) {
    throw new AppError('invalid_parameter', `depth must be at most ${NATIVE_DEPTH_CAP} on ${family}: its native book has ${NATIVE_DEPTH_CAP} levels a side (full depth is the /l2 route).`, { param: 'depth' });
  }
}

function missing(what: string, dataset: 'l2_snapshots' | 'l4_checkpoints', req: BookRequest): AppError {
  const start = coverageStart(dataset, req.family);
  if (start !== undefined && req.at < start) {
    return new AppError('not_found', `The archive holds ${what} for ${req.family} from ${iso(start)}; ${iso(req.at)} is before that.`, { param: 'timestamp' });
  }
  return new AppError('not_found', `No ${what} for ${req.symbol} on ${req.family} in the day up to ${iso(req.at)}.`, { param: 'symbol' });
}

type StoredLevels = [string, string, number][];
const levelsOf = (stored: StoredLevels): Level[] => stored.map(([price, size, count]) => ({ price, size, count }));

/** The native snapshot at or before the instant. */
export async function nativeBook(deps: ArchiveDeps, req: BookRequest): Promise<OrderBook> {
  checkNativeDepth(req.family, req.depth);
  const row = isSymbolOf(req.family, req.symbol)
    ? await newestRow(deps, { dataset: 'l2_snapshots', family: req.family, symbol: req.symbol, from: req.at - BOOK_LOOKBACK_MS, to: req.at })
    : undefined;
  if (!row) throw missing('order books', 'l2_snapshots', req);
  const bids = levelsOf(JSON.parse(String(row.bids)) as StoredLevels);
  const asks = levelsOf(JSON.parse(String(row.asks)) as StoredLevels);
  return orderBook(req.symbol, Number(row.ts), bids, asks, req.depth);
}

/** Rows rendered by this module (not by DuckDB), joined the way a page of JSON rows is. */
function rendered<T>(rows: readonly T[], nextCursor: string | null, meta?: Record<string, unknown>): JsonRows<T> {
  return { json: rows.map((r) => JSON.stringify(r)).join(','), count: rows.length, nextCursor, ...(meta && { meta }) };
}

/** Native snapshots in a window, oldest first. */
export async function nativeBookHistory(deps: ArchiveDeps, req: BookHistoryRequest, now: number): Promise<JsonRows<OrderBook>> {
  checkNativeDepth(req.family, req.depth);
  const start = startPage('l2_snapshots', req, req.symbol, { depth: req.depth }, now);
  if ('done' in start) return start.done;
  const result = await readWindowJson(deps, {
    dataset: 'l2_snapshots', family: req.family, symbol: req.symbol, from: start.window[0], to: start.window[1],
    after: start.cursor?.position, limit: req.limit, projection: `{'ts': ts, 'bids': bids::JSON, 'asks': asks::JSON}`,
  });
  const rows = (JSON.parse(`[${result.json}]`) as { ts: number; bids: StoredLevels; asks: StoredLevels }[])
    .map((r) => orderBook(req.symbol, r.ts, levelsOf(r.bids), levelsOf(r.asks), req.depth));
  return rendered(rows, page(result, start.fingerprint, start.window).nextCursor);
}

interface Rebuilt { book: L4Book; checkpointTs: number; diffsApplied: number; lastBlock: number }

const parseSide = (stored: unknown) => JSON.parse(String(stored)) as CheckpointOrder[];

/**
 * The order-level book from a checkpoint row, moved forward by every diff after the checkpoint's
 * position up to `at` (and, when given, through block `throughBlock` only).
 */
async function rebuildFrom(deps: ArchiveDeps, family: Family, symbol: string, checkpoint: Row, at: number, throughBlock?: number): Promise<Rebuilt> {
  const book = L4Book.fromCheckpoint(parseSide(checkpoint.bids), parseSide(checkpoint.asks));
  const checkpointTs = Number(checkpoint.ts);
  let lastBlock = Number(checkpoint.block_number);
  const source = await windowSource(deps, { dataset: 'l4_diffs', family, symbol, from: checkpointTs, to: at });
  if (!source) return { book, checkpointTs, diffsApplied: 0, lastBlock };
  const diffs = await deps.sql.query({
    sql: `SELECT ts, block_number, oid, user_address, side, price, diff_type, new_size, insert_before FROM (${source.sql})
          WHERE (block_number > $b_block OR (block_number = $b_block AND seq > $b_seq))${throughBlock === undefined ? '' : ' AND block_number <= $b_through'}
          ORDER BY block_number, seq`,
    params: { ...source.params, b_block: lastBlock, b_seq: Number(checkpoint.seq), ...(throughBlock !== undefined && { b_through: throughBlock }) },
  });
  for (const diff of diffs) book.apply(diff as unknown as BookDiff);
  if (diffs.length > 0) lastBlock = Number(diffs[diffs.length - 1]!.block_number);
  return { book, checkpointTs, diffsApplied: diffs.length, lastBlock };
}

async function rebuild(deps: ArchiveDeps, req: BookRequest, throughBlock?: number): Promise<Rebuilt | undefined> {
  if (!isSymbolOf(req.family, req.symbol)) return undefined;
  const checkpoint = await newestRow(deps, { dataset: 'l4_checkpoints', family: req.family, symbol: req.symbol, from: req.at - BOOK_LOOKBACK_MS, to: req.at });
  return checkpoint && rebuildFrom(deps, req.family, req.symbol, checkpoint, req.at, throughBlock);
}

const sideTotal = (orders: readonly BookOrder[]) => Number(sumDecimals(orders.map((o) => o.size)));

function restingOrder(order: BookOrder) {
  return {
    oid: order.oid, user_address: order.user, side: order.side, price: Number(order.price), size: Number(order.size),
    timestamp: order.placedAt === null ? null : iso(order.placedAt), timestamp_ms: order.placedAt,
  };
}

function l4Snapshot(symbol: string, at: number, rebuilt: Rebuilt, depth: number | undefined): L4Snapshot {
  const { book } = rebuilt;
  const bids = book.side('B');
  const asks = book.side('A');
  return {
    coin: symbol, timestamp: iso(at), checkpoint_timestamp: iso(rebuilt.checkpointTs), diffs_applied: rebuilt.diffsApplied,
    last_block_number: rebuilt.lastBlock, bids: bids.slice(0, depth).map(restingOrder), asks: asks.slice(0, depth).map(restingOrder),
    bid_count: bids.length, ask_count: asks.length, total_bid_size: sideTotal(bids), total_ask_size: sideTotal(asks),
    ...(book.isCrossed() && { is_crossed: true as const }),
  };
}

function fullDepthBook(symbol: string, at: number, book: L4Book, depth: number | undefined): FullDepthBook {
  const bids = book.levels('B');
  const asks = book.levels('A');
  return {
    ...orderBook(symbol, at, bids, asks, depth),
    bid_levels: bids.length, ask_levels: asks.length,
    total_bid_size: Number(sumDecimals(bids.map((l) => l.size))), total_ask_size: Number(sumDecimals(asks.map((l) => l.size))),
  };
}

/** The order-level book at an instant: every resting order (or `depth` per side) in priority. */
export async function l4Book(deps: ArchiveDeps, req: BookRequest): Promise<L4Snapshot> {
  const rebuilt = await rebuild(deps, req);
  if (!rebuilt) throw missing('order-level books', 'l4_checkpoints', req);
  return l4Snapshot(req.symbol, req.at, rebuilt, req.depth);
}

/** Full-depth L2 at an instant: the order-level book aggregated by price. */
export async function l2Book(deps: ArchiveDeps, req: BookRequest): Promise<FullDepthBook> {
  const rebuilt = await rebuild(deps, req);
  if (!rebuilt) throw missing('order-level books', 'l4_checkpoints', req);
  return fullDepthBook(req.symbol, req.at, rebuilt.book, req.depth);
}

/** Checkpoints in a window, oldest first, each rendered by `render`. */
async function checkpointPage<T>(deps: ArchiveDeps, req: BookHistoryRequest, now: number, render: (ts: number, block: number, book: L4Book) => T): Promise<JsonRows<T>> {
  const start = startPage('l4_checkpoints', req, req.symbol, { depth: req.depth }, now);
  if ('done' in start) return start.done;
  const result = await readWindowJson(deps, {
    dataset: 'l4_checkpoints', family: req.family, symbol: req.symbol, from: start.window[0], to: start.window[1],
    after: start.cursor?.position, limit: req.limit, projection: `{'ts': ts, 'block_number': block_number, 'bids': bids::JSON, 'asks': asks::JSON}`,
  });
  const rows = (JSON.parse(`[${result.json}]`) as { ts: number; block_number: number; bids: CheckpointOrder[]; asks: CheckpointOrder[] }[])
    .map((r) => render(r.ts, r.block_number, L4Book.fromCheckpoint(r.bids, r.asks)));
  return rendered(rows, page(result, start.fingerprint, start.window).nextCursor);
}

export const l4History = (deps: ArchiveDeps, req: BookHistoryRequest, now: number): Promise<JsonRows<L4Snapshot>> =>
  checkpointPage(deps, req, now, (ts, block, book) => l4Snapshot(req.symbol, ts, { book, checkpointTs: ts, diffsApplied: 0, lastBlock: block }, req.depth));

export const l2History = (deps: ArchiveDeps, req: BookHistoryRequest, now: number): Promise<JsonRows<FullDepthBook>> =>
  checkpointPage(deps, req, now, (ts, _block, book) => fullDepthBook(req.symbol, ts, book, req.depth));

const L4_DIFF_PROJECTION = `{'timestamp': ${isoSql('ts')}, 'block_number': block_number, 'seq': seq, 'oid': oid, 'user_address': user_address,
  'coin': symbol, 'side': side, 'price': CAST(price AS DOUBLE), 'diff_type': diff_type, 'new_size': TRY_CAST(new_size AS DOUBLE), 'insert_before': insert_before}`;

/** Order-level diffs in a window, in the venue's order (block, then seq). */
export async function l4DiffsPage(deps: ArchiveDeps, req: BookHistoryRequest, now: number): Promise<JsonRows<L4Diff>> {
  const start = startPage('l4_diffs', req, req.symbol, {}, now);
  if ('done' in start) return start.done;
  const result = await readWindowJson(deps, {
    dataset: 'l4_diffs', family: req.family, symbol: req.symbol, from: start.window[0], to: start.window[1],
    after: start.cursor?.position, limit: req.limit, projection: L4_DIFF_PROJECTION,
  });
  return page(result, start.fingerprint, start.window);
}

interface DiffRow extends BookDiff { block_number: number }

/**
 * Full-depth L2 diffs: after each block, every price level the block changed, with its size and
 * order count (0 and 0 when it emptied). A level a block touched but left as it was is not a
 * change. A page never splits a block: it ends before the block that would overflow `limit` (so it
 * may hold fewer rows and still go on), unless that block alone is the page.
 */
export async function l2DiffsPage(deps: ArchiveDeps, req: BookHistoryRequest, now: number): Promise<JsonRows<L2Diff>> {
  const start = startPage('l4_diffs', req, req.symbol, {}, now);
  if ('done' in start) return start.done;
  const { fingerprint, window } = start;
  const position = start.cursor?.position as [number, number] | undefined;
  // The book just before the page, and where in (block, seq) order the page's diffs begin.
  let base: Rebuilt | undefined;
  let after: [number, number];
  if (position) {
    base = await rebuild(deps, { family: req.family, symbol: req.symbol, at: position[0] }, position[1]);
    after = [position[1], Number.MAX_SAFE_INTEGER];
  } else {
    base = await rebuild(deps, { family: req.family, symbol: req.symbol, at: window[0] - 1 });
    after = [-1, -1];
    if (!base) {
      const [checkpoint] = (await readWindow(deps, { dataset: 'l4_checkpoints', family: req.family, symbol: req.symbol, from: window[0], to: window[1], limit: 1 })).rows;
      if (checkpoint) {
        base = await rebuildFrom(deps, req.family, req.symbol, checkpoint, Number(checkpoint.ts));
        after = [Number(checkpoint.block_number), Number(checkpoint.seq)];
      }
    }
  }
  if (!base) return EMPTY;
  const source = await windowSource(deps, { dataset: 'l4_diffs', family: req.family, symbol: req.symbol, from: Math.max(window[0], base.checkpointTs), to: window[1] });
  if (!source) return EMPTY;
  // Diffs from blocks after the base; one more than a page's worth tells whether the window goes on.
  const read = (where: string, params: Record<string, number>, limit?: number) => deps.sql.query({
    sql: `SELECT ts, block_number, oid, user_address, side, price, diff_type, new_size, insert_before FROM (${source.sql})
          WHERE ${where} ORDER BY block_number, seq${limit === undefined ? '' : ' LIMIT $d_fetch'}`,
    params: { ...source.params, ...params, ...(limit !== undefined && { d_fetch: limit }) },
  }) as Promise<unknown> as Promise<DiffRow[]>;
  let diffs = await read('(block_number > $d_block OR (block_number = $d_block AND seq > $d_seq))', { d_block: after[0], d_seq: after[1] }, req.limit + 1);
  const more = diffs.length > req.limit;
  if (more) {
    const lastBlock = diffs[diffs.length - 1]!.block_number;
    const whole = diffs.filter((d) => d.block_number !== lastBlock);
    // One block larger than a page is served whole.
    diffs = whole.length > 0 ? whole : await read('block_number = $d_block', { d_block: lastBlock });
  }
  const rows: L2Diff[] = [];
  let last: [number, number] | undefined;
  for (let i = 0; i < diffs.length;) {
    const block = diffs[i]!.block_number;
    const before = new Map<string, Level & { side: BookSide }>();
    let blockTs = 0;
    for (; i < diffs.length && diffs[i]!.block_number === block; i++) {
      const diff = diffs[i]!;
      const held = base.book.order(diff.oid);
      // The levels the diff acts on: the held order's (an update or remove names it) and a new order's.
      const touched: [BookSide, string][] = held ? [[held.side, held.price]] : [];
      if (diff.diff_type === 'new') touched.push([diff.side, canonicalDecimal(diff.price)]);
      for (const [side, price] of touched) {
        if (!before.has(`${side}${price}`)) before.set(`${side}${price}`, { side, ...base.book.level(side, price) });
      }
      base.book.apply(diff);
      blockTs = Math.max(blockTs, diff.ts);
    }
    for (const level of before.values()) {
      const now = base.book.level(level.side, level.price);
      if (now.size === level.size && now.count === level.count) continue;
      rows.push({ timestamp: iso(blockTs), block_number: block, side: level.side, price: Number(level.price), size: Number(now.size), count: now.count });
    }
    last = [blockTs, block];
  }
  const nextCursor = more && last ? page({ json: '', count: 0, more, last }, fingerprint, window).nextCursor : null;
  return rendered(rows, nextCursor);
}
