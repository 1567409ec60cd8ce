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
import type { ArchiveDeps, ArchiveFile } from '#ports/archive.ts';
import type { Family } from '../venues.ts';
import type { ReducedSource, Relation, RollupSource } from '../events/kit/preview-sources.ts';
import { visibleFiles } from '../archive/files.ts';
import { DAY_MS, dayOf } from '../archive/layout.ts';
import { whollyBeforeCoverage } from '../archive/coverage.ts';
import { NO_VALUE_BUCKET, ROLLUP_BUCKETS_PER_DECADE, ROLLUPS, type ReductionDataset, type RollupDataset } from '../archive/sql.ts';
import type { Dataset, IngestedDataset } from '#schemas/datasets.ts';

export { NO_VALUE_BUCKET, type ReducedSource, type ReductionDataset, type Relation, type RollupDataset, type RollupSource };

export const HOUR_MS = 3_600_000;

/** The histogram bucket of a positive value: bucket b holds [10^(b/16), 10^((b+1)/16)). */
export const bucketOf = (value: number): number => (value > 0 ? Math.floor(Math.log10(value) * ROLLUP_BUCKETS_PER_DECADE) : NO_VALUE_BUCKET);

/** The lowest value of a bucket. */
export const bucketEdge = (bucket: number): number => 10 ** (bucket / ROLLUP_BUCKETS_PER_DECADE);

/** True when counting whole buckets from `threshold` up counts exactly the values at or above it (a power of ten). */
export const isExactEdge = (threshold: number): boolean => threshold > 0 && Number.isInteger(Math.log10(threshold));

/** Ratio of one bucket's upper edge to its lower: the histogram's resolution (about 1.155). */
export const BUCKET_RATIO = 10 ** (1 / ROLLUP_BUCKETS_PER_DECADE);

/** Events of one covered hour and bucket (summed over the symbols asked for). */
export interface RollupCell {
  family: Family;
  hour: number;
  bucket: number;
  events: number;
  max: number;
}

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

/** The hours of [from, to) that `covered` rejects, clipped to it and joined where they touch. */
export function uncoveredSpans(from: number, to: number, covered: (hour: number) => boolean): [number, number][] {
  const spans: [number, number][] = [];
  for (let hour = Math.floor(from / HOUR_MS) * HOUR_MS; hour < to; hour += HOUR_MS) {
    if (covered(hour)) continue;
    const [start, end] = [Math.max(from, hour), Math.min(to, hour + HOUR_MS)];
    const last = spans.at(-1);
    if (last && last[1] === start) last[1] = end;
    else spans.push([start, end]);
  }
  return spans;
}

/**
 * A derived dataset's visible files over the days of [from, to) and which of its hours hold all
 * their source rows: an hour of a derived file that no source delta touches (rows not folded into
 * the derived files yet), or an hour with no source rows at all (no delta touches it and the
 * source's day index has no compacted file that day), which a replay would find nothing in. The
 * day index is written right after a compacted file and before the deltas it merged are retired,
 * so a source row is always in a listed delta or on an indexed day.
 */
export async function derivedCoverage(
  deps: ArchiveDeps,
  derived: Dataset,
  source: IngestedDataset,
  family: Family,
  from: number,
  to: number,
): Promise<{ visible: ArchiveFile[]; holds: (hour: number) => boolean }> {
  const [files, deltas, sourceDays] = await Promise.all([
    deps.manifest.compactedFiles(derived, family, undefined, dayOf(from), dayOf(to - 1)),
    deps.manifest.deltaFiles(source, family, dayOf(from), dayOf(to - 1)),
    deps.manifest.compactedDays(source, family, dayOf(from), dayOf(to - 1)),
  ]);
  const pending = new Set<number>();
  for (const delta of deltas) {
    for (let hour = Math.floor(delta.minTs / HOUR_MS) * HOUR_MS; hour <= delta.maxTs; hour += HOUR_MS) pending.add(hour);
  }
  const visible = visibleFiles(files, []);
  const derivedHours = new Set(visible.flatMap(hoursOf));
  const days = new Set(sourceDays);
  return { visible, holds: (hour) => !pending.has(hour) && (derivedHours.has(hour) || !days.has(dayOf(hour))) };
}

/** The whole hours of [from, to) that `holds` accepts. */
export function hoursHeld(from: number, to: number, holds: (hour: number) => boolean): Set<number> {
  const held = new Set<number>();
  for (let hour = Math.ceil(from / HOUR_MS) * HOUR_MS; hour + HOUR_MS <= to; hour += HOUR_MS) if (holds(hour)) held.add(hour);
  return held;
}

/**
 * The rollup's cells of [from, to) for the given families (and symbols, when named). An hour is
 * covered when a rollup file of it exists and no delta of the source touches it (such rows are not
 * folded into the rollup yet); hours not wholly inside [from, to) are never covered.
 */
