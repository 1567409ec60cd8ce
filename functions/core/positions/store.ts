/**
 * Where positions live in the archive, and the reads the job and the routes share: snapshot
 * markers (how far the change log is built), the rows of one snapshot, and the market inputs a
 * snapshot is valued with (marks, funding rates, leverage caps, account kinds).
 */
import type { ArchiveDeps } from '#ports/archive.ts';
import type { SqlValue } from '#ports/sql.ts';
import { readWindow } from '../archive/read-pages.ts';
import { windowSource } from '../archive/read.ts';
import { coverageStart } from '../archive/coverage.ts';
import type { Mark, PositionFamily, SnapshotContext, SnapshotRow } from './engine.ts';
import { NUMBERED_FAMILIES } from './engine.ts';

export const HOUR_MS = 3_600_000;
/** A mark older than this at the snapshot instant is no mark: the position is unpriced. */
export const MARK_MAX_AGE_MS = 10 * 60_000;
/**
 * The venue exports each UTC day's trades as its finalized record about an hour after the day
 * ends; legs up to the end of the newest exported day are final (SPEC rule 7: about a day behind).
 */
export const FINAL_EXPORT_DELAY_MS = HOUR_MS;

export const positionsCoverage = (family: PositionFamily): number => coverageStart('position_changes', family)!;

/** The end of the newest UTC day the venue has exported by `at` (numbered venues only). */
export function finalizedThrough(family: PositionFamily, at: number): number | undefined {
  if (!NUMBERED_FAMILIES.has(family)) return undefined;
  const exportedDayEnd = Math.floor((at - FINAL_EXPORT_DELAY_MS) / 86_400_000) * 86_400_000;
  return exportedDayEnd - 1;
}

const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/** A stored snapshot row (as read: integers may be JSON's or DuckDB's) with its integers as numbers and its nulls kept. */
export function snapshotRowOf(row: SnapshotRow): SnapshotRow {
  return {
    ...row,
    ts: Number(row.ts),
    opened_at: numberOrNull(row.opened_at),
    last_change_at: numberOrNull(row.last_change_at),
    mark_time: numberOrNull(row.mark_time),
    max_leverage: numberOrNull(row.max_leverage),
  };
}

/** The marker row of the newest snapshot at or before `at`, or undefined before the first. */
export async function latestMarkerAt(deps: ArchiveDeps, family: PositionFamily, at: number, hourlyOnly = false): Promise<SnapshotRow | undefined> {
  const filter = hourlyOnly ? "account = '' AND ts % 3600000 = 0" : "account = ''";
  const rows = (
    await readWindow<SnapshotRow>(deps, {
      dataset: 'position_snapshots',
      family,
      from: positionsCoverage(family),
      to: at,
      limit: 1,
      direction: 'desc',
      filter: { sql: filter, params: {} },
    })
  ).rows;
  return rows[0] === undefined ? undefined : snapshotRowOf(rows[0]);
}

/** The newest snapshot instant at or before `at`, or undefined before the first. */
export const latestSnapshotAt = async (deps: ArchiveDeps, family: PositionFamily, at: number, hourlyOnly = false): Promise<number | undefined> =>
  (await latestMarkerAt(deps, family, at, hourlyOnly))?.ts;

/** Whether a snapshot was taken exactly at `ts`. */
export async function snapshotExists(deps: ArchiveDeps, family: PositionFamily, ts: number): Promise<boolean> {
  const rows = (await readWindow(deps, { dataset: 'position_snapshots', family, from: ts, to: ts, limit: 1, filter: { sql: "account = ''", params: {} } }))
    .rows;
  return rows.length > 0;
}

/**
 * The rows of the snapshot at `ts` (markers excluded), ordered by account and market, optionally
 * one account's only or filtered further with `where` (its parameters start with `p_`).
 */
export async function snapshotRowsAt(
  deps: ArchiveDeps,
  family: PositionFamily,
  ts: number,
  options: { account?: string; where?: string; params?: Record<string, SqlValue> } = {},
): Promise<SnapshotRow[]> {
  const source = await windowSource(deps, { dataset: 'position_snapshots', family, from: ts, to: ts });
  if (!source) return [];
  const params: Record<string, SqlValue> = { ...source.params, ...options.params };
  const where = ["account <> ''"];
  if (options.account !== undefined) {
    where.push('account = $p_account');
    params.p_account = options.account;
  }
  if (options.where) where.push(options.where);
  const rows = await deps.sql.query<SnapshotRow>({ sql: `SELECT * FROM (${source.sql}) WHERE ${where.join(' AND ')} ORDER BY account, symbol`, params });
  return rows.map(snapshotRowOf);
}

/** Samples per market, oldest first, for "the newest at or before an instant" lookups. */
class Samples<T> {
  private readonly bySymbol = new Map<string, { ts: number; value: T }[]>();
  add(symbol: string, ts: number, value: T) {
    let list = this.bySymbol.get(symbol);
    if (!list) this.bySymbol.set(symbol, (list = []));
    list.push({ ts, value });
  }
  /** The newest sample in (at - maxAge, at]. */
  at(symbol: string, at: number, maxAge: number): { ts: number; value: T } | undefined {
    const list = this.bySymbol.get(symbol);
    if (!list) return undefined;
    let lo = 0;
    let hi = list.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.ts <= at) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const sample = found < 0 ? undefined : list[found];
    return sample && sample.ts > at - maxAge ? sample : undefined;
  }
}

