/**
 * The order-level (L4) book replayed: the newest checkpoint at or before an instant, moved forward
 * by the diffs after its position, all of them or netted in SQL first (orderbook-net.ts).
 */
import { isSymbolOf, type Family } from '../venues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { windowSource } from '../archive/read.ts';
import { L4Book } from '../book/l4-book.ts';
import type { SequencedDiff } from '../book/level-walk.ts';
import { nettedDiffsAfter } from './orderbook-net.ts';
import { newestHead, withSides, type StoredCheckpoint } from './orderbook-checkpoints.ts';

export interface Rebuilt {
  book: L4Book;
  checkpointTs: number;
  diffsApplied: number;
  lastBlock: number;
  /** (block, seq) of the last diff in the book: the next diffs come after it. */
  position: [number, number];
}

/**
 * The order-level book from a checkpoint row, moved forward by every diff after the checkpoint's
 * position up to `at` (and, when given, through block `throughBlock` only).
 */
export async function rebuildFrom(
  deps: ArchiveDeps,
  family: Family,
  symbol: string,
  checkpoint: StoredCheckpoint,
  at: number,
  throughBlock?: number,
): Promise<Rebuilt> {
  const book = L4Book.fromCheckpoint(checkpoint.bids, checkpoint.asks);
  const rebuilt: Rebuilt = {
    book,
    checkpointTs: Number(checkpoint.ts),
    diffsApplied: 0,
    lastBlock: Number(checkpoint.block_number),
    position: [Number(checkpoint.block_number), Number(checkpoint.seq)],
  };
  const diffs = await diffsAfter(deps, family, symbol, rebuilt, at, throughBlock === undefined ? undefined : { block: throughBlock });
  applyAll(rebuilt, diffs);
  return rebuilt;
}

type DiffRow = SequencedDiff;

/** Moves a rebuilt book forward by diffs (in order). */
export function applyAll(rebuilt: Rebuilt, diffs: readonly DiffRow[]): void {
  for (const diff of diffs) rebuilt.book.apply(diff);
  const last = diffs[diffs.length - 1];
  if (last) {
    rebuilt.diffsApplied += diffs.length;
    rebuilt.lastBlock = last.block_number;
    rebuilt.position = [last.block_number, last.seq];
  }
}

/**
 * The diffs after a book's position with `ts` up to `to`, in (block, seq) order: all of them, or
 * through a block, or a page of `limit` (one more is read to tell whether the window goes on).
 */
export async function diffsAfter(
  deps: ArchiveDeps,
  family: Family,
  symbol: string,
  from: { checkpointTs: number; position: [number, number] },
  to: number,
  bound?: { block: number } | { limit: number },
): Promise<DiffRow[]> {
  const source = await windowSource(deps, { dataset: 'l4_diffs', family, symbol, from: from.checkpointTs, to });
  if (!source) return [];
  const through = bound && 'block' in bound ? ' AND block_number <= $d_through' : '';
  const limit = bound && 'limit' in bound ? ' LIMIT $d_limit' : '';
  return deps.sql.query({
    sql: `SELECT ts, block_number, seq, oid, user_address, side, price, diff_type, new_size, insert_before FROM (${source.sql})
          WHERE (block_number > $d_block OR (block_number = $d_block AND seq > $d_seq))${through} ORDER BY block_number, seq${limit}`,
    params: {
      ...source.params,
      d_block: from.position[0],
      d_seq: from.position[1],
      ...(bound && 'block' in bound && { d_through: bound.block }),
      ...(bound && 'limit' in bound && { d_limit: bound.limit }),
    },
  }) as Promise<unknown> as Promise<DiffRow[]>;
}

export async function rebuild(deps: ArchiveDeps, req: { family: Family; symbol: string; at: number }, throughBlock?: number): Promise<Rebuilt | undefined> {
  if (!isSymbolOf(req.family, req.symbol)) return undefined;
  const head = await newestHead(deps, req.family, req.symbol, req.at);
  if (!head) return undefined;
  const checkpoint = await withSides(deps, req.family, req.symbol, head);
  return throughBlock === undefined
    ? rebuildNetted(deps, req.family, req.symbol, checkpoint, req.at)
    : rebuildFrom(deps, req.family, req.symbol, checkpoint, req.at, throughBlock);
}

/**
 * The book at `at` from the diffs netted in SQL (orderbook-net.ts), or from all of them when the
 * window cannot be netted or an order it left out was resting in the checkpoint.
 */
export async function rebuildNetted(deps: ArchiveDeps, family: Family, symbol: string, checkpoint: StoredCheckpoint, at: number): Promise<Rebuilt> {
  const book = L4Book.fromCheckpoint(checkpoint.bids, checkpoint.asks);
  const position: [number, number] = [Number(checkpoint.block_number), Number(checkpoint.seq)];
  const rebuilt: Rebuilt = { book, checkpointTs: Number(checkpoint.ts), diffsApplied: 0, lastBlock: position[0], position };
  const net = await nettedDiffsAfter(deps, family, symbol, rebuilt, at);
  if (!net || net.dropped.some((oid) => book.order(oid) !== undefined)) {
    applyAll(rebuilt, await diffsAfter(deps, family, symbol, rebuilt, at));
    return rebuilt;
  }
  for (const diff of net.diffs) book.apply(diff);
  if (net.last) Object.assign(rebuilt, { diffsApplied: net.count, lastBlock: net.last[0], position: net.last });
  return rebuilt;
}
