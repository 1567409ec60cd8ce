/**
 * Coverage, completeness and ingest lag, read from the manifest alone: the files a reader would use
 * (core/archive/files.ts) and the cadence statistics of each (cadence.ts), read by key for those
 * files only. No Parquet is opened, so a symbol's 30 days cost two manifest queries per dataset and
 * a batched read of the statistics, and a family's 30 days one query per dataset and day (cached by
 * the caller: the reference service caches it 5 minutes).
 */
import { DATASETS, familiesOf, type Dataset, type DatasetDef } from '#schemas/datasets.ts';
import type { ArchiveFile, ArchiveManifest } from '#ports/archive.ts';
import { supersedes, visibleFiles } from '../archive/files.ts';
import { dayOf, DAY_MS } from '../archive/layout.ts';
import type { Family } from '../venues.ts';
import {
  QUALITY_DATASETS,
  observedCadence,
  recordsMissed,
  rowsInside,
  seriesCoverage,
  type ObservedCadence,
  type QualityDataset,
  type SymbolCadence,
} from '../archive/cadence.ts';

export const qualityDatasetsOf = (family: Family): QualityDataset[] => QUALITY_DATASETS.filter((d) => familiesOf(d).includes(family));

export const iso = (ms: number) => new Date(ms).toISOString();
const round = (n: number, digits: number) => Number(n.toFixed(digits));
/** Completeness and coverage go out as percentages from 0 to 100 (the reference client's unit), computed as shares. */
export const percent = (share: number) => round(share * 100, 4);

export interface GapView {
  start: string;
  end: string;
  duration_minutes: number;
}
export interface SymbolDataTypeCoverage {
  earliest: string;
  latest: string;
  total_records: number;
  completeness: number;
  historical_coverage: number;
  gaps: GapView[];
  cadence?: ObservedCadence;
}

/** The visible files of one dataset for [fromDay, toDay]: the symbol's own (or the family's all-symbol files) and the deltas nothing replaces. */
async function filesOf(
  manifest: ArchiveManifest,
  dataset: Dataset,
  family: Family,
  symbol: string | undefined,
  fromDay: string,
  toDay: string,
): Promise<ArchiveFile[]> {
  const { perSymbol, familyWideBefore } = DATASETS[dataset] as DatasetDef;
  const [compacted, familyWide, deltas] = await Promise.all([
    symbol !== undefined || !perSymbol ? manifest.compactedFiles(dataset, family, perSymbol ? symbol : undefined, fromDay, toDay) : Promise.resolve([]),
    // Family-wide files from before the dataset was split per symbol, where the symbol has none of its own for the slot.
    symbol !== undefined && perSymbol && familyWideBefore ? manifest.compactedFiles(dataset, family, undefined, fromDay, toDay) : Promise.resolve([]),
    manifest.deltaFiles(dataset, family, fromDay, toDay),
  ]);
  const own = visibleFiles(compacted, []);
  const older = visibleFiles(familyWide, []).filter((f) => !own.some((g) => supersedes(g, f)));
  return withCadence(manifest, visibleFiles([...compacted, ...older], deltas, symbol));
}

/** The files with their cadence statistics attached (one batched read by key). */
export async function withCadence(manifest: ArchiveManifest, files: readonly ArchiveFile[]): Promise<ArchiveFile[]> {
  const stats = await manifest.cadenceOf(files);
  return files.map((file) => {
    const cadence = stats.get(file.fileId);
    return cadence ? { ...file, cadence } : file;
  });
}

/** A symbol's statistics in a file: its own entry, or the whole file for a one-symbol file written before files carried them. */
export function statsOf(file: ArchiveFile, symbol: string): SymbolCadence | undefined {
  const own = file.cadence?.[symbol];
  if (own) return own;
  if (file.cadence === undefined && file.symbols.length === 1 && file.symbols[0] === symbol) {
    return { rows: file.rows, minTs: file.minTs, maxTs: file.maxTs, hist: {}, gaps: [] };
  }
  return undefined;
}