/** What snapshots in [from, to] are valued with, read once for a span of the job or a read. */
export interface MarketInputs {
  markAt(symbol: string, at: number): Mark | undefined;
  /** The funding rate charged at the hour `at` (the newest sample of the hour before it). */
  rateAt(symbol: string, at: number): string | undefined;
  context(at: number): SnapshotContext;
}

type AccountKind = NonNullable<SnapshotRow['account_kind']>;

/** The registry snapshots are valued against: leverage caps by market and, on the numbered venues, the accounts that are not users' accounts. */
export interface Registry {
  maxLeverage: ReadonlyMap<string, number>;
  kinds: ReadonlyMap<string, AccountKind>;
}

/** Each market's leverage cap, from the instrument registry as of `at`. */
export async function leverageCaps(deps: ArchiveDeps, family: PositionFamily, at: number): Promise<Map<string, number>> {
  const caps = new Map<string, number>();
  for (const row of (await readWindow(deps, { dataset: 'instruments', family, from: 0, to: at, limit: 100_000 })).rows) {
    if (row.max_leverage != null) caps.set(String(row.symbol), Number(row.max_leverage));
  }
  return caps;
}

/** The numbered venues' settlement, insurance and system accounts as of `at` (every other account is a user's). */
export async function accountKinds(deps: ArchiveDeps, family: PositionFamily, at: number): Promise<Map<string, AccountKind>> {
  const kinds = new Map<string, AccountKind>();
  const source = NUMBERED_FAMILIES.has(family) ? await windowSource(deps, { dataset: 'accounts', family, from: 0, to: at }) : undefined;
  if (!source) return kinds;
  const rows = await deps.sql.query({ sql: `SELECT account_index, account_kind FROM (${source.sql}) WHERE account_kind <> 'user'`, params: source.params });
  for (const row of rows) kinds.set(String(row.account_index), row.account_kind as AccountKind);
  return kinds;
}

/**
 * Whether the numbered venue's registry holds the account by `at` (opened then, whether it traded or
 * not): the registry `/v1/altx/accounts` lists from. Always false on the families without one.
 */
export async function accountRegistered(deps: ArchiveDeps, family: PositionFamily, account: string, at: number): Promise<boolean> {
  const source = NUMBERED_FAMILIES.has(family) ? await windowSource(deps, { dataset: 'accounts', family, from: 0, to: at }) : undefined;
  if (!source) return false;
  const rows = await deps.sql.query({
    sql: `SELECT 1 AS known FROM (${source.sql}) WHERE account_index = $p_account LIMIT 1`,
    params: { ...source.params, p_account: account },
  });
  return rows.length > 0;
}

export async function registryAt(deps: ArchiveDeps, family: PositionFamily, at: number): Promise<Registry> {
  const [maxLeverage, kinds] = await Promise.all([leverageCaps(deps, family, at), accountKinds(deps, family, at)]);
  return { maxLeverage, kinds };
}

/**
 * Marks (and, for the job, funding rates) in [from, to], with the registry they are valued
 * against. The job reads every market of the family at once; a read names its few markets, whose
 * files are then the only ones opened.
 */
export async function marketInputs(
  deps: ArchiveDeps,
  family: PositionFamily,
  from: number,
  to: number,
  registry: Registry,
  options: { symbols?: readonly string[]; funding?: boolean } = {},
): Promise<MarketInputs> {
  const marks = new Samples<string>();
  const rates = new Samples<string>();
  const charged = options.funding !== false && !NUMBERED_FAMILIES.has(family);
  const [oi, funding] = await Promise.all([
    windowSource(deps, { dataset: 'open_interest', family, symbols: options.symbols, from: from - MARK_MAX_AGE_MS, to }),
    charged ? windowSource(deps, { dataset: 'funding', family, symbols: options.symbols, from: from - HOUR_MS, to }) : undefined,
  ]);
  if (oi) {
    const rows = await deps.sql.query({
      sql: `SELECT symbol, ts, coalesce(mark_price, mid_price) AS mark FROM (${oi.sql}) WHERE coalesce(mark_price, mid_price) IS NOT NULL ORDER BY symbol, ts`,
      params: oi.params,
    });
    for (const row of rows) marks.add(String(row.symbol), Number(row.ts), String(row.mark));
  }
  if (funding) {
    const rows = await deps.sql.query({ sql: `SELECT symbol, ts, funding_rate FROM (${funding.sql}) ORDER BY symbol, ts`, params: funding.params });
    for (const row of rows) rates.add(String(row.symbol), Number(row.ts), String(row.funding_rate));
  }
  const { maxLeverage, kinds } = registry;
  const markAt = (symbol: string, at: number): Mark | undefined => {
    const sample = marks.at(symbol, at, MARK_MAX_AGE_MS);
    return sample && { price: sample.value, time: sample.ts };
  };
  return {
    markAt,
    rateAt: (symbol, at) => rates.at(symbol, at, HOUR_MS)?.value,
    context: (at) => ({
      markAt: (symbol) => markAt(symbol, at),
      maxLeverageOf: (symbol) => maxLeverage.get(symbol),
      funding: !NUMBERED_FAMILIES.has(family),
      ...(NUMBERED_FAMILIES.has(family) && {
        accountKindOf: (account: string) => kinds.get(account) ?? 'user',
        finalizedThrough: finalizedThrough(family, at),
      }),
    }),
  };
}
