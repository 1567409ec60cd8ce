/**
 * Reading a time window of one symbol. The manifest names the files (no S3 listing); files are
 * read oldest first in groups of time-overlapping files, and reading stops once the page is full,
 * so a default page touches one or two objects. Rows repeated across overlapping files collapse on
 * the dataset's unique key; a lone compacted file is already unique and skips that work.
 */
import { DATASETS, type Dataset, type DatasetDef } from '#schemas/datasets.ts';
import type { Family } from '../venues.ts';
import type { ArchiveDeps, ArchiveFile } from '#ports/archive.ts';
import type { Row, SqlValue } from '#ports/sql.ts';
import { visibleFiles } from './files.ts';
import { dayOf, daysBetween, unsettledFrom } from './layout.ts';
import { whollyBeforeCoverage } from './coverage.ts';
import { dedupeClause } from './dedupe.ts';

export interface WindowRequest {
  dataset: Exclude<Dataset, 'candles_1m'>;
  family: Family;
  /** Omitted for all-symbol reads (the instrument registry). */
  symbol?: string;
  /** Inclusive bounds, epoch ms. */
  from: number;
  to: number;
  /**
   * Keyset: only rows after this position in (ts, unique key) order. A prefix of the key (a
   * transparent cursor's `[ts]` or `[ts, id]`) means after every row that begins with it.
   */
  after?: readonly (number | string)[];
  /** Only rows ahead of this key prefix in reading order (exclusive; JSON reads only). */
  before?: readonly (number | string)[];
  limit: number;
  /** An extra predicate with its own bound parameters (names must not start with `w_`). */
  filter?: { sql: string; params: Record<string, SqlValue> };
}

export interface WindowResult<R extends object = Row> {
  /** The rows as the caller reads them (see SqlSession.query's `R`): the dataset's stored columns. */
  rows: R[];
  /** Objects opened to answer (for tests and benchmarks). */
  filesRead: number;
}

/** The columns a window is ordered by, which a cursor carries: ts, then the unique key. */
export function orderColumns(dataset: Dataset): string[] {
  // A per-symbol read names its symbol; an all-symbol dataset keeps it in the key.
  const def = DATASETS[dataset];
  return ['ts', ...def.uniqueBy.filter((c) => c !== 'ts' && (c !== 'symbol' || !def.perSymbol))];
}

/** Groups of files whose time ranges overlap, oldest first; rows never span two groups. */
export function overlappingGroups(files: readonly ArchiveFile[]): ArchiveFile[][] {
  const groups: ArchiveFile[][] = [];
  let reach = -Infinity;
  for (const file of [...files].sort((a, b) => a.minTs - b.minTs)) {
    if (groups.length > 0 && file.minTs <= reach) groups[groups.length - 1]!.push(file);
    else groups.push([file]);
    reach = Math.max(reach, file.maxTs);
  }
  return groups;
}

/**
 * `(c0, c1, …) > ($w_after0, $w_after1, …)` (or `<`) spelled out, so it works on every engine
 * version; the values are bound as `$<param>0`, `$<param>1`, …
 */
export function keysetSql(columns: readonly string[], comparison: '>' | '<' = '>', param = 'w_after'): string {
  const terms = columns.map((_, i) => {
    const equal = columns.slice(0, i).map((c, j) => `"${c}" = $${param}${j}`);
    return `(${[...equal, `"${columns[i]}" ${comparison} $${param}${i}`].join(' AND ')})`;
  });
  return `(${terms.join(' OR ')})`;
}

/**
 * Up to this many symbols named, a per-symbol dataset's files are listed symbol by symbol (one
 * query each, whatever the days, reading only their items); more, day by day for the whole family
 * (a day of an open hour-tiered day is thousands of items, as many markets as hours).
 */
const LISTED_BY_SYMBOL = 32;

