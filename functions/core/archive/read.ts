/**
 * Reading a time window of one symbol. The manifest names the files (no S3 listing); files are
 * read oldest first in groups of time-overlapping files, and reading stops once the page is full,
 * so a default page touches one or two objects. Rows repeated across overlapping files collapse on
 * the dataset's unique key; a lone compacted file is already unique and skips that work.
 */
import { DATASETS, type Dataset, type DatasetDef } from '../../../schemas/datasets.ts';
import type { Family } from '../venues.ts';
import type { ArchiveDeps, ArchiveFile } from '../../ports/archive.ts';
import type { Row, SqlValue } from '../../ports/sql.ts';
import { sameFiles, supersedes, visibleFiles } from './files.ts';
import { dayOf, daysBetween, unsettledFrom } from './layout.ts';
import { whollyBeforeCoverage } from './coverage.ts';
import { candlesFromTradesSql } from './sql.ts';
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

export interface WindowResult {
  rows: Row[];
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
function keysetSql(columns: readonly string[], comparison: '>' | '<' = '>', param = 'w_after'): string {
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
async function compactedFor(deps: ArchiveDeps, req: Pick<WindowRequest, 'dataset' | 'family' | 'symbol' | 'from' | 'to'> & { symbols?: readonly string[] }): Promise<ArchiveFile[]> {
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

async function filesFor(deps: ArchiveDeps, req: Pick<WindowRequest, 'dataset' | 'family' | 'symbol' | 'from' | 'to'> & { symbols?: readonly string[] }): Promise<ArchiveFile[]> {
  const [compacted, deltas] = await Promise.all([compactedFor(deps, req), deps.manifest.deltaFiles(req.dataset, req.family, dayOf(req.from), dayOf(req.to))]);
  return visibleFiles(compacted, deltas, req.symbol).filter((f) => f.maxTs >= req.from && f.minTs <= req.to);
}

/** Every column of a dataset as a struct expression: the row as stored. */
function allColumns(dataset: Dataset): string {
  return `{${DATASETS[dataset].columns.map((c) => `'${c.name}': "${c.name}"`).join(', ')}}`;
}

/** A window's rows as stored, oldest first unless `direction` is `desc` (see readWindowJson). */
export async function readWindow(deps: ArchiveDeps, req: WindowRequest & { direction?: 'asc' | 'desc' }): Promise<WindowResult> {
  const result = await readWindowJson(deps, { ...req, projection: allColumns(req.dataset) });
  return { rows: JSON.parse(`[${result.json}]`) as Row[], filesRead: result.filesRead };
}

/** The newest stored row of one symbol's dataset in [from, to], read newest file first. */
export async function newestRow(deps: ArchiveDeps, req: Pick<WindowRequest, 'dataset' | 'family' | 'symbol' | 'from' | 'to'>): Promise<Row | undefined> {
  return (await readWindow(deps, { ...req, limit: 1, direction: 'desc' })).rows[0];
}

/** Compacted files of a per-symbol dataset: one symbol's own (and family-wide ones from before the split), or every symbol's, day by day. */
async function compactedOf(deps: ArchiveDeps, dataset: Dataset, family: Family, symbol: string | undefined, fromDay: string, toDay: string): Promise<ArchiveFile[]> {
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
interface Scan { file: ArchiveFile; skip: readonly string[] }

/**
 * The files to scan for `symbol` (or, undefined, for every symbol): a file is dropped when every
 * symbol asked for is read from elsewhere (`elsewhere` names those symbols, or `all`), and scanned
 * without those symbols' rows when only some are.
 */
function scansOf(files: readonly ArchiveFile[], symbol: string | undefined, elsewhere: (file: ArchiveFile) => readonly string[] | 'all'): Scan[] {
  return files.flatMap((file) => {
    const skip = elsewhere(file);
    if (skip === 'all') return [];
    if (symbol !== undefined) return skip.includes(symbol) ? [] : [{ file, skip: [] }];
    return file.symbols.every((s) => skip.includes(s)) ? [] : [{ file, skip: skip.filter((s) => file.symbols.includes(s)) }];
  });
}

/** A relation over the scans' files (parameter `$<param>`), without the rows each scan skips. */
async function scanSql(deps: ArchiveDeps, scans: readonly Scan[], param: string, params: Record<string, SqlValue>): Promise<string> {
  const paths = await deps.files.paths(scans.map((s) => s.file));
  params[param] = paths;
  const skipped = scans.flatMap((s, i) => s.skip.map((symbol) => `${paths[i]}#${symbol}`));
  if (skipped.length === 0) return `read_parquet($${param}, union_by_name = true)`;
  params[`${param}_skip`] = skipped;
  return `(SELECT * EXCLUDE (filename) FROM read_parquet($${param}, union_by_name = true, filename = true)
           WHERE NOT list_contains($${param}_skip, filename || '#' || symbol))`;
}

export interface MinuteCandleSource {
  /** One row per symbol and minute. */
  sql: string;
  params: Record<string, SqlValue>;
  /** Objects the source opens (for tests and benchmarks). */
  filesRead: number;
  /**
   * When a minute may come from several files (the live tail beside the stored candles), the rows
   * before they merge, with each piece's first and last trade time (open_ts, close_ts): a rollup to
   * wider buckets aggregates these once instead of merging minutes first.
   */
  pieces?: string;
}

/**
 * The 1-minute candles of one symbol in [from, to] as a SQL subquery: the symbol's compacted candle
 * files, plus candles computed on the fly from the trade deltas no candle file of the symbol covers
 * yet (the open hour, and the last minute or so). Partial minutes from the two sources merge (first
 * open, last close, extremes, sums). Columns: symbol, ts, open, high, low, close, volume,
 * quote_volume, trade_count. Undefined when no file holds any; parameter names start with `m_`.
 *
 * Candle files are per symbol, so a one-symbol read opens that symbol's files (a file a day, an hour
 * file per closed hour of the open day) and the deltas of the open hour, whatever the number of
 * markets. Family-wide candle files from before the split are read for a symbol where it has no file
 * of its own for the slot.
 */
export async function minuteCandleSource(deps: ArchiveDeps, req: MinuteCandleRequest): Promise<MinuteCandleSource | undefined> {
  if (req.from > req.to || whollyBeforeCoverage('candles_1m', req.family, req.to)) return undefined;
  return candleSourceOf(deps, req, await candleListing(deps, req));
}

/**
 * `use` run on the window's 1-minute candle source (minuteCandleSource), read ahead of the manifest
 * (readAhead) when the window's files have not been changing: the lookup and the query overlap.
 * `use` may run twice (on the remembered files, then on the answer's), so it only reads.
 */
export async function withMinuteCandles<T>(deps: ArchiveDeps, req: MinuteCandleRequest, use: (source: MinuteCandleSource | undefined) => Promise<T>): Promise<T> {
  if (req.from > req.to || whollyBeforeCoverage('candles_1m', req.family, req.to)) return use(undefined);
  return readAhead(deps, ['candles', req.family, req.symbol ?? '', req.from, req.to].join('|'),
    () => candleListing(deps, req), async (files) => use(await candleSourceOf(deps, req, files)), sameListing);
}

type MinuteCandleRequest = { family: Family; symbol?: string; from: number; to: number };

/** The files a window's 1-minute candles may come from: candle files, and the family's trade deltas. */
async function candleListing(deps: ArchiveDeps, req: MinuteCandleRequest): Promise<ArchiveFile[]> {
  const fromDay = dayOf(req.from);
  const toDay = dayOf(req.to);
  return (await Promise.all([
    compactedOf(deps, 'candles_1m', req.family, req.symbol, fromDay, toDay),
    deps.manifest.deltaFiles('trades', req.family, fromDay, toDay),
  ])).flat();
}

async function candleSourceOf(deps: ArchiveDeps, req: MinuteCandleRequest, listing: readonly ArchiveFile[]): Promise<MinuteCandleSource | undefined> {
  const { symbol } = req;
  const candleFiles = listing.filter((f) => f.dataset === 'candles_1m');
  const tradeDeltas = listing.filter((f) => f.dataset === 'trades');
  const winners = visibleFiles(candleFiles, []);
  const own = winners.filter((f) => f.symbol !== undefined);
  // The trade deltas each visible candle file covers, for its symbol (a family-wide file: for all).
  const coveredFor = new Map<string, Set<string> | 'all'>();
  for (const file of winners) {
    for (const id of file.replaces) {
      const covered = coveredFor.get(id);
      if (file.symbol === undefined) coveredFor.set(id, 'all');
      else if (covered !== 'all') coveredFor.set(id, (covered ?? new Set<string>()).add(file.symbol));
    }
  }
  const candles = [
    ...scansOf(own.filter((f) => f.maxTs >= req.from - 60_000 && f.minTs <= req.to), symbol, () => []),
    ...scansOf(
      winners.filter((f) => f.symbol === undefined && f.maxTs >= req.from - 60_000 && f.minTs <= req.to), symbol,
      (file) => own.filter((g) => supersedes(g, file)).map((g) => g.symbol!),
    ),
  ];
  // Trade deltas no candle file covers yet (ingest deltas merged into a delta compaction count once, through it).
  const tail = scansOf(
    visibleFiles([], tradeDeltas, symbol).filter((d) => d.maxTs >= req.from && d.minTs <= req.to + 60_000), symbol,
    (delta) => { const covered = coveredFor.get(delta.fileId); return covered === 'all' ? 'all' : [...covered ?? []]; },
  );
  if (candles.length === 0 && tail.length === 0) return undefined;

  // Without a symbol: every symbol of the family (breadth reads the whole registry at once).
  const params: Record<string, SqlValue> = { m_from: req.from, m_to: req.to };
  const bySymbol = symbol === undefined ? 'TRUE' : 'symbol = $m_symbol';
  if (symbol !== undefined) params.m_symbol = symbol;
  const parts: string[] = [];
  if (candles.length > 0) {
    parts.push(`SELECT * FROM ${await scanSql(deps, candles, 'm_candles', params)} WHERE ${bySymbol} AND ts BETWEEN $m_from AND $m_to`);
  }
  if (tail.length > 0) {
    const trades = `(SELECT * FROM ${await scanSql(deps, tail, 'm_tail', params)} WHERE ${bySymbol} AND ts BETWEEN $m_from AND $m_to + 59999
                     ${dedupeClause('trades')})`;
    parts.push(`SELECT * FROM (${candlesFromTradesSql(trades)}) WHERE ts BETWEEN $m_from AND $m_to`);
  }
  const filesRead = candles.length + tail.length;
  // Without a tail every minute of a symbol comes from one file (day files and hour files hold
  // disjoint minutes): nothing to merge. A day file beside an hour file of the same day and symbol
  // holds other rows of the same minutes: after tiered compaction was deployed onto an archive
  // compacted the old way, or late rows folded after candles were split per symbol.
  const files = candles.map((c) => c.file);
  const sameSymbol = (f: ArchiveFile, g: ArchiveFile) => f.symbol === undefined || g.symbol === undefined || f.symbol === g.symbol;
  const mixedDay = files.some((f) => f.tier === undefined && files.some((g) => g.day === f.day && g.tier === 'hour' && sameSymbol(f, g)));
  if (parts.length === 1 && tail.length === 0 && !mixedDay) {
    return { sql: `SELECT symbol, ts, open, high, low, close, volume, quote_volume, trade_count FROM (${parts[0]})`, params, filesRead };
  }
  const pieces = parts.join(' UNION ALL BY NAME ');
  return {
    sql: `SELECT symbol, ts, first(open ORDER BY open_ts) AS open, max(high) AS high, min(low) AS low,
                 last(close ORDER BY close_ts) AS close, sum(volume) AS volume, sum(quote_volume) AS quote_volume,
                 sum(trade_count) AS trade_count
          FROM (${pieces}) GROUP BY symbol, ts`,
    params,
    filesRead,
    pieces: `SELECT symbol, ts, open, high, low, close, volume, quote_volume, trade_count, open_ts, close_ts FROM (${pieces})`,
  };
}

/** The 1-minute candles of one symbol in [from, to], oldest first. */
export function readMinuteCandles(deps: ArchiveDeps, req: { family: Family; symbol: string; from: number; to: number }): Promise<Row[]> {
  return withMinuteCandles(deps, req, async (source) => source ? deps.sql.query({ sql: `${source.sql} ORDER BY ts`, params: source.params }) : []);
}

export interface JsonWindowRequest extends WindowRequest {
  /**
   * A DuckDB struct expression over the dataset's columns that shapes one response row (the route's
   * wire format), e.g. `{symbol: symbol, price: price}`. Written by the route code, never by a client.
   */
  projection: string;
  /** `desc` serves the newest rows first (and `after` then means "older than"). */
  direction?: 'asc' | 'desc';
}

export interface JsonWindowResult {
  /** The page's rows as JSON objects joined by commas (wrap in `[` `]`). */
  json: string;
  count: number;
  /** Position of the last row served, for the next cursor; undefined on an empty page. */
  last?: (number | string)[];
  /** True when rows beyond this page exist in the window. */
  more: boolean;
  /** Position of the first row beyond the page, when `more`. */
  next?: (number | string)[];
  filesRead: number;
}

/**
 * Runs `read` on the manifest's answer to `lookup`, started ahead on the answer the container
 * remembers for `key` (`deps.fileLists`) while the manifest is asked, so the lookup and the read
 * overlap instead of adding up. The early result is kept only when `keeps` finds that the answer
 * would give the same (reads are functions of the files they open, and a file's content never
 * changes under its id and ETag); otherwise `read` runs again on the answer. A guess is started
 * when `worthGuessing` says the remembered list is likely to hold (a list the last two lookups
 * agreed on is); a failed guess (a remembered file since deleted, say) costs only time.
 */
async function readAhead<T>(
  deps: ArchiveDeps, key: string, lookup: () => Promise<ArchiveFile[]>, read: (files: readonly ArchiveFile[]) => Promise<T>,
  rules: { worthGuessing?: (files: readonly ArchiveFile[]) => boolean; keeps: (result: T, files: readonly ArchiveFile[], guessed: readonly ArchiveFile[]) => boolean },
): Promise<T> {
  const remembered = deps.fileLists?.get(key);
  const guessing = remembered && (remembered.confirmed || rules.worthGuessing?.(remembered.files)) ? remembered.files : undefined;
  const early = guessing && read(guessing).then((result) => ({ result }), () => undefined);
  const files = await lookup();
  deps.fileLists?.set(key, files);
  const guessed = early && await early;
  if (guessed && rules.keeps(guessed.result, files, guessing!)) return guessed.result;
  return read(files);
}

/** A read that opens every file it is given keeps its early result when the answer lists the same files. */
const sameListing = { keeps: (_result: unknown, files: readonly ArchiveFile[], guessed: readonly ArchiveFile[]) => sameFiles(files, guessed) };

/**
 * Like readWindow, but DuckDB shapes each row into its JSON wire form and joins the page into one
 * string, so no row is ever turned into a JavaScript object. One row beyond `limit` is looked at
 * to tell whether the window goes on.
 *
 * Read ahead of the manifest (readAhead) also when the first group of files the page would read
 * holds compacted files only (settled rows; the live tail's deltas change every second): a page
 * is a function of the groups it read, in order, so it is kept when the answer shows the same files
 * in each of them, and no group beyond them if it read to the end.
 */
export async function readWindowJson(deps: ArchiveDeps, req: JsonWindowRequest): Promise<JsonWindowResult> {
  if (req.limit <= 0 || req.from > req.to || whollyBeforeCoverage(req.dataset, req.family, req.to)) return { json: '', count: 0, more: false, filesRead: 0 };
  const page = await readAhead(deps, ['window', req.dataset, req.family, req.symbol ?? '', req.from, req.to].join('|'),
    () => filesFor(deps, req), (files) => pageOf(deps, req, pageGroups(req, files)), {
      worthGuessing: (files) => pageGroups(req, files)[0]?.every((f) => f.kind === 'compacted') ?? false,
      keeps: (early, files) => readSameGroups(early.groups, early.result.more, pageGroups(req, files)),
    });
  return page.result;
}

/** Runs of rows larger than this are not served whole (no market has a trade, a liquidation or an instant of that many). */
const LONGEST_RUN = 10_000;

/**
 * Like readWindowJson, but a page never splits a run of rows that share the first `prefix` columns
 * of the window's order (ts, then the unique key): the key a transparent cursor names (`<ts_ms>`,
 * `<ts_ms>_<id>`), which must name a position no row of a later page shares. A page that would end
 * inside a run ends before it, so it may hold fewer than `limit` rows and still go on; a run that is
 * the whole page is served whole, and `more` is then true whether or not rows follow it (the next
 * page may be empty). `last` is the prefix of the page's last row. With the whole key as the
 * prefix (trades: ts and trade id), this is readWindowJson.
 */
export async function readWholeRuns(deps: ArchiveDeps, req: JsonWindowRequest, prefix: number): Promise<JsonWindowResult> {
  const page = await readWindowJson(deps, req);
  const runOf = (key: readonly (number | string)[]) => key.slice(0, prefix);
  const sameRun = (a: readonly (number | string)[], b: readonly (number | string)[]) => runOf(a).every((v, i) => v === b[i]);
  if (!page.more || !page.last || !page.next || !sameRun(page.last, page.next)) return { ...page, ...(page.last && { last: runOf(page.last) }) };
  const run = runOf(page.last);
  const before = await readWindowJson(deps, { ...req, before: run });
  if (before.count > 0) return { ...before, last: runOf(before.last!), more: true };
  const columns = orderColumns(req.dataset).slice(0, prefix);
  const inRun = { sql: columns.map((c, i) => `"${c}" = $r_run${i}`).join(' AND '), params: Object.fromEntries(run.map((v, i) => [`r_run${i}`, v])) };
  const filter = req.filter ? { sql: `(${req.filter.sql}) AND ${inRun.sql}`, params: { ...req.filter.params, ...inRun.params } } : inRun;
  const whole = await readWindowJson(deps, { ...req, filter, limit: LONGEST_RUN });
  return { ...whole, last: run, more: true };
}

/** The groups of files a page reads, in reading order. */
function pageGroups(req: JsonWindowRequest, files: readonly ArchiveFile[]): ArchiveFile[][] {
  const after = req.after;
  const groups = overlappingGroups(files.filter((f) => req.direction === 'desc'
    ? f.minTs <= (after ? Math.min(req.to, Number(after[0])) : req.to)
    : f.maxTs >= (after ? Math.max(req.from, Number(after[0])) : req.from)));
  return req.direction === 'desc' ? groups.reverse() : groups;
}

/** Whether reading `groups` gives the page read from `read`: the same files in each group read, and no group beyond them unless the page stopped early. */
function readSameGroups(read: readonly ArchiveFile[][], stoppedEarly: boolean, groups: readonly ArchiveFile[][]): boolean {
  if (!stoppedEarly && groups.length !== read.length) return false;
  return read.length <= groups.length && read.every((group, i) => sameFiles(group, groups[i]!));
}

/** A page read from the given groups, oldest first (newest first for `desc`), stopping once full; and the groups it read. */
async function pageOf(deps: ArchiveDeps, req: JsonWindowRequest, groups: readonly ArchiveFile[][]): Promise<{ groups: ArchiveFile[][]; result: JsonWindowResult }> {
  const order = orderColumns(req.dataset);
  const desc = req.direction === 'desc';
  const parts: string[] = [];
  let count = 0;
  let last: (number | string)[] | undefined;
  let filesRead = 0;
  const read: ArchiveFile[][] = [];
  const orderSql = order.map((c) => `"${c}"${desc ? ' DESC' : ''}`).join(', ');
  for (const group of groups) {
    const take = req.limit - count;
    if (take < 0) break;
    read.push(group);
    const paths = await deps.files.paths(group);
    filesRead += group.length;
    const where = ['ts BETWEEN $w_from AND $w_to'];
    const params: Record<string, SqlValue> = { w_files: paths, w_from: req.from, w_to: req.to, w_fetch: take + 1, w_take: take };
    if (req.symbol !== undefined) {
      where.push('symbol = $w_symbol');
      params.w_symbol = req.symbol;
    }
    const position = last ?? req.after;
    if (position) {
      where.push(keysetSql(order.slice(0, position.length), desc ? '<' : '>'));
      position.forEach((value, i) => { params[`w_after${i}`] = value; });
    }
    if (req.before) {
      where.push(keysetSql(order.slice(0, req.before.length), desc ? '>' : '<', 'w_before'));
      req.before.forEach((value, i) => { params[`w_before${i}`] = value; });
    }
    if (req.filter) {
      where.push(`(${req.filter.sql})`);
      Object.assign(params, req.filter.params);
    }
    const dedupe = group.length > 1 ? dedupeClause(req.dataset) : '';
    const [result] = await deps.sql.query({
      sql: `WITH page AS (
              SELECT *, row_number() OVER (ORDER BY ${orderSql}) AS w_rn FROM (
                SELECT * FROM read_parquet($w_files, union_by_name = true) WHERE ${where.join(' AND ')} ${dedupe}
                ORDER BY ${orderSql} LIMIT $w_fetch))
            SELECT string_agg(to_json(${req.projection}), ',' ORDER BY w_rn) FILTER (WHERE w_rn <= $w_take) AS json,
                   count(*) AS fetched,
                   -- The page's last key: the taken row numbered highest (an ordered aggregate would sort again).
                   ${order.map((c, i) => `max_by("${c}", w_rn) FILTER (WHERE w_rn <= $w_take) AS w_last${i}`).join(', ')},
                   ${order.map((c, i) => `max_by("${c}", w_rn) FILTER (WHERE w_rn = $w_fetch) AS w_next${i}`).join(', ')}
            FROM page`,
      params,
    });
    const fetched = Number(result?.fetched ?? 0);
    const served = Math.min(fetched, take);
    if (served > 0) {
      parts.push(String(result!.json));
      count += served;
      last = order.map((_, i) => result![`w_last${i}`] as number | string);
    }
    if (fetched > take) {
      const next = order.map((_, i) => result![`w_next${i}`] as number | string);
      return { groups: read, result: { json: parts.join(','), count, last, more: true, next, filesRead } };
    }
  }
  return { groups: read, result: { json: parts.join(','), count, last, more: false, filesRead } };
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
  deps: ArchiveDeps, req: WindowSourceRequest,
  /** Files already listed for a wider window (see windowFiles): a scan paging through it asks the manifest once. */
  listed?: readonly ArchiveFile[],
): Promise<{ sql: string; params: Record<string, SqlValue> } | undefined> {
  if (req.from > req.to || whollyBeforeCoverage(req.dataset, req.family, req.to)) return undefined;
  const files = listed
    ? listed.filter((f) => f.maxTs >= req.from && f.minTs <= req.to && ofSymbols(f, req.symbols))
    : await windowFiles(deps, req);
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