/** One symbol's coverage of [from, to] per dataset it has rows of (datasets without any are absent). */
export async function symbolCoverage(
  manifest: ArchiveManifest,
  family: Family,
  symbol: string,
  from: number,
  to: number,
  now: number,
): Promise<Record<string, SymbolDataTypeCoverage>> {
  const end = Math.min(to, now);
  const fromDay = dayOf(from);
  const toDay = dayOf(Math.max(from, end));
  const entries = await Promise.all(
    qualityDatasetsOf(family).map(async (dataset) => {
      const files = await filesOf(manifest, dataset, family, symbol, fromDay, toDay);
      const parts = files.map((f) => statsOf(f, symbol)).filter((s): s is SymbolCadence => s !== undefined);
      const series = seriesCoverage(parts, from, end);
      if (series.earliest === undefined || series.latest === undefined) return undefined;
      const view: SymbolDataTypeCoverage = {
        earliest: iso(series.earliest),
        latest: iso(series.latest),
        total_records: rowsIn(parts, from, end),
        completeness: percent(series.completeness),
        historical_coverage: percent(series.historical),
        gaps: series.gaps.map((g) => ({ start: iso(g.start), end: iso(g.end), duration_minutes: round((g.end - g.start) / 60_000, 1) })),
        ...(series.cadence && { cadence: series.cadence }),
      };
      return [dataset, view] as const;
    }),
  );
  return Object.fromEntries(entries.filter((e) => e !== undefined));
}

/** Rows of the files wholly inside the window, and a time-proportional share of those that straddle an edge. */
function rowsIn(parts: readonly SymbolCadence[], from: number, end: number): number {
  let rows = 0;
  for (const p of parts) {
    if (p.maxTs < from || p.minTs > end) continue;
    const span = p.maxTs - p.minTs;
    if (span === 0 || (p.minTs >= from && p.maxTs <= end)) rows += p.rows;
    else rows += (p.rows * (Math.min(end, p.maxTs) - Math.max(from, p.minTs))) / span;
  }
  return Math.round(rows);
}

export interface DataTypeCoverage {
  earliest: string;
  latest: string;
  total_records: number;
  symbols: number;
  resolution?: string;
  lag?: string;
  completeness: number;
}

/** `1.2s`, `1m`, `2h`: an interval as the reference service writes a resolution or a lag. */
export function durationLabel(ms: number): string {
  if (ms < 60_000) return `${round(ms / 1000, 1)}s`;
  if (ms < 3_600_000) return `${round(ms / 60_000, 1)}m`;
  return `${round(ms / 3_600_000, 1)}h`;
}

/** Each symbol's statistics over the files, merged per symbol. */
function bySymbol(files: readonly ArchiveFile[]): Map<string, SymbolCadence[]> {
  const out = new Map<string, SymbolCadence[]>();
  for (const file of files) {
    for (const symbol of file.symbols) {
      const stats = statsOf(file, symbol);
      if (!stats) continue;
      const list = out.get(symbol);
      if (list) list.push(stats);
      else out.set(symbol, [stats]);
    }
  }
  return out;
}

/** Every compacted file of a dataset and family over [fromDay, toDay]: a query for the days that have any, then one per such day. */
async function compactedFilesOfDays(manifest: ArchiveManifest, dataset: Dataset, family: Family, fromDay: string, toDay: string): Promise<ArchiveFile[]> {
  const days = await manifest.compactedDays(dataset, family, fromDay, toDay);
  return (await Promise.all(days.map((day) => manifest.compactedFilesOfDay(dataset, family, day)))).flat();
}

/** The window the family-wide routes measure: the last `days` UTC days. */
export const FAMILY_WINDOW_DAYS = 30;

/**
 * A family's coverage per dataset over [from, now]: first and last record, records, symbols
 * with data, the usual interval (resolution), how far the newest record trails now (lag), and the
 * mean completeness of its symbols. Per dataset: the day index, a query per day with compacted
 * files, and the deltas.
 */