/** The compacted files a window may read: one symbol's, a few named symbols', or the whole family's. */
async function compactedFor(
  deps: ArchiveDeps,
  req: Pick<WindowRequest, 'dataset' | 'family' | 'symbol' | 'from' | 'to'> & { symbols?: readonly string[] },
): Promise<ArchiveFile[]> {
  const def = DATASETS[req.dataset];
  const [fromDay, toDay] = [dayOf(req.from), dayOf(req.to)];
  const listed = (symbol: string | undefined) => deps.manifest.compactedFiles(req.dataset, req.family, symbol, fromDay, toDay);
  if (!def.perSymbol) return listed(undefined);
  if (req.symbol !== undefined) return listed(req.symbol);
  // No per-symbol file holds rows of hours that have not settled: the family's all-symbol files and deltas hold them all.
  if (req.from >= unsettledFrom(deps.clock.now())) return listed(undefined);
  if (req.symbols !== undefined && req.symbols.length <= LISTED_BY_SYMBOL) return (await Promise.all(req.symbols.map(listed))).flat();
  // A whole-family read of a per-symbol dataset gathers every symbol's files, day by day.
  return (await Promise.all(daysBetween(fromDay, toDay).map((day) => deps.manifest.compactedFilesOfDay(req.dataset, req.family, day)))).flat();
}

export async function filesFor(
  deps: ArchiveDeps,
  req: Pick<WindowRequest, 'dataset' | 'family' | 'symbol' | 'from' | 'to'> & { symbols?: readonly string[] },
): Promise<ArchiveFile[]> {
  const [compacted, deltas] = await Promise.all([compactedFor(deps, req), deps.manifest.deltaFiles(req.dataset, req.family, dayOf(req.from), dayOf(req.to))]);
  return visibleFiles(compacted, deltas, req.symbol).filter((f) => f.maxTs >= req.from && f.minTs <= req.to);
}

/** Compacted files of a per-symbol dataset: one symbol's own (and family-wide ones from before the split), or every symbol's, day by day. */
export async function compactedOf(
  deps: ArchiveDeps,
  dataset: Dataset,
  family: Family,
  symbol: string | undefined,
  fromDay: string,
  toDay: string,
): Promise<ArchiveFile[]> {
  if (symbol === undefined) {
    return (await Promise.all(daysBetween(fromDay, toDay).map((day) => deps.manifest.compactedFilesOfDay(dataset, family, day)))).flat();
  }
  const [own, familyWide] = await Promise.all([
    deps.manifest.compactedFiles(dataset, family, symbol, fromDay, toDay),
    (DATASETS[dataset] as DatasetDef).familyWideBefore ? deps.manifest.compactedFiles(dataset, family, undefined, fromDay, toDay) : [],
  ]);
  return [...own, ...familyWide];
}

/** A file to scan, and the symbols whose rows in it are read from elsewhere (skipped). */
interface Scan {
  file: ArchiveFile;
  skip: readonly string[];
}

/**
 * The files to scan for `symbol` (or, undefined, for every symbol): a file is dropped when every
 * symbol asked for is read from elsewhere (`elsewhere` names those symbols, or `all`), and scanned
 * without those symbols' rows when only some are.
 */
export function scansOf(files: readonly ArchiveFile[], symbol: string | undefined, elsewhere: (file: ArchiveFile) => readonly string[] | 'all'): Scan[] {
  return files.flatMap((file) => {
    const skip = elsewhere(file);
    if (skip === 'all') return [];
    if (symbol !== undefined) return skip.includes(symbol) ? [] : [{ file, skip: [] }];
    return file.symbols.every((s) => skip.includes(s)) ? [] : [{ file, skip: skip.filter((s) => file.symbols.includes(s)) }];
  });
}

