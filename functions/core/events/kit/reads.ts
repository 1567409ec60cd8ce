/**
 * What minute detectors read from the archive and the breadth store, for one run's window
 * [from, to): rows of a dataset with a lookback, the times of a stream (to judge silences), PGA
 * payments, and watched holders of settled outcome sides. A run hands every detector one context;
 * reads that paired types share (gaps detected and resolved, stalls and recoveries, settlements)
 * go through `shared` and are made once per run.
 */
import type { IngestedDataset, RecordOf, SettlementRecord } from '#schemas/datasets.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { SqlQuery, SqlSession } from '#ports/sql.ts';
import { whollyBeforeCoverage } from '#core/archive/coverage.ts';
import { windowSource } from '#core/archive/read.ts';
import type { BreadthStore } from '#ports/breadth.ts';
import type { Family } from '#core/venues.ts';
import { PGA_MIN_AMOUNT, PGA_PER_DAY } from '#core/archive/sql.ts';
import type { ReferenceSource } from './relative-metrics.ts';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
const MINUTE = MINUTE_MS;

/** One update of a stream, whose silences archive gaps and ingest stalls are judged by. */
export interface Tick {
  family: Family;
  symbol: string;
  ts: number;
}
/** A watched address's position in a settled side, from its last fill there (position before plus the fill). */
export interface Holder {
  address: string;
  symbol: string;
  position: number;
}
/** PGA payments of at least this many native tokens are read; at most this many events per UTC day. */
export const PGA = { minAmount: PGA_MIN_AMOUNT, perDay: PGA_PER_DAY, token: 'HYPE' } as const;
export interface PgaPayment {
  ts: number;
  trade_id: number;
  symbol: string;
  payer: string | null;
  amount: number;
}
const HOUR = HOUR_MS;

export interface MinuteContext {
  archive: ArchiveDeps;
  breadth: BreadthStore;
  references: ReferenceSource;
  /** The window whose occurrences are wanted; reads reach back before `from` as each detector needs. */
  from: number;
  to: number;
  /** Addresses some rule of the type watches (account types only). */
  watched: ReadonlySet<string>;
  /** Reads the value once per run under `key`, however many detectors ask. */
  shared<T>(key: string, read: () => Promise<T>): Promise<T>;
}

/** A context whose shared reads are memoized in a fresh map (one per run or preview). */
export function minuteContext(
  deps: Pick<MinuteContext, 'archive' | 'breadth' | 'references'>,
  from: number,
  to: number,
  watched: ReadonlySet<string> = new Set(),
): MinuteContext {
  const memo = new Map<string, Promise<unknown>>();
  return {
    ...deps,
    from,
    to,
    watched,
    shared<T>(key: string, read: () => Promise<T>) {
      if (!memo.has(key)) memo.set(key, read());
      return memo.get(key) as Promise<T>;
    },
  };
}

/**
 * A query's rows as records of `dataset`: the rows of its files (or the columns of them the query
 * selects) with `dataset` and `family` set, which the files do not say.
 */
export async function queryRecords<D extends IngestedDataset>(sql: SqlSession, dataset: D, family: Family, query: SqlQuery): Promise<RecordOf<D>[]> {
  return (await sql.query<RecordOf<D>>(query)).map((row) => ({ ...row, dataset, family }));
}

/** A dataset's rows in [since, to) for the given families, oldest first. */
export async function rowsOf<D extends IngestedDataset>(ctx: MinuteContext, dataset: D, families: readonly Family[], since: number): Promise<RecordOf<D>[]> {
  const rows: RecordOf<D>[] = [];
  for (const family of families) {
    if (whollyBeforeCoverage(dataset, family, ctx.to)) continue;
    const source = await windowSource(ctx.archive, { dataset, family, from: since, to: ctx.to - 1 });
    if (!source) continue;
    // One push a row: a spread of a day's rows would pass them all as arguments.
    for (const row of await queryRecords(ctx.archive.sql, dataset, family, { sql: `SELECT * FROM (${source.sql}) ORDER BY ts`, params: source.params }))
      rows.push(row);
  }
  return rows;
}

/** How far back the times before a window are looked for first; only a longer silence reads further. */
const RECENT_MS = 15 * MINUTE;
/** Times kept per market from before the window: enough for its usual interval after a long silence. */
const TIMES_BEFORE = 10;

/**
 * Times only (no payload columns): every row's time in [from, to) and each market's last few times
 * before `from`, so a silence that began earlier is measured from its start and the market's usual
 * interval is known. The times before are looked for in the recent past; the rest of `lookbackMs` is
 * read only when a series (a market, or a whole venue) resumes inside the window after a longer
 * silence, so an ordinary minute never reads a day of files.
 */
