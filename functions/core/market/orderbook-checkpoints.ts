/**
 * Reading L4 checkpoints: the newest one's place for a book at an instant, its JSON sides when the
 * book is replayed in JavaScript, the oldest of a window. The columnar order rows are read in
 * orderbook-sql.ts.
 */
import type { Family } from '../venues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { windowSource } from '../archive/read.ts';
import { readWindowJson } from '../archive/read-pages.ts';
import type { CheckpointOrder } from '../book/l4-book.ts';
import type { CheckpointHead } from './orderbook-sql.ts';

/** A book is the newest snapshot or checkpoint at most a day before the instant asked for. */
export const BOOK_LOOKBACK_MS = 86_400_000;

/** A checkpoint row with its sides parsed. */
export interface StoredCheckpoint {
  ts: number;
  block_number: number;
  seq: number;
  bids: CheckpointOrder[];
  asks: CheckpointOrder[];
}

const CHECKPOINT_PROJECTION = `{'ts': ts, 'block_number': block_number, 'seq': seq, 'bids': bids::JSON, 'asks': asks::JSON}`;

/**
 * The newest checkpoint at or before `at`: its time (the `ts` column only), then its place (no
 * sides: a day of a deep book's checkpoints is hundreds of megabytes of order lists).
 */
export async function newestHead(deps: ArchiveDeps, family: Family, symbol: string, at: number): Promise<CheckpointHead | undefined> {
  const window = { dataset: 'l4_checkpoints' as const, family, symbol };
  const recent = await windowSource(deps, { ...window, from: at - BOOK_LOOKBACK_MS, to: at });
  const [newest] = recent ? await deps.sql.query({ sql: `SELECT max(ts) AS ts FROM (${recent.sql})`, params: recent.params }) : [];
  if (newest?.ts === null || newest?.ts === undefined) return undefined;
  const ts = Number(newest.ts);
  const source = await windowSource(deps, { ...window, from: ts, to: ts });
  const [row] = source ? await deps.sql.query({ sql: `SELECT ts, block_number, seq FROM (${source.sql}) LIMIT 1`, params: source.params }) : [];
  return row && { ts: Number(row.ts), block_number: Number(row.block_number), seq: Number(row.seq) };
}

/** A checkpoint's JSON sides, for a book replayed in JavaScript; only that row's group is decompressed. */
export async function withSides(deps: ArchiveDeps, family: Family, symbol: string, head: CheckpointHead): Promise<StoredCheckpoint> {
  const source = await windowSource(deps, { dataset: 'l4_checkpoints', family, symbol, from: head.ts, to: head.ts });
  // The sides come back as the stored text and are parsed here: cheaper than DuckDB re-encoding megabytes of JSON.
  const [row] = source ? await deps.sql.query({ sql: `SELECT bids, asks FROM (${source.sql}) LIMIT 1`, params: source.params }) : [];
  return {
    ...head,
    bids: row ? (JSON.parse(String(row.bids)) as CheckpointOrder[]) : [],
    asks: row ? (JSON.parse(String(row.asks)) as CheckpointOrder[]) : [],
  };
}

/** The oldest checkpoint in [from, to] (a window that begins before the first one starts there). */
export async function firstCheckpoint(deps: ArchiveDeps, family: Family, symbol: string, from: number, to: number): Promise<StoredCheckpoint | undefined> {
  const row = await readWindowJson(deps, { dataset: 'l4_checkpoints', family, symbol, from, to, limit: 1, projection: CHECKPOINT_PROJECTION });
  return row.count === 0 ? undefined : (JSON.parse(row.json) as StoredCheckpoint);
}
