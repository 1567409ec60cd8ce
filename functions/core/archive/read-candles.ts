/**
 * 1-minute candles as readers see them: the stored per-symbol candles plus, for the minutes not yet
 * compacted, the same candles computed from the uncovered trade deltas.
 */
import type { Family } from '../venues.ts';
import type { ArchiveDeps, ArchiveFile } from '#ports/archive.ts';
import type { Row, SqlValue } from '#ports/sql.ts';
import { supersedes, visibleFiles } from './files.ts';
import { dayOf } from './layout.ts';
import { whollyBeforeCoverage } from './coverage.ts';
import { candlesFromTradesSql } from './sql.ts';
import { dedupeClause } from './dedupe.ts';
import { compactedOf, scanSql, scansOf } from './read.ts';
import { readAhead, sameListing } from './read-pages.ts';

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
export async function withMinuteCandles<T>(
  deps: ArchiveDeps,
  req: MinuteCandleRequest,
  use: (source: MinuteCandleSource | undefined) => Promise<T>,
): Promise<T> {
  if (req.from > req.to || whollyBeforeCoverage('candles_1m', req.family, req.to)) return use(undefined);
  return readAhead(
    deps,
    ['candles', req.family, req.symbol ?? '', req.from, req.to].join('|'),
    () => candleListing(deps, req),
    async (files) => use(await candleSourceOf(deps, req, files)),
    sameListing,
  );
}

type MinuteCandleRequest = { family: Family; symbol?: string; from: number; to: number };

/** The files a window's 1-minute candles may come from: candle files, and the family's trade deltas. */
async function candleListing(deps: ArchiveDeps, req: MinuteCandleRequest): Promise<ArchiveFile[]> {
  const fromDay = dayOf(req.from);
  const toDay = dayOf(req.to);
  return (
    await Promise.all([compactedOf(deps, 'candles_1m', req.family, req.symbol, fromDay, toDay), deps.manifest.deltaFiles('trades', req.family, fromDay, toDay)])
  ).flat();
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
    ...scansOf(
      own.filter((f) => f.maxTs >= req.from - 60_000 && f.minTs <= req.to),
      symbol,
      () => [],
    ),
    ...scansOf(
      winners.filter((f) => f.symbol === undefined && f.maxTs >= req.from - 60_000 && f.minTs <= req.to),
      symbol,
      (file) => own.filter((g) => supersedes(g, file)).map((g) => g.symbol!),
    ),
  ];
  // Trade deltas no candle file covers yet (ingest deltas merged into a delta compaction count once, through it).
  const tail = scansOf(
    visibleFiles([], tradeDeltas, symbol).filter((d) => d.maxTs >= req.from && d.minTs <= req.to + 60_000),
    symbol,
    (delta) => {
      const covered = coveredFor.get(delta.fileId);
      return covered === 'all' ? 'all' : [...(covered ?? [])];
    },
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
  return withMinuteCandles(deps, req, async (source) => (source ? deps.sql.query({ sql: `${source.sql} ORDER BY ts`, params: source.params }) : []));
}