export async function familyCoverage(manifest: ArchiveManifest, family: Family, from: number, now: number): Promise<Record<string, DataTypeCoverage>> {
  const [fromDay, toDay] = [dayOf(from), dayOf(now)];
  const entries = await Promise.all(
    qualityDatasetsOf(family).map(async (dataset) => {
      const [perDay, deltas] = await Promise.all([
        compactedFilesOfDays(manifest, dataset, family, fromDay, toDay),
        manifest.deltaFiles(dataset, family, fromDay, toDay),
      ]);
      const files = await withCadence(manifest, visibleFiles(perDay, deltas));
      const symbols = bySymbol(files);
      if (symbols.size === 0) return undefined;
      let earliest = Infinity;
      let latest = -Infinity;
      let records = 0;
      let completeness = 0;
      const hist: Record<string, number> = {};
      for (const parts of symbols.values()) {
        const series = seriesCoverage(parts, from, now);
        if (series.earliest === undefined || series.latest === undefined) continue;
        earliest = Math.min(earliest, series.earliest);
        latest = Math.max(latest, series.latest);
        records += rowsIn(parts, from, now);
        completeness += series.completeness;
        for (const part of parts) for (const [b, n] of Object.entries(part.hist)) hist[b] = (hist[b] ?? 0) + n;
      }
      if (!Number.isFinite(earliest)) return undefined;
      const cadence = observedCadence(hist);
      const view: DataTypeCoverage = {
        earliest: iso(earliest),
        latest: iso(latest),
        total_records: records,
        symbols: symbols.size,
        ...(cadence && { resolution: durationLabel(cadence.median_interval_seconds * 1000) }),
        lag: durationLabel(Math.max(0, now - latest)),
        completeness: percent(completeness / symbols.size),
      };
      return [dataset, view] as const;
    }),
  );
  return Object.fromEntries(entries.filter((e) => e !== undefined));
}

export interface IngestLag {
  /** Newest record time of the family's dataset. */
  lastDataAt: number;
  /** Event time to readable, over the delta files written in the last hour: mean and newest (ms). */
  meanLagMs: number;
  currentLagMs: number;
  files: number;
}

/**
 * Ingest lag of a dataset in a family: for each ingest delta written in the last hour, the time from
 * its newest record to the moment its manifest entry made it readable. One manifest query (today's
 * and yesterday's deltas); compacted files are not read, so a family whose deltas are all folded
 * reports its newest compacted file instead.
 */
export async function ingestLag(manifest: ArchiveManifest, dataset: Dataset, family: Family, now: number): Promise<IngestLag | undefined> {
  const deltas = await manifest.deltaFiles(dataset, family, dayOf(now - DAY_MS), dayOf(now));
  const ingested = deltas.filter((f) => f.tier === undefined && f.createdAt >= now - 3_600_000);
  if (ingested.length > 0) {
    const lags = ingested.map((f) => Math.max(0, f.createdAt - f.maxTs));
    const newest = ingested.reduce((a, b) => (b.createdAt > a.createdAt ? b : a));
    return {
      lastDataAt: Math.max(...deltas.map((f) => f.maxTs)),
      meanLagMs: Math.round(lags.reduce((a, b) => a + b, 0) / lags.length),
      currentLagMs: Math.max(0, newest.createdAt - newest.maxTs),
      files: ingested.length,
    };
  }
  const today = await manifest.compactedFilesOfDay(dataset, family, dayOf(now));
  const all = [...deltas, ...today];
  if (all.length === 0) return undefined;
  const newest = all.reduce((a, b) => (b.maxTs > a.maxTs ? b : a));
  const lag = Math.max(0, newest.createdAt - newest.maxTs);
  return { lastDataAt: newest.maxTs, meanLagMs: lag, currentLagMs: lag, files: 0 };
}

/**
 * What an incident's silence cost and what has since been archived inside it, per affected series:
 * the market named, or every market of the venue that has the dataset (a venue-wide trade gap).
 * Records affected are the silence over each series' usual interval that day; records recovered
 * the rows now inside the silence (a late batch). Two or three manifest queries.
 */
export async function incidentRecords(
  manifest: ArchiveManifest,
  family: Family,
  dataset: Dataset,
  symbols: readonly string[],
  start: number,
  end: number,
): Promise<{ affected: number; recovered: number }> {
  const fromDay = dayOf(start - DAY_MS);
  const toDay = dayOf(end);
  const symbol = symbols.length === 1 ? symbols[0] : undefined;
  const files =
    symbol !== undefined
      ? await filesOf(manifest, dataset, family, symbol, fromDay, toDay)
      : await withCadence(
          manifest,
          visibleFiles(await compactedFilesOfDays(manifest, dataset, family, fromDay, toDay), await manifest.deltaFiles(dataset, family, fromDay, toDay)),
        );
  let affected = 0;
  let recovered = 0;
  for (const [name, parts] of bySymbol(files)) {
    if (symbol !== undefined && name !== symbol) continue;
    const hist: Record<string, number> = {};
    for (const part of parts) for (const [b, n] of Object.entries(part.hist)) hist[b] = (hist[b] ?? 0) + n;
    affected += recordsMissed(end - start, observedCadence(hist));
    recovered += rowsInside(parts, start, end);
  }
  return { affected, recovered };
}