export async function timesOf(
  ctx: MinuteContext,
  dataset: IngestedDataset,
  families: readonly Family[],
  from: number,
  lookbackMs: number,
  series: 'market' | 'venue',
): Promise<Tick[]> {
  const ticks: Tick[] = [];
  const seriesOf = (symbol: string) => (series === 'market' ? symbol : '');
  for (const family of families) {
    if (whollyBeforeCoverage(dataset, family, ctx.to)) continue;
    const recentFrom = from - Math.min(RECENT_MS, lookbackMs);
    const recent = await timesAround(ctx.archive, dataset, family, recentFrom, from, ctx.to);
    const known = new Set(recent.filter((t) => t.ts < from).map((t) => seriesOf(t.symbol)));
    const resumedAfterLongSilence = recent.some((t) => t.ts >= from && !known.has(seriesOf(t.symbol)));
    const older = resumedAfterLongSilence ? await timesAround(ctx.archive, dataset, family, from - lookbackMs, recentFrom, recentFrom) : [];
    for (const t of [...recent, ...older.filter((o) => !known.has(seriesOf(o.symbol)))]) ticks.push({ family, symbol: t.symbol, ts: t.ts });
  }
  return ticks;
}

/** Each symbol's last `TIMES_BEFORE` times in [since, from) and every time in [from, to). */
async function timesAround(
  archive: ArchiveDeps,
  dataset: IngestedDataset,
  family: Family,
  since: number,
  from: number,
  to: number,
): Promise<{ symbol: string; ts: number }[]> {
  const source = await windowSource(archive, { dataset, family, from: since, to: to - 1 });
  if (!source) return [];
  const rows = await archive.sql.query({
    sql: `SELECT symbol, ts FROM (${source.sql}) WHERE ts >= $t_from
          UNION ALL SELECT symbol, ts FROM (
            SELECT symbol, ts FROM (${source.sql}) WHERE ts < $t_from QUALIFY row_number() OVER (PARTITION BY symbol ORDER BY ts DESC) <= $t_keep)`,
    params: { ...source.params, t_from: from, t_keep: TIMES_BEFORE },
  });
  return rows.map((row) => ({ symbol: String(row.symbol), ts: Number(row.ts) }));
}

/** Priority gas payments on perpx of at least the floor in [from, to). */
export async function pgaPaymentsBetween(archive: ArchiveDeps, from: number, to: number): Promise<PgaPayment[]> {
  const source = await windowSource(archive, { dataset: 'trades', family: 'perpx', from, to: to - 1 });
  if (!source) return [];
  const rows = await archive.sql.query({
    sql: `SELECT ts, trade_id, symbol, user_address, CAST(priority_gas AS DOUBLE) AS amount FROM (${source.sql})
          WHERE priority_gas IS NOT NULL AND CAST(priority_gas AS DOUBLE) >= $p_min`,
    params: { ...source.params, p_min: PGA.minAmount },
  });
  return rows.map((r) => ({
    ts: Number(r.ts),
    trade_id: Number(r.trade_id),
    symbol: String(r.symbol),
    payer: (r.user_address as string | null) ?? null,
    amount: Number(r.amount),
  }));
}

/** The payment token's last traded price in the hour before `to`, or null when it did not trade. */
export async function pgaTokenPrice(archive: ArchiveDeps, to: number): Promise<number | null> {
  const source = await windowSource(archive, { dataset: 'trades', family: 'perpx', symbol: PGA.token, from: to - HOUR, to: to - 1 });
  const [price] = source
    ? // Trades of one instant in trade-id order (`arg_max` over ts alone keeps the first of a tie).
      await archive.sql.query({ sql: `SELECT CAST(last(price ORDER BY ts, trade_id) AS DOUBLE) AS price FROM (${source.sql})`, params: source.params })
    : [];
  return price?.price == null ? null : Number(price.price);
}

/** The run's settled outcome sides, read once for the types that need them. */
export function settledSides(ctx: MinuteContext): Promise<SettlementRecord[]> {
  return ctx.shared('settlements', () => rowsOf(ctx, 'settlements', ['hip4'], ctx.from));
}

/** Watched addresses' positions in the settled sides, from each one's last fill before settlement (30 days back). */
export async function holdersOf(archive: ArchiveDeps, settled: readonly SettlementRecord[], watched: ReadonlySet<string>, to: number): Promise<Holder[]> {
  const source = await windowSource(archive, { dataset: 'trades', family: 'hip4', from: to - 30 * 24 * HOUR, to: to - 1 });
  if (!source) return [];
  const rows = await archive.sql.query({
    // The last fill in trade-id order: a sweep fills one wallet several times in one instant.
    sql: `SELECT symbol, user_address, last(CAST(coalesce(start_position, '0') AS DOUBLE) + CASE WHEN side = 'B' THEN 1 ELSE -1 END * CAST(size AS DOUBLE) ORDER BY ts, trade_id) AS position
          FROM (${source.sql}) WHERE list_contains($h_symbols, symbol) AND list_contains($h_users, user_address) GROUP BY symbol, user_address`,
    params: { ...source.params, h_symbols: [...new Set(settled.map((s) => s.symbol))], h_users: [...watched] },
  });
  return rows.map((r) => ({ symbol: String(r.symbol), address: String(r.user_address), position: Number(r.position) }));
}
