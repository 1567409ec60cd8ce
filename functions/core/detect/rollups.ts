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
import type { ArchiveDeps, ArchiveFile } from '../../ports/archive.ts';
import type { Family } from '../venues.ts';
import type { Candidate } from './candidate.ts';
import { visibleFiles } from '../archive/files.ts';
import { DAY_MS, dayOf } from '../archive/layout.ts';
import { whollyBeforeCoverage } from '../archive/coverage.ts';
import { NO_VALUE_BUCKET, REDUCTIONS, ROLLUP_BUCKETS_PER_DECADE, ROLLUPS, type ReductionDataset, type RollupDataset } from '../archive/sql.ts';
import { windowSource } from '../archive/read.ts';
import type { Dataset, IngestedDataset } from '../../../schemas/datasets.ts';

export { NO_VALUE_BUCKET, type ReductionDataset, type RollupDataset };

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
 * A derived dataset's visible files over the days of [from, to) and the source hours it does not
 * hold yet: hours a source delta touches (rows not folded into the derived files).
 */
async function derivedCoverage(
  deps: ArchiveDeps, derived: Dataset, source: IngestedDataset, family: Family, from: number, to: number,
): Promise<{ visible: ArchiveFile[]; pending: Set<number> }> {
  const [files, deltas] = await Promise.all([
    deps.manifest.compactedFiles(derived, family, undefined, dayOf(from), dayOf(to - 1)),
    deps.manifest.deltaFiles(source, family, dayOf(from), dayOf(to - 1)),
  ]);
  const pending = new Set<number>();
  for (const delta of deltas) {
    for (let hour = Math.floor(delta.minTs / HOUR_MS) * HOUR_MS; hour <= delta.maxTs; hour += HOUR_MS) pending.add(hour);
  }
  return { visible: visibleFiles(files, []), pending };
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
    const { visible, pending } = await derivedCoverage(deps, source.rollup, source.source, family, from, to);
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

/**
 * What a param-free minute type's estimate reads instead of replaying day by day: its detector's
 * input over the whole lookback in one pass, from a reduction (`{ reduction }`) or, when the
 * source's rows are the events already (one row each, few), from the source itself (`{ source }`).
 */
export interface ReducedSource {
  rows: { reduction: ReductionDataset } | { source: IngestedDataset };
  /** Whether the rule's `symbols` name the rows' symbols (not, for instance, a payment token). */
  bySymbol: boolean;
  /** Where the detector's input starts for a window starting at `from` (its lookback). */
  since: (from: number) => number;
  /**
   * The type's own detector over the rows read (oldest first, each with `family`): occurrences of
   * [from, to), for each of the param sets (a param-gated type's rule, then its lowest threshold).
   */
  detect: (rows: readonly Record<string, unknown>[], from: number, to: number, archive: ArchiveDeps, paramSets: readonly Record<string, unknown>[]) => Promise<Candidate[]>;
  /** What the basis note says beside (where the one pass differs from delivery). */
  note?: string;
  /** Whether the reduction answers a rule with these params (always, when absent); other rules are replayed. */
  answers?: (params: Record<string, unknown>) => boolean;
}

/** A ReducedSource's rows of [since, to): see readReduced; a source dataset is read whole, one query a family. */
export async function readDetectorInput(
  deps: ArchiveDeps, input: ReducedSource, families: readonly Family[], symbols: readonly string[] | undefined, since: number, to: number,
): Promise<ReducedRead> {
  const scoped = input.bySymbol ? symbols : undefined;
  if ('reduction' in input.rows) return readReduced(deps, input.rows.reduction, families, scoped, since, to);
  const dataset = input.rows.source;
  const rows: Record<string, unknown>[] = [];
  for (const family of families) {
    const window = await windowSource(deps, { dataset, family, from: since, to: to - 1, symbols: scoped });
    if (!window) continue;
    for (const row of await deps.sql.query({ sql: `SELECT * FROM (${window.sql}) ORDER BY ts`, params: window.params })) rows.push({ ...row, family });
  }
  return { rows, coveredHours: 0, rowsRead: rows.length };
}

/** The rows a reduction keeps over [since, to), as the detector reads them (with `family`), oldest first. */
export interface ReducedRead {
  rows: Record<string, unknown>[];
  /** Family-hours read from the reduction; the rest were reduced on the fly from the raw source. */
  coveredHours: number;
  rowsRead: number;
}

/**
 * A reduction's rows of [since, to) for the given families (and symbols): covered hours (a
 * reduction file of the hour, no source delta touching it) from the reduction, the others reduced
 * from the raw source with the same SQL, one query per run of uncovered hours (usually the open
 * hour or two; a whole range of days compacted before the reduction existed).
 */
export async function readReduced(
  deps: ArchiveDeps, reduction: ReductionDataset, families: readonly Family[], symbols: readonly string[] | undefined, since: number, to: number,
): Promise<ReducedRead> {
  const source = REDUCTIONS[reduction].source as IngestedDataset;
  const rows: Record<string, unknown>[] = [];
  let coveredHours = 0;
  await Promise.all(families.filter((f) => !whollyBeforeCoverage(source, f, to - 1)).map(async (family) => {
    const { visible, pending } = whollyBeforeCoverage(reduction, family, to - 1)
      ? { visible: [], pending: new Set<number>() }
      : await derivedCoverage(deps, reduction, source, family, since, to);
    const first = Math.floor(since / HOUR_MS) * HOUR_MS;
    const covered = [...new Set(visible.flatMap(hoursOf))].filter((h) => h >= first && h < to && !pending.has(h)).sort((a, b) => a - b);
    coveredHours += covered.length;
    const read: Promise<Record<string, unknown>[]>[] = [];
    if (covered.length > 0) {
      const params: Record<string, string | number | readonly string[]> = {
        r_files: await deps.files.paths(visible), r_from: since, r_to: to - 1, r_hours: covered.map(String),
      };
      if (symbols) params.r_symbols = symbols;
      read.push(deps.sql.query({
        sql: `SELECT * EXCLUDE (marker) FROM read_parquet($r_files, union_by_name = true)
              WHERE marker IS NULL AND ts BETWEEN $r_from AND $r_to AND list_contains($r_hours, CAST((ts // 3600000) * 3600000 AS VARCHAR))
                ${symbols ? 'AND list_contains($r_symbols, symbol)' : ''}`,
        params: params as never,
      }));
    }
    // The hours not covered, joined where they touch, reduced from the raw rows.
    const coveredSet = new Set(covered);
    for (const [start, end] of uncoveredSpans(since, to, (hour) => coveredSet.has(hour))) {
      read.push(windowSource(deps, { dataset: source, family, from: start, to: end - 1, symbols }).then((window) => (window
        ? deps.sql.query({ sql: REDUCTIONS[reduction].rows(`(${window.sql})`), params: window.params })
        : [])));
    }
    for (const found of await Promise.all(read)) for (const row of found) rows.push({ ...row, family });
  }));
  rows.sort((a, b) => Number(a.ts) - Number(b.ts));
  return { rows, coveredHours, rowsRead: rows.length };
}

/** Crossings of one histogram cell of market.oi_delta's rollup (summed over the markets asked). */
export interface CrossingCell { family: Family; ts: number; direction: 'up' | 'down'; kind: 'upper' | 'lower' | 'first'; bucket: number; events: number; max: number }

/**
 * market.oi_delta's crossing histograms (oi_crossings) for one window over [from, to), for the
 * given families (and symbols): cells of slots whose every hour is covered (a file of the slot, no
 * open-interest delta touching it), with the covered hours per family; the rest is for a replay.
 */
export async function readOiCrossings(
  deps: ArchiveDeps, families: readonly Family[], symbols: readonly string[] | undefined, windowS: number, from: number, to: number,
): Promise<{ cells: CrossingCell[]; covered: Map<Family, Set<number>>; active: Set<Family>; rowsRead: number }> {
  const covered = new Map<Family, Set<number>>();
  // Families with open interest in the window (a histogram file or a source delta): only their uncovered hours need a replay.
  const active = new Set<Family>();
  const files: ArchiveFile[] = [];
  await Promise.all(families.filter((f) => !whollyBeforeCoverage('oi_crossings', f, to - 1)).map(async (family) => {
    const { visible, pending } = await derivedCoverage(deps, 'oi_crossings', 'open_interest', family, from, to);
    covered.set(family, new Set(visible.flatMap(hoursOf).filter((h) => h >= from && h + HOUR_MS <= to && !pending.has(h))));
    if (visible.length > 0 || pending.size > 0) active.add(family);
    files.push(...visible);
  }));
  if (files.length === 0) return { cells: [], covered, active, rowsRead: 0 };
  const params: Record<string, string | number | readonly string[]> = { r_files: await deps.files.paths(files), r_from: from, r_to: to - 1, r_window: windowS };
  if (symbols) params.r_symbols = symbols;
  const rows = await deps.sql.query({
    sql: `SELECT family, ts, slot_hours, direction, kind, bucket, sum(events) AS events, max(max_delta) AS max_delta
          FROM read_parquet($r_files, union_by_name = true)
          WHERE ts BETWEEN $r_from AND $r_to AND window_s = $r_window ${symbols ? 'AND list_contains($r_symbols, symbol)' : ''}
          GROUP BY ALL`,
    params,
  });
  // A day file's cells stand for its whole day: counted only when every hour of it is covered.
  const wholly = (family: Family, ts: number, hours: number) => Array.from({ length: hours }, (_, h) => ts + h * HOUR_MS).every((h) => covered.get(family)?.has(h));
  for (const [family, hours] of covered) {
    for (const r of rows.filter((x) => x.family === family && Number(x.slot_hours) > 1)) {
      if (!wholly(family, Number(r.ts), Number(r.slot_hours))) for (let h = 0; h < Number(r.slot_hours); h++) hours.delete(Number(r.ts) + h * HOUR_MS);
    }
  }
  const cells = rows
    .filter((r) => wholly(r.family as Family, Number(r.ts), Number(r.slot_hours)))
    .map((r) => ({
      family: r.family as Family, ts: Number(r.ts), direction: r.direction as 'up' | 'down', kind: r.kind as CrossingCell['kind'], bucket: Number(r.bucket),
      events: Number(r.events), max: Number(r.max_delta),
    }));
  return { cells, covered, active, rowsRead: rows.length };
}
