/**
 * Cadence statistics of a market's series, kept with every file in the manifest so data quality is
 * answered without reading Parquet: per symbol its rows, first and last time, a histogram of the
 * intervals between consecutive rows (quarter-octave buckets, mergeable across files) and every
 * interval of at least `GAP_FLOOR_MS` (a gap candidate). Ingest computes them from the batch's
 * records, compaction from the rows it writes (core/archive/compact.ts), in the same shape.
 *
 * A gap is a silence longer than the symbol's expected cadence allows: `GAP_FACTOR` times its
 * usual (median) interval, and never shorter than `GAP_FLOOR_MS` (the archive-gap detector's five
 * minutes), so a market that updates every second is judged like one that trades once a minute.
 */

import { DATASETS, type Dataset } from '#schemas/datasets.ts';

/** The market series whose quality is measured: the datasets the registry marks `quality` (their files carry cadence statistics). */
export type QualityDataset = { [D in Dataset]: (typeof DATASETS)[D] extends { quality: true } ? D : never }[Dataset];
export const isQualityDataset = (dataset: Dataset): dataset is QualityDataset => 'quality' in DATASETS[dataset];
export const QUALITY_DATASETS: readonly QualityDataset[] = (Object.keys(DATASETS) as Dataset[]).filter(isQualityDataset);

/** Intervals shorter than this are never gaps (core/events/archive.gap_detected.ts `ARCHIVE_GAP_MS`). */
export const GAP_FLOOR_MS = 5 * 60_000;
/** A silence of this many usual intervals is a gap (the stall detector's five). */
export const GAP_FACTOR = 5;
/** Buckets per doubling of the interval: a bucket's midpoint is within 9% of any interval in it. */
const BUCKETS_PER_OCTAVE = 4;
/** Gap candidates kept per symbol and file; a file with more (a market that barely trades) keeps its longest. */
export const MAX_GAPS_PER_FILE = 64;

export interface SymbolCadence {
  rows: number;
  minTs: number;
  maxTs: number;
  /** Interval histogram: bucket index (floor(log2(ms) * 4)) -> count. Zero intervals are not counted. */
  hist: Record<string, number>;
  /** Intervals of at least GAP_FLOOR_MS, as [last time before, first time after]. */
  gaps: [number, number][];
}

export type FileCadence = Record<string, SymbolCadence>;

export const bucketOf = (intervalMs: number) => Math.floor(Math.log2(intervalMs) * BUCKETS_PER_OCTAVE);
/** The geometric middle of a bucket, in ms. */
export const bucketMiddle = (bucket: number) => 2 ** ((bucket + 0.5) / BUCKETS_PER_OCTAVE);

function keepLongest(gaps: [number, number][]): [number, number][] {
  if (gaps.length <= MAX_GAPS_PER_FILE) return gaps;
  return [...gaps]
    .sort((a, b) => b[1] - b[0] - (a[1] - a[0]))
    .slice(0, MAX_GAPS_PER_FILE)
    .sort((a, b) => a[0] - b[0]);
}

/** The cadence of each symbol's rows (any order). */
export function cadenceOf(rows: readonly { symbol: string; ts: number }[]): FileCadence {
  const times = new Map<string, number[]>();
  for (const { symbol, ts } of rows) {
    const list = times.get(symbol);
    if (list) list.push(ts);
    else times.set(symbol, [ts]);
  }
  const out: FileCadence = {};
  for (const [symbol, list] of times) {
    list.sort((a, b) => a - b);
    const hist: Record<string, number> = {};
    const gaps: [number, number][] = [];
    for (let i = 1; i < list.length; i += 1) {
      const interval = list[i]! - list[i - 1]!;
      if (interval <= 0) continue;
      const bucket = String(bucketOf(interval));
      hist[bucket] = (hist[bucket] ?? 0) + 1;
      if (interval >= GAP_FLOOR_MS) gaps.push([list[i - 1]!, list[i]!]);
    }
    out[symbol] = { rows: list.length, minTs: list[0]!, maxTs: list[list.length - 1]!, hist, gaps: keepLongest(gaps) };
  }
  return out;
}