/** A relation over the scans' files (parameter `$<param>`), without the rows each scan skips. */
export async function scanSql(deps: ArchiveDeps, scans: readonly Scan[], param: string, params: Record<string, SqlValue>): Promise<string> {
  const paths = await deps.files.paths(scans.map((s) => s.file));
  params[param] = paths;
  const skipped = scans.flatMap((s, i) => s.skip.map((symbol) => `${paths[i]}#${symbol}`));
  if (skipped.length === 0) return `read_parquet($${param}, union_by_name = true)`;
  params[`${param}_skip`] = skipped;
  return `(SELECT * EXCLUDE (filename) FROM read_parquet($${param}, union_by_name = true, filename = true)
           WHERE NOT list_contains($${param}_skip, filename || '#' || symbol))`;
}

export type WindowSourceRequest = Pick<WindowRequest, 'dataset' | 'family' | 'symbol' | 'from' | 'to'> & { symbols?: readonly string[] };

const ofSymbols = (f: ArchiveFile, symbols: readonly string[] | undefined) =>
  !symbols || (f.symbol !== undefined ? symbols.includes(f.symbol) : f.symbols.some((s) => symbols.includes(s)));

/**
 * Whether two of the files may hold the same row, so a read must collapse duplicates: any delta
 * (a batch may land twice), or two compacted files whose time ranges overlap and whose symbols
 * may meet (an all-symbol file meets every symbol). The visible compacted files of one symbol
 * otherwise hold disjoint slots (hours, days), and those of different symbols disjoint rows, so
 * a page of a day's hour files is read without the window that deduplicates (it was most of the
 * cost of a dry-run's page).
 */
export function mayShareRows(files: readonly ArchiveFile[]): boolean {
  if (files.length < 2) return false;
  if (files.some((f) => f.kind !== 'compacted')) return true;
  const bySymbol = new Map<string, ArchiveFile[]>();
  const shared: ArchiveFile[] = [];
  for (const f of files) {
    if (f.symbol === undefined) shared.push(f);
    else bySymbol.set(f.symbol, [...(bySymbol.get(f.symbol) ?? []), f]);
  }
  const meetsShared = shared.length > 0 && overlappingGroups(files).some((group) => group.length > 1 && group.some((f) => f.symbol === undefined));
  return meetsShared || [...bySymbol.values()].some((own) => overlappingGroups(own).some((group) => group.length > 1));
}

/** The files holding a window's rows (of the given symbols only, when named). */
export async function windowFiles(deps: ArchiveDeps, req: WindowSourceRequest): Promise<ArchiveFile[]> {
  if (req.from > req.to || whollyBeforeCoverage(req.dataset, req.family, req.to)) return [];
  return (await filesFor(deps, req)).filter((f) => ofSymbols(f, req.symbols));
}

/**
 * Every row of one symbol's window as a SQL subquery (duplicates collapsed), for aggregations over
 * the whole window. Undefined when no file holds any; parameter names start with `s_`.
 */
export async function windowSource(
  deps: ArchiveDeps,
  req: WindowSourceRequest,
  /** Files already listed for a wider window (see windowFiles): a scan paging through it asks the manifest once. */
  listed?: readonly ArchiveFile[],
): Promise<{ sql: string; params: Record<string, SqlValue> } | undefined> {
  if (req.from > req.to || whollyBeforeCoverage(req.dataset, req.family, req.to)) return undefined;
  const files = listed ? listed.filter((f) => f.maxTs >= req.from && f.minTs <= req.to && ofSymbols(f, req.symbols)) : await windowFiles(deps, req);
  if (files.length === 0) return undefined;
  const params: Record<string, SqlValue> = { s_files: await deps.files.paths(files), s_from: req.from, s_to: req.to };
  const where = ['ts BETWEEN $s_from AND $s_to'];
  if (req.symbol !== undefined) {
    where.push('symbol = $s_symbol');
    params.s_symbol = req.symbol;
  }
  if (req.symbols !== undefined) {
    where.push('list_contains($s_symbols, symbol)');
    params.s_symbols = req.symbols;
  }
  const dedupe = mayShareRows(files) ? dedupeClause(req.dataset) : '';
  return { sql: `SELECT * FROM read_parquet($s_files, union_by_name = true) WHERE ${where.join(' AND ')} ${dedupe}`, params };
}
