/**
 * Reading a time window of one symbol. The manifest names the files (no S3 listing); files are
 * read oldest first in groups of time-overlapping files, and reading stops once the page is full,
 * so a default page touches one or two objects. Rows repeated across overlapping files collapse on
 * the dataset's unique key; a lone compacted file is already unique and skips that work.
 */
import { DATASETS, type Dataset } from '../../../schemas/datasets.ts';
import type { Family } from '../venues.ts';
import type { ArchiveFile } from '../../ports/archive.ts';
import type { Row, SqlValue } from '../../ports/sql.ts';
import type { ArchiveDeps } from './deps.ts';
import { visibleFiles } from './files.ts';
import { dayOf } from './layout.ts';
import { whollyBeforeCoverage } from './coverage.ts';
import { candlesFromTradesSql } from './sql.ts';

export interface WindowRequest {
  dataset: Exclude<Dataset, 'candles_1m'>;
  family: Family;
  /** Omitted for all-symbol reads (the instrument registry). */
  symbol?: string;
  /** Inclusive bounds, epoch ms. */
  from: number;
  to: number;
  /** Keyset: only rows after this position in (ts, unique key) order. */
  after?: readonly (number | string)[];
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
  return ['ts', ...DATASETS[dataset].uniqueBy.filter((c) => c !== 'ts' && c !== 'symbol')];
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

/** `(c0, c1, …) > ($w_after0, $w_after1, …)` spelled out, so it works on every engine version. */
function keysetSql(columns: readonly string[]): string {
  const terms = columns.map((_, i) => {
    const equal = columns.slice(0, i).map((c, j) => `"${c}" = $w_after${j}`);
    return `(${[...equal, `"${columns[i]}" > $w_after${i}`].join(' AND ')})`;
  });
  return `(${terms.join(' OR ')})`;
}

async function filesFor(deps: ArchiveDeps, req: Pick<WindowRequest, 'dataset' | 'family' | 'symbol' | 'from' | 'to'>): Promise<ArchiveFile[]> {
  const def = DATASETS[req.dataset];
  const fromDay = dayOf(req.from);
  const toDay = dayOf(req.to);
  const symbol = def.perSymbol ? req.symbol : undefined;
  const [compacted, deltas] = await Promise.all([
    deps.manifest.compactedFiles(req.dataset, req.family, symbol, fromDay, toDay),
    deps.manifest.deltaFiles(req.dataset, req.family, fromDay, toDay),
  ]);
  return visibleFiles(compacted, deltas, req.symbol).filter((f) => f.maxTs >= req.from && f.minTs <= req.to);
}

export async function readWindow(deps: ArchiveDeps, req: WindowRequest): Promise<WindowResult> {
  if (req.limit <= 0 || req.from > req.to || whollyBeforeCoverage(req.dataset, req.family, req.to)) return { rows: [], filesRead: 0 };
  const def = DATASETS[req.dataset];
  const order = orderColumns(req.dataset);
  const after = req.after;
  const startTs = after ? Math.max(req.from, Number(after[0])) : req.from;
  const files = (await filesFor(deps, req)).filter((f) => f.maxTs >= startTs);

  const rows: Row[] = [];
  let filesRead = 0;
  for (const group of overlappingGroups(files)) {
    if (rows.length >= req.limit) break;
    const paths = await deps.files.paths(group);
    filesRead += group.length;
    const where = ['ts BETWEEN $w_from AND $w_to'];
    const params: Record<string, SqlValue> = { w_files: paths, w_from: req.from, w_to: req.to, w_limit: req.limit - rows.length };
    if (req.symbol !== undefined) {
      where.push('symbol = $w_symbol');
      params.w_symbol = req.symbol;
    }
    if (after) {
      where.push(keysetSql(order));
      after.forEach((value, i) => { params[`w_after${i}`] = value; });
    }
    if (req.filter) {
      where.push(`(${req.filter.sql})`);
      Object.assign(params, req.filter.params);
    }
    const dedupe = group.length > 1 ? `QUALIFY row_number() OVER (PARTITION BY ${def.uniqueBy.map((c) => `"${c}"`).join(', ')} ORDER BY ts) = 1` : '';
    rows.push(...await deps.sql.query({
      sql: `SELECT * FROM read_parquet($w_files, union_by_name = true) WHERE ${where.join(' AND ')} ${dedupe}
            ORDER BY ${order.map((c) => `"${c}"`).join(', ')} LIMIT $w_limit`,
      params,
    }));
  }
  return { rows, filesRead };
}

/**
 * 1-minute candles of one symbol in [from, to]: the compacted candle files, plus candles computed
 * on the fly from trade deltas no candle file covers yet. Partial minutes from the two sources
 * merge (first open, last close, extremes, sums).
 */
export async function readMinuteCandles(deps: ArchiveDeps, req: { family: Family; symbol: string; from: number; to: number }): Promise<Row[]> {
  if (req.from > req.to || whollyBeforeCoverage('candles_1m', req.family, req.to)) return [];
  const fromDay = dayOf(req.from);
  const toDay = dayOf(req.to);
  const [candleFiles, tradeDeltas] = await Promise.all([
    deps.manifest.compactedFiles('candles_1m', req.family, undefined, fromDay, toDay),
    deps.manifest.deltaFiles('trades', req.family, fromDay, toDay),
  ]);
  const candles = visibleFiles(candleFiles, []).filter((f) => f.maxTs >= req.from - 60_000 && f.minTs <= req.to);
  const covered = new Set(visibleFiles(candleFiles, []).flatMap((f) => f.replaces));
  const tail = tradeDeltas.filter((d) => !covered.has(d.fileId) && d.symbols.includes(req.symbol) && d.maxTs >= req.from && d.minTs <= req.to + 60_000);
  if (candles.length === 0 && tail.length === 0) return [];

  const params: Record<string, SqlValue> = { symbol: req.symbol, from: req.from, to: req.to };
  const parts: string[] = [];
  if (candles.length > 0) {
    params.candles = await deps.files.paths(candles);
    parts.push(`SELECT * FROM read_parquet($candles, union_by_name = true) WHERE symbol = $symbol AND ts BETWEEN $from AND $to`);
  }
  if (tail.length > 0) {
    params.tail = await deps.files.paths(tail);
    const trades = `(SELECT * FROM read_parquet($tail, union_by_name = true) WHERE symbol = $symbol AND ts BETWEEN $from AND $to + 59999
                     QUALIFY row_number() OVER (PARTITION BY trade_id ORDER BY ts) = 1)`;
    parts.push(`SELECT * FROM (${candlesFromTradesSql(trades)}) WHERE ts BETWEEN $from AND $to`);
  }
  return deps.sql.query({
    sql: `SELECT symbol, ts, first(open ORDER BY open_ts) AS open, max(high) AS high, min(low) AS low,
                 last(close ORDER BY close_ts) AS close, sum(volume) AS volume, sum(quote_volume) AS quote_volume,
                 sum(trade_count) AS trade_count
          FROM (${parts.join(' UNION ALL BY NAME ')}) GROUP BY symbol, ts ORDER BY ts`,
    params,
  });
}