/** The same statistics as SQL over a table of (symbol, ts): one row per symbol (compaction's pass). */
export const CADENCE_SQL = (table: string) => `
  WITH t AS (SELECT symbol, ts, ts - lag(ts) OVER (PARTITION BY symbol ORDER BY ts) AS dt FROM ${table}),
  h AS (SELECT symbol, list({'bucket': bucket, 'n': n}) AS hist
        FROM (SELECT symbol, floor(log2(dt) * ${BUCKETS_PER_OCTAVE})::INTEGER AS bucket, count(*) AS n FROM t WHERE dt > 0 GROUP BY ALL) GROUP BY symbol),
  s AS (SELECT symbol, count(*) AS n, min(ts) AS min_ts, max(ts) AS max_ts,
               list([ts - dt, ts] ORDER BY ts) FILTER (WHERE dt >= ${GAP_FLOOR_MS}) AS gaps
        FROM t GROUP BY symbol)
  SELECT s.symbol, s.n, s.min_ts, s.max_ts, s.gaps, h.hist FROM s LEFT JOIN h USING (symbol) ORDER BY s.symbol`;

/** A row of CADENCE_SQL as the symbol's statistics. */
export function cadenceFromRow(row: Record<string, unknown>): SymbolCadence {
  const hist: Record<string, number> = {};
  for (const entry of (row.hist as { bucket: number; n: number | bigint }[] | null) ?? []) hist[String(entry.bucket)] = Number(entry.n);
  const gaps = ((row.gaps as (number | bigint)[][] | null) ?? []).map(([a, b]) => [Number(a), Number(b)] as [number, number]);
  return { rows: Number(row.n), minTs: Number(row.min_ts), maxTs: Number(row.max_ts), hist, gaps: keepLongest(gaps) };
}

export interface ObservedCadence {
  median_interval_seconds: number;
  p95_interval_seconds: number;
  sample_count: number;
}

/** Median and p95 of a merged histogram (bucket midpoints), or undefined without intervals. */
export function observedCadence(hist: Readonly<Record<string, number>>): ObservedCadence | undefined {
  const buckets = Object.entries(hist)
    .map(([b, n]) => [Number(b), n] as const)
    .sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return undefined;
  const quantile = (q: number) => {
    let seen = 0;
    for (const [bucket, n] of buckets) {
      seen += n;
      if (seen >= q * total) return bucketMiddle(bucket);
    }
    return bucketMiddle(buckets[buckets.length - 1]![0]);
  };
  const seconds = (ms: number) => Number((ms / 1000).toFixed(3));
  return { median_interval_seconds: seconds(quantile(0.5)), p95_interval_seconds: seconds(quantile(0.95)), sample_count: total };
}

export interface Gap {
  start: number;
  end: number;
}

export interface SeriesCoverage {
  rows: number;
  /** First and last time seen in the window, absent when nothing was. */
  earliest?: number;
  latest?: number;
  gaps: Gap[];
  /** Share of [earliest or from, end] not inside a gap: 0..1. */
  completeness: number;
  /** Share of the whole window [from, end] holding data: 0..1. */
  historical: number;
  cadence?: ObservedCadence;
  /** The silence that counts as a gap for this series, in ms. */
  gapThresholdMs: number;
}

/** The expected cadence's gap threshold: five usual intervals, at least the floor. */
export function gapThreshold(cadence: ObservedCadence | undefined): number {
  return cadence ? Math.max(GAP_FLOOR_MS, GAP_FACTOR * cadence.median_interval_seconds * 1000) : GAP_FLOOR_MS;
}

/**
 * One symbol's coverage of [from, end] from the statistics of the files that hold it (visible files
 * only, in any order; their statistics may reach outside the window). Gaps are the files' own long
 * intervals and the silences between files, longer than the threshold, clipped to the window; the
 * silence after the last row up to `end` is a gap too once it is longer than the threshold.
 */
