/**
 * A window read as pages: rows as stored or as JSON, read ahead one row past the page to decide
 * `has_more`, and, for transparent cursors, never ending a page inside the run one position names.
 */
import { DATASETS, type Dataset } from '#schemas/datasets.ts';
import type { ArchiveDeps, ArchiveFile } from '#ports/archive.ts';
import type { Row, SqlValue } from '#ports/sql.ts';
import { sameFiles } from './files.ts';
import { whollyBeforeCoverage } from './coverage.ts';
import { dedupeClause } from './dedupe.ts';
import { type WindowRequest, type WindowResult, filesFor, keysetSql, orderColumns, overlappingGroups } from './read.ts';

/** Every column of a dataset as a struct expression: the row as stored. */
function allColumns(dataset: Dataset): string {
  return `{${DATASETS[dataset].columns.map((c) => `'${c.name}': "${c.name}"`).join(', ')}}`;
}

/** A window's rows as stored, oldest first unless `direction` is `desc` (see readWindowJson). */
export async function readWindow<R extends object = Row>(deps: ArchiveDeps, req: WindowRequest & { direction?: 'asc' | 'desc' }): Promise<WindowResult<R>> {
  const result = await readWindowJson(deps, { ...req, projection: allColumns(req.dataset) });
  const rows: R[] = JSON.parse(`[${result.json}]`);
  return { rows, filesRead: result.filesRead };
}

/** The newest stored row of one symbol's dataset in [from, to], read newest file first. */
export async function newestRow(deps: ArchiveDeps, req: Pick<WindowRequest, 'dataset' | 'family' | 'symbol' | 'from' | 'to'>): Promise<Row | undefined> {
  return (await readWindow(deps, { ...req, limit: 1, direction: 'desc' })).rows[0];
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
export async function readAhead<T>(
  deps: ArchiveDeps,
  key: string,
  lookup: () => Promise<ArchiveFile[]>,
  read: (files: readonly ArchiveFile[]) => Promise<T>,
  rules: {
    worthGuessing?: (files: readonly ArchiveFile[]) => boolean;
    keeps: (result: T, files: readonly ArchiveFile[], guessed: readonly ArchiveFile[]) => boolean;
  },
): Promise<T> {
  const remembered = deps.fileLists?.get(key);
  const guessing = remembered && (remembered.confirmed || rules.worthGuessing?.(remembered.files)) ? remembered.files : undefined;
  const early =
    guessing
    && read(guessing).then(
      (result) => ({ result }),
      () => undefined,
    );
  const files = await lookup();
  deps.fileLists?.set(key, files);
  const guessed = early && (await early);
  if (guessed && rules.keeps(guessed.result, files, guessing!)) return guessed.result;
  return read(files);
}

/** A read that opens every file it is given keeps its early result when the answer lists the same files. */
export const sameListing = { keeps: (_result: unknown, files: readonly ArchiveFile[], guessed: readonly ArchiveFile[]) => sameFiles(files, guessed) };

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
  const page = await readAhead(
    deps,
    ['window', req.dataset, req.family, req.symbol ?? '', req.from, req.to].join('|'),
    () => filesFor(deps, req),
    (files) => pageOf(deps, req, pageGroups(req, files)),
    {
      worthGuessing: (files) => pageGroups(req, files)[0]?.every((f) => f.kind === 'compacted') ?? false,
      keeps: (early, files) => readSameGroups(early.groups, early.result.more, pageGroups(req, files)),
    },
  );
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
  const groups = overlappingGroups(
    files.filter((f) =>
      req.direction === 'desc'
        ? f.minTs <= (after ? Math.min(req.to, Number(after[0])) : req.to)
        : f.maxTs >= (after ? Math.max(req.from, Number(after[0])) : req.from),
    ),
  );
  return req.direction === 'desc' ? groups.reverse() : groups;
}

/** Whether reading `groups` gives the page read from `read`: the same files in each group read, and no group beyond them unless the page stopped early. */
function readSameGroups(read: readonly ArchiveFile[][], stoppedEarly: boolean, groups: readonly ArchiveFile[][]): boolean {
  if (!stoppedEarly && groups.length !== read.length) return false;
  return read.length <= groups.length && read.every((group, i) => sameFiles(group, groups[i]!));
}

/** A page read from the given groups, oldest first (newest first for `desc`), stopping once full; and the groups it read. */
async function pageOf(
  deps: ArchiveDeps,
  req: JsonWindowRequest,
  groups: readonly ArchiveFile[][],
): Promise<{ groups: ArchiveFile[][]; result: JsonWindowResult }> {
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
      position.forEach((value, i) => {
        params[`w_after${i}`] = value;
      });
    }
    if (req.before) {
      where.push(keysetSql(order.slice(0, req.before.length), desc ? '>' : '<', 'w_before'));
      req.before.forEach((value, i) => {
        params[`w_before${i}`] = value;
      });
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
