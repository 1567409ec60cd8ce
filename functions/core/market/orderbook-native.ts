/**
 * Native book snapshots (the venue's own L2, up to 20 levels a side on the perpx families): one at
 * an instant, their history sampled at a granularity, and altx's tick history.
 */
import { AppError } from '../errors.ts';
import { isSymbolOf, type Family } from '../venues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { newestRow } from '../archive/read-pages.ts';
import type { Level } from '../book/l4-book.ts';
import { EMPTY, page, startPage, windowPage, type JsonRows, type Paging } from './queries.ts';
import { NATIVE_DEPTH_CAP, TICK_DELTAS, type OrderBook, type TickHistory } from '#schemas/orderbook.ts';
import {
  BOOK_LOOKBACK_MS,
  type BookRequest,
  CAPPED_FAMILIES,
  GRANULAR_FAMILIES,
  type NativeHistoryRequest,
  firstCheckpoint,
  missing,
  orderBook,
  rendered,
} from './orderbook.ts';
import { applyAll, diffsAfter, rebuild, rebuildFrom } from './orderbook-replay.ts';
import { type BookPosition, levelChanges, nextCursorOf } from './orderbook-diffs.ts';

function checkNativeDepth(family: Family, depth: number | undefined): void {
  if (depth !== undefined && depth > NATIVE_DEPTH_CAP && CAPPED_FAMILIES.has(family)) {
    throw new AppError(
      'invalid_parameter',
      `depth must be at most ${NATIVE_DEPTH_CAP} on ${family}: its native book has ${NATIVE_DEPTH_CAP} levels a side (full depth is the /l2 route).`,
      { param: 'depth' },
    );
  }
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

/**
 * Native book history: the snapshots in a window, oldest first; on altx and altx-rh with a finer
 * `granularity`, the book rebuilt at every 30, 10 or 1 seconds, or (`tick`) the book at `start` and
 * the level deltas after it.
 */
export async function nativeBookHistory(
  deps: ArchiveDeps,
  req: NativeHistoryRequest,
  now: number,
): Promise<{ rows: JsonRows<OrderBook> } | { tick: TickHistory; nextCursor: string | null }> {
  checkNativeDepth(req.family, req.depth);
  const granularity = GRANULAR_FAMILIES.has(req.family) ? req.granularity : 'checkpoint';
  const dataset = granularity === 'checkpoint' ? 'l2_snapshots' : 'l4_diffs';
  const paging = startPage(dataset, req, req.symbol, { depth: req.depth, granularity }, now);
  if ('done' in paging) {
    if (granularity === 'tick') throw new AppError('not_found', `No order-level data for ${req.symbol} on ${req.family} in this window.`, { param: 'start' });
    return { rows: paging.done };
  }
  if (granularity === 'tick') return tickHistory(deps, req, paging);
  if (granularity !== 'checkpoint') return { rows: await sampledBooks(deps, req, SAMPLE_STEPS[granularity], paging) };
  const result = await windowPage(
    deps,
    {
      dataset: 'l2_snapshots',
      family: req.family,
      symbol: req.symbol,
      limit: req.limit,
      projection: `{'ts': ts, 'bids': bids::JSON, 'asks': asks::JSON}`,
    },
    paging,
  );
  const rows = (JSON.parse(`[${result.json}]`) as { ts: number; bids: StoredLevels; asks: StoredLevels }[]).map((r) =>
    orderBook(req.symbol, r.ts, levelsOf(r.bids), levelsOf(r.asks), req.depth),
  );
  return { rows: rendered(rows, page(result, paging).nextCursor) };
}

const SAMPLE_STEPS = { '30s': 30_000, '10s': 10_000, '1s': 1_000 } as const;

/** The book at every `step` instant of the window (from the first checkpoint on), `limit` per page. */
async function sampledBooks(deps: ArchiveDeps, req: NativeHistoryRequest, step: number, paging: Paging): Promise<JsonRows<OrderBook>> {
  const { window, after } = paging;
  // After a cursor: the first instant of the step after it (the last one served, or any a client names).
  let first = after ? Math.floor(Number(after[0]) / step) * step + step : Math.ceil(window[0] / step) * step;
  let rebuilt = await rebuild(deps, { family: req.family, symbol: req.symbol, at: first });
  if (!rebuilt) {
    const checkpoint = await firstCheckpoint(deps, req.family, req.symbol, first, window[1]);
    if (!checkpoint) return EMPTY;
    first = Math.ceil(Number(checkpoint.ts) / step) * step;
    rebuilt = await rebuildFrom(deps, req.family, req.symbol, checkpoint, first);
  }
  const last = Math.min(window[1], first + (req.limit - 1) * step);
  if (first > last) return EMPTY;
  const diffs = await diffsAfter(deps, req.family, req.symbol, rebuilt, last);
  const rows: OrderBook[] = [];
  let next = 0;
  for (let at = first; at <= last; at += step) {
    const upTo = next;
    while (next < diffs.length && diffs[next]!.ts <= at) next++;
    applyAll(rebuilt, diffs.slice(upTo, next));
    rows.push(orderBook(req.symbol, at, rebuilt.book.levels('B', req.depth), rebuilt.book.levels('A', req.depth), undefined));
  }
  return rendered(rows, last + step <= window[1] ? paging.cursorAt([last]) : null);
}

/**
 * `tick`: the book as the window (or the cursor) begins, and up to 1000 level deltas after it. The
 * route's cursor is an instant (`<ts_ms>`, the last delta's): resuming after it is starting just
 * after it, as the real client's tick walk does.
 */
async function tickHistory(deps: ArchiveDeps, req: NativeHistoryRequest, paging: Paging): Promise<{ tick: TickHistory; nextCursor: string | null }> {
  const position = paging.after as BookPosition | undefined;
  // With a depth, the deltas are those of the truncated book the checkpoint shows, so they replay into it.
  const walked = await levelChanges(deps, req, paging, TICK_DELTAS, { depth: req.depth });
  if (!walked?.startBook) throw new AppError('not_found', `No order-level data for ${req.symbol} on ${req.family} in this window.`, { param: 'start' });
  return {
    tick: {
      checkpoint: orderBook(req.symbol, position ? position[0] : paging.window[0], walked.startBook.bids, walked.startBook.asks, req.depth),
      deltas: walked.changes.map((c) => ({
        timestamp: c.ts,
        side: c.side === 'B' ? 'bid' : 'ask',
        price: Number(c.price),
        size: Number(c.size),
        sequence: c.block * 100_000 + c.seq,
      })),
    },
    nextCursor: nextCursorOf(walked, paging),
  };
}