export async function readRollup(
  deps: ArchiveDeps,
  rollup: RollupSource,
  families: readonly Family[],
  symbols: readonly string[] | undefined,
  from: number,
  to: number,
  addresses?: readonly string[],
): Promise<RollupRead> {
  const source = { rollup, source: ROLLUPS[rollup].source as IngestedDataset };
  if (ROLLUPS[rollup].perWallet && !addresses) throw new Error(`${rollup} is kept per wallet: name the wallets to read`);
  const covered = new Map<Family, Set<number>>();
  const files: { key: string; etag: string; bytes: number }[] = [];
  await Promise.all(
    families
      .filter((f) => !whollyBeforeCoverage(source.rollup, f, to - 1))
      .map(async (family) => {
        const { visible, holds } = await derivedCoverage(deps, source.rollup, source.source, family, from, to);
        const hours = hoursHeld(from, to, holds);
        covered.set(family, hours);
        if (hours.size > 0) files.push(...visible);
      }),
  );
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

/** Crossings of one histogram cell of market.oi_delta's rollup (summed over the markets asked). */
export interface CrossingCell {
  family: Family;
  ts: number;
  direction: 'up' | 'down';
  kind: 'upper' | 'lower' | 'first';
  bucket: number;
  events: number;
  max: number;
}

/** Which hours of [from, to) market.oi_delta's crossing histograms answer, per family, and the files holding them (the manifest only). */
export interface CrossingsCoverage {
  covered: Map<Family, Set<number>>;
  files: ArchiveFile[];
}

/**
 * The hours of [from, to) the crossing histograms (oi_crossings) answer for the given families: a
 * slot's file exists and no open-interest delta touches its hours (or the hours hold no rows at
 * all). A day file's cells stand for its whole day, so its hours count only when every one of them
 * is held; the rest is for a replay.
 */
export async function oiCrossingsCoverage(deps: ArchiveDeps, families: readonly Family[], from: number, to: number): Promise<CrossingsCoverage> {
  const covered = new Map<Family, Set<number>>();
  const files: ArchiveFile[] = [];
  await Promise.all(
    families
      .filter((f) => !whollyBeforeCoverage('oi_crossings', f, to - 1))
      .map(async (family) => {
        const { visible, holds } = await derivedCoverage(deps, 'oi_crossings', 'open_interest', family, from, to);
        const held = hoursHeld(from, to, holds);
        for (const file of visible.filter((f) => f.tier === undefined)) {
          const hours = hoursOf(file);
          if (!hours.every((h) => held.has(h))) for (const h of hours) held.delete(h);
        }
        covered.set(family, held);
        files.push(...visible);
      }),
  );
  return { covered, files };
}

/** The histogram cells of one window (and symbols) over the slots `coverage` answers, summed over the markets. */
export async function oiCrossingCells(
  deps: ArchiveDeps,
  coverage: CrossingsCoverage,
  symbols: readonly string[] | undefined,
  windowS: number,
  from: number,
  to: number,
): Promise<{ cells: CrossingCell[]; rowsRead: number }> {
  if (coverage.files.length === 0) return { cells: [], rowsRead: 0 };
  const params: Record<string, string | number | readonly string[]> = {
    r_files: await deps.files.paths(coverage.files),
    r_from: from,
    r_to: to - 1,
    r_window: windowS,
  };
  if (symbols) params.r_symbols = symbols;
  const rows = await deps.sql.query({
    sql: `SELECT family, ts, slot_hours, direction, kind, bucket, sum(events) AS events, max(max_delta) AS max_delta
          FROM read_parquet($r_files, union_by_name = true)
          WHERE ts BETWEEN $r_from AND $r_to AND window_s = $r_window ${symbols ? 'AND list_contains($r_symbols, symbol)' : ''}
          GROUP BY ALL`,
    params,
  });
  const answered = (r: Record<string, unknown>) =>
    Array.from({ length: Number(r.slot_hours) }, (_, h) => Number(r.ts) + h * HOUR_MS).every((h) => coverage.covered.get(r.family as Family)?.has(h));
  const cells = rows.filter(answered).map((r) => ({
    family: r.family as Family,
    ts: Number(r.ts),
    direction: r.direction as 'up' | 'down',
    kind: r.kind as CrossingCell['kind'],
    bucket: Number(r.bucket),
    events: Number(r.events),
    max: Number(r.max_delta),
  }));
  return { cells, rowsRead: rows.length };
}

/** oiCrossingsCoverage and oiCrossingCells in turn. */
export async function readOiCrossings(
  deps: ArchiveDeps,
  families: readonly Family[],
  symbols: readonly string[] | undefined,
  windowS: number,
  from: number,
  to: number,
): Promise<{ cells: CrossingCell[]; covered: Map<Family, Set<number>>; rowsRead: number }> {
  const coverage = await oiCrossingsCoverage(deps, families, from, to);
  return { ...(await oiCrossingCells(deps, coverage, symbols, windowS, from, to)), covered: coverage.covered };
}