export function seriesCoverage(parts: readonly SymbolCadence[], from: number, end: number): SeriesCoverage {
  const inWindow = parts.filter((p) => p.maxTs >= from && p.minTs <= end).sort((a, b) => a.minTs - b.minTs);
  const hist: Record<string, number> = {};
  for (const part of inWindow) for (const [b, n] of Object.entries(part.hist)) hist[b] = (hist[b] ?? 0) + n;
  const cadence = observedCadence(hist);
  const threshold = gapThreshold(cadence);
  const silences: Gap[] = [];
  let reach: number | undefined;
  for (const part of inWindow) {
    if (reach !== undefined && part.minTs - reach > threshold) silences.push({ start: reach, end: part.minTs });
    for (const [a, b] of part.gaps) if (b - a > threshold) silences.push({ start: a, end: b });
    reach = reach === undefined ? part.maxTs : Math.max(reach, part.maxTs);
  }
  // A file's long interval may be covered by an overlapping file's rows: keep only silences no file's rows fall inside.
  const gaps = mergeGaps(silences.filter((g) => !inWindow.some((p) => coversInside(p, g))))
    .map((g) => ({ start: Math.max(g.start, from), end: Math.min(g.end, end) }))
    .filter((g) => g.end - g.start > 0);
  const rows = inWindow.reduce((sum, p) => sum + p.rows, 0);
  const earliest = inWindow.length ? Math.max(from, Math.min(...inWindow.map((p) => p.minTs))) : undefined;
  const latest = reach === undefined ? undefined : Math.min(end, reach);
  if (latest !== undefined && end - latest > threshold) gaps.push({ start: latest, end });
  const start = earliest ?? from;
  const span = Math.max(0, end - start);
  const missing = gaps.reduce((sum, g) => sum + (Math.min(g.end, end) - Math.max(g.start, start)), 0);
  const clamp = (x: number) => Math.min(1, Math.max(0, x));
  const completeness = earliest === undefined ? 0 : span === 0 ? 1 : clamp(1 - missing / span);
  const windowSpan = Math.max(0, end - from);
  const historical = earliest === undefined ? 0 : windowSpan === 0 ? completeness : clamp((span - missing) / windowSpan);
  return {
    rows,
    ...(earliest !== undefined && { earliest }),
    ...(latest !== undefined && { latest }),
    gaps,
    completeness,
    historical,
    ...(cadence && { cadence }),
    gapThresholdMs: threshold,
  };
}

/** A file's rows fall strictly inside the silence (its span sits within it without touching its ends). */
function coversInside(part: SymbolCadence, gap: Gap): boolean {
  if (part.maxTs <= gap.start || part.minTs >= gap.end) return false;
  // The file has rows inside the silence unless its own gap spans the whole of it.
  return !part.gaps.some(([a, b]) => a <= gap.start && b >= gap.end);
}

function mergeGaps(gaps: readonly Gap[]): Gap[] {
  const sorted = [...gaps].sort((a, b) => a.start - b.start);
  const out: Gap[] = [];
  for (const g of sorted) {
    const last = out[out.length - 1];
    if (last && g.start <= last.end) last.end = Math.max(last.end, g.end);
    else out.push({ ...g });
  }
  return out;
}

/**
 * Rows archived strictly inside (start, end): a file whose own silence spans the window holds none
 * there, a file inside it counts whole, one that straddles an edge by the share of its span inside
 * (an estimate: statistics keep no row times). A late batch that fills a silence is its own file
 * until compaction folds it, so what it recovered is counted exactly until then.
 */
export function rowsInside(parts: readonly SymbolCadence[], start: number, end: number): number {
  let rows = 0;
  for (const p of parts) {
    if (p.maxTs <= start || p.minTs >= end) continue;
    if (p.gaps.some(([a, b]) => a <= start && b >= end)) continue;
    if (p.minTs > start && p.maxTs < end) {
      rows += p.rows;
      continue;
    }
    const span = p.maxTs - p.minTs;
    rows += span === 0 ? 0 : (p.rows * (Math.min(end, p.maxTs) - Math.max(start, p.minTs))) / span;
  }
  return Math.round(rows);
}

/** The records a silence of `durationMs` cost a series with this usual interval (none when the series is sparser than the silence). */
export function recordsMissed(durationMs: number, cadence: ObservedCadence | undefined): number {
  return cadence ? Math.floor(durationMs / (cadence.median_interval_seconds * 1000)) : 0;
}
