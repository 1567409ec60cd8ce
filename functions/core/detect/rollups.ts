/**
 * Pre-aggregated occurrences for estimates (issue 23): compaction derives, per family, UTC hour,
 * symbol (and, for the account types, wallet) and value bucket, how many events a type's detector
 * finds there and the largest value (one derived dataset per rollup, declared in
 * core/archive/sql.ts ROLLUPS and schemas/datasets.ts, derived like 1-minute candles from trades).
 * An estimate then reads a few rows per hour of its lookback instead of every fill.
 *
 * Hours the rollup does not cover yet (the open hour, hours with ingest deltas compaction has not
 * folded, days compacted before the rollup existed) are replayed from the raw rows by the
 * preview's scan, so the answer covers the whole window. The histogram has 16 buckets a decade: a
 * bucket edge 10^(b/16) is counted exactly, a threshold between two edges is rounded down to the
 * lower one (at most about 15% below it). Values of zero or less share NO_VALUE_BUCKET.
 */
import type { ArchiveDeps } from '../../ports/archive.ts';
import type { Family } from '../venues.ts';
import { visibleFiles } from '../archive/files.ts';
import { DAY_MS, dayOf } from '../archive/layout.ts';
import { whollyBeforeCoverage } from '../archive/coverage.ts';
import { NO_VALUE_BUCKET, ROLLUP_BUCKETS_PER_DECADE, ROLLUPS, type RollupDataset } from '../archive/sql.ts';
import type { IngestedDataset } from '../../../schemas/datasets.ts';

export { NO_VALUE_BUCKET, type RollupDataset };

export const HOUR_MS = 3_600_000;

/** The histogram bucket of a positive value: bucket b holds [10^(b/16), 10^((b+1)/16)). */
export const bucketOf = (value: number): number => (value > 0 ? Math.floor(Math.log10(value) * ROLLUP_BUCKETS_PER_DECADE) : NO_VALUE_BUCKET);
/** The lowest value of a bucket. */
export const bucketEdge = (bucket: number): number => 10 ** (bucket / ROLLUP_BUCKETS_PER_DECADE);
/** True when counting whole buckets from `threshold` up counts exactly the values at or above it (a power of ten). */
export const isExactEdge = (threshold: number): boolean => threshold > 0 && Number.isInteger(Math.log10(threshold));
/** Ratio of one bucket's upper edge to its lower: the histogram's resolution (about 1.155). */
export const BUCKET_RATIO = 10 ** (1 / ROLLUP_BUCKETS_PER_DECADE);

/** The rollup an event type's estimate reads (a key of ROLLUPS). */
export type RollupSource = RollupDataset;

/** Events of one covered hour and bucket (summed over the symbols asked for). */
export interface RollupCell { family: Family; hour: number; bucket: number; events: number; max: number }

export interface RollupRead {
  cells: RollupCell[];
  /** Per family, the hour starts in [from, to) whose events are all in `cells`. */
  covered: Map<Family, Set<number>>;
  rowsRead: number;
}

/** The hour starts of [from, to) a rollup file stands for: its hour, or every hour of its day. */
function hoursOf(file: { day: string; tier?: 'minute' | 'hour'; hour?: number }): number[] {
  const start = Date.parse(`${file.day}T00:00:00Z`);
  if (file.tier === 'hour') return [start + file.hour! * HOUR_MS];
  return Array.from({ length: DAY_MS / HOUR_MS }, (_, h) => start + h * HOUR_MS);
}

/**
 * The rollup's cells of [from, to) for the given families (and symbols, when named). An hour is
 * covered when a rollup file of it exists and no delta of the source touches it (such rows are not
 * folded into the rollup yet); hours not wholly inside [from, to) are never covered.
 */
export async function readRollup(
  deps: ArchiveDeps, rollup: RollupSource, families: readonly Family[], symbols: readonly string[] | undefined, from: number, to: number,
  addresses?: readonly string[],
): Promise<RollupRead> {
  const source = { rollup, source: ROLLUPS[rollup].source as IngestedDataset };
  if (ROLLUPS[rollup].perWallet && !addresses) throw new Error(`${rollup} is kept per wallet: name the wallets to read`);
  const covered = new Map<Family, Set<number>>();
  const files: { key: string; etag: string; bytes: number }[] = [];
  await Promise.all(families.filter((f) => !whollyBeforeCoverage(source.rollup, f, to - 1)).map(async (family) => {
    const [rollupFiles, deltas] = await Promise.all([
      deps.manifest.compactedFiles(source.rollup, family, undefined, dayOf(from), dayOf(to - 1)),
      deps.manifest.deltaFiles(source.source, family, dayOf(from), dayOf(to - 1)),
    ]);
    const visible = visibleFiles(rollupFiles, []);
    const pending = new Set<number>();
    for (const delta of deltas) {
      for (let hour = Math.floor(delta.minTs / HOUR_MS) * HOUR_MS; hour <= delta.maxTs; hour += HOUR_MS) pending.add(hour);
    }
    const hours = new Set(visible.flatMap(hoursOf).filter((h) => h >= from && h + HOUR_MS <= to && !pending.has(h)));
    covered.set(family, hours);
    if (hours.size > 0) files.push(...visible);
  }));
  if (files.length === 0) return { cells: [], covered, rowsRead: 0 };
  const params: Record<string, string | number | readonly string[]> = { r_files: await deps.files.paths(files), r_from: from, r_to: to - 1 };
  if (symbols) params.r_symbols = symbols;
  if (addresses) params.r_addresses = addresses;
  const rows = await deps.sql.query({
    sql: `SELECT family, ts, bucket, sum(events) AS events, max(max_notional) AS max_notional
          FROM read_parquet($r_files, union_by_name = true)
          WHERE ts BETWEEN $r_from AND $r_to ${symbols ? 'AND list_contains($r_symbols, symbol)' : ''}
            ${addresses ? 'AND list_contains($r_addresses, address)' : ''}
          GROUP BY family, ts, bucket`,
    params,
  });
  const cells = rows
    .map((r) => ({ family: r.family as Family, hour: Number(r.ts), bucket: Number(r.bucket), events: Number(r.events), max: Number(r.max_notional) }))
    .filter((c) => covered.get(c.family)?.has(c.hour));
  return { cells, covered, rowsRead: rows.length };
}
