/**
 * The positions routes' market and bulk reads (SPEC "Account and market positions", rules 6, 8
 * and 9): snapshots only, and a page stays on its snapshot (409 `snapshot_advanced` once it is
 * gone). Apart from the wallet reads of read.ts, whose cursors and limits they share.
 */
import * as v from 'valibot';
import { AppError } from '../errors.ts';
import { MarketPositionSchema } from '#schemas/positions.ts';
import { describeIssues } from '#schemas/issues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { SqlValue } from '#ports/sql.ts';
import { windowSource } from '../archive/read.ts';
import type { CursorState } from '../market/cursor.ts';
import type { PositionFamily, SnapshotRow } from './engine.ts';
import { HOUR_MS, positionsCoverage, snapshotExists, snapshotRowOf, snapshotRowsAt } from './store.ts';
import {
  marketPositionColumns,
  marketPositionOf,
  marketSummaryOf,
  qualityOf,
  roundColumns,
  type MarketPositionRow,
  type MarketSummaryRow,
  type Quality,
} from './shape.ts';
import { HISTORY_PAGE_HOURS, STALE_AFTER_MS, builtThrough, checkRange, iso, type PositionsPage } from './read.ts';
import { issue, openCursor, positionIn } from './cursor.ts';

/** Rows of one account's snapshot, or a market's, excluding system accounts unless asked. */
const kindFilter = (includeSystem: boolean | undefined) => (includeSystem ? undefined : "coalesce(account_kind, 'user') = 'user'");

export interface MarketRequest {
  routeId: string;
  family: PositionFamily;
  hour?: number;
  include_system?: boolean;
  cursor?: string;
  limit: number;
}

function checkHour(hour: number | undefined) {
  if (hour !== undefined && hour % HOUR_MS !== 0) {
    throw new AppError('invalid_parameter', 'hour must be an exact UTC hour (Unix milliseconds divisible by 3600000).', { param: 'hour' });
  }
}

/** The snapshot a market page reads: the cursor's, `hour`'s, or the latest. A cursor on a replaced latest snapshot is 409. */
async function resolveSnapshot(deps: ArchiveDeps, req: MarketRequest, state: CursorState | undefined, now: number): Promise<number | undefined> {
  checkHour(req.hour);
  const current =
    req.hour !== undefined ? ((await snapshotExists(deps, req.family, req.hour)) ? req.hour : undefined) : await builtThrough(deps, req.family, now);
  if (state && state.window[0] !== current) {
    throw new AppError('snapshot_advanced', 'The snapshot this cursor was paging has been replaced; restart without a cursor.', { param: 'cursor' });
  }
  return current;
}

function snapshotMeta(family: PositionFamily, snapshotTs: number | undefined, now: number, latest: boolean) {
  // No snapshot: the member is absent (clients' schemas take a string or nothing, never null).
  if (snapshotTs === undefined) return { notice: 'No positions snapshot exists for this hour.' };
  const stale = latest && now - snapshotTs > STALE_AFTER_MS;
  return {
    snapshot_ts: iso(snapshotTs),
    as_of: iso(snapshotTs),
    source: 'snapshot',
    stale,
    ...(stale && { notice: 'The latest snapshot is older than 12 minutes.' }),
    coverage_from: iso(positionsCoverage(family)),
  };
}

const byValueDescending = (a: SnapshotRow, b: SnapshotRow) => {
  const [x, y] = [a.position_value == null ? -1 : Number(a.position_value), b.position_value == null ? -1 : Number(b.position_value)];
  return y - x || (a.account < b.account ? -1 : a.account > b.account ? 1 : 0);
};

/** `/positions/{symbol}`: one market's positions at a snapshot, largest value first; `meta.totals` on the first page. */
export async function marketPositions(
  deps: ArchiveDeps,
  req: MarketRequest & { symbol: string; side?: 'long' | 'short'; min_value?: number },
  now: number,
): Promise<PositionsPage<MarketPositionRow[]>> {
  const { fingerprint, state } = openCursor(req.cursor, req.routeId, req, now);
  const snapshotTs = await resolveSnapshot(deps, req, state, now);
  if (snapshotTs === undefined) return { data: [], nextCursor: null, meta: snapshotMeta(req.family, undefined, now, false) };
  const where = [
    'symbol = $p_symbol',
    kindFilter(req.include_system),
    req.side === undefined ? undefined : req.side === 'long' ? "NOT starts_with(size, '-')" : "starts_with(size, '-')",
    req.min_value === undefined ? undefined : 'TRY_CAST(position_value AS DOUBLE) >= $p_min',
  ]
    .filter(Boolean)
    .join(' AND ');
  const params: Record<string, SqlValue> = { p_symbol: req.symbol, ...(req.min_value !== undefined && { p_min: req.min_value }) };
  const rows = (await snapshotRowsAt(deps, req.family, snapshotTs, { where, params })).sort(byValueDescending);
  const offset = state ? (positionIn(state, ['count'])[0] as number) : 0;
  const page = rows.slice(offset, offset + req.limit);
  const more = offset + page.length < rows.length;
  return {
    data: page.map((r) => marketPositionOf(req.family, r)),
    nextCursor: more ? issue(fingerprint, [snapshotTs, snapshotTs], now, offset + page.length) : null,
    meta: {
      ...snapshotMeta(req.family, snapshotTs, now, req.hour === undefined),
      quality: qualityOf(req.family, rows),
      ...(!state && { totals: marketSummaryOf(req.family, req.symbol, rows, snapshotTs) }),
    },
  };
}

/** `/positions/{symbol}/summary`: the latest snapshot's summary, or one per hourly snapshot in [start, end). */
export async function marketSummaries(
  deps: ArchiveDeps,
  req: Omit<MarketRequest, 'hour'> & { symbol: string; start?: number; end?: number },
  now: number,
): Promise<PositionsPage<MarketSummaryRow[]>> {
  const { fingerprint, state } = openCursor(req.cursor, req.routeId, req, now);
  if (req.start === undefined && req.end === undefined) {
    const latest = await builtThrough(deps, req.family, now);
    if (latest === undefined) return { data: [], nextCursor: null, meta: snapshotMeta(req.family, undefined, now, true) };
    const rows = await snapshotRowsAt(deps, req.family, latest, {
      where: ['symbol = $p_symbol', kindFilter(req.include_system)].filter(Boolean).join(' AND '),
      params: { p_symbol: req.symbol },
    });
    return { data: [marketSummaryOf(req.family, req.symbol, rows, latest)], nextCursor: null, meta: snapshotMeta(req.family, latest, now, true) };
  }
  // A later page keeps the window its cursor was issued for (a default end would have moved).
  const [start, end] = state ? state.window : [req.start ?? (req.end ?? now) - 24 * HOUR_MS, req.end ?? now];
  checkRange({ start, end });
  const from = state ? (positionIn(state, ['count'])[0] as number) : Math.ceil(start / HOUR_MS) * HOUR_MS;
  const hours = Math.min(req.limit, HISTORY_PAGE_HOURS);
  const pageEnd = Math.min(end, from + hours * HOUR_MS);
  const source = pageEnd <= from ? undefined : await windowSource(deps, { dataset: 'position_snapshots', family: req.family, from, to: pageEnd - 1 });
  const rows = source
    ? (
        await deps.sql.query<SnapshotRow>({
          sql: `SELECT * FROM (${source.sql}) WHERE ts % 3600000 = 0 AND ((account = '' AND symbol = '') OR (symbol = $p_symbol ${req.include_system ? '' : "AND coalesce(account_kind, 'user') = 'user'"})) ORDER BY ts, account`,
          params: { ...source.params, p_symbol: req.symbol },
        })
      ).map(snapshotRowOf)
    : [];
  const byHour = new Map<number, SnapshotRow[]>();
  for (const row of rows) {
    if (!byHour.has(row.ts)) byHour.set(row.ts, []);
    if (row.account !== '') byHour.get(row.ts)!.push(row);
  }
  const data = [...byHour].sort(([a], [b]) => a - b).map(([hour, positions]) => marketSummaryOf(req.family, req.symbol, positions, hour));
  return {
    data,
    nextCursor: pageEnd < end ? issue(fingerprint, [start, end], now, pageEnd) : null,
    meta: { source: 'snapshot', coverage_from: iso(positionsCoverage(req.family)) },
  };
}

/** A bulk page as columns (an Arrow batch is built from them without an object per row). */
export interface BulkPage {
  columns: Record<string, (string | null)[]>;
  count: number;
  nextCursor: string | null;
  meta: Record<string, unknown>;
}

/**
 * `/positions` (bulk): every position at one hourly snapshot, by account and market, read as
 * columns in the wire shape. The keyset's first term alone (`account >= ...`) is one DuckDB can
 * prune row groups with, since the snapshot's rows are sorted by account.
 */
export async function bulkPositions(deps: ArchiveDeps, req: MarketRequest & { hour: number }, now: number): Promise<BulkPage> {
  const { fingerprint, state } = openCursor(req.cursor, req.routeId, { ...req, format: undefined }, now);
  const snapshotTs = await resolveSnapshot(deps, req, state, now);
  if (snapshotTs === undefined) return { columns: {}, count: 0, nextCursor: null, meta: snapshotMeta(req.family, undefined, now, false) };
  const after = state ? (positionIn(state, ['text', 'text']) as string[]) : undefined;
  const where = [
    'ts = $p_ts',
    "account <> ''",
    kindFilter(req.include_system),
    after && 'account >= $p_account AND (account > $p_account OR symbol > $p_symbol)',
  ].filter(Boolean);
  const source = (await windowSource(deps, { dataset: 'position_snapshots', family: req.family, from: snapshotTs, to: snapshotTs }))!;
  const columns = roundColumns(
    await deps.sql.queryColumns({
      sql: `SELECT ${marketPositionColumns(req.family)
        .map(([name, sql]) => `${sql} AS ${name}`)
        .join(', ')} FROM (${source.sql}) WHERE ${where.join(' AND ')} ORDER BY account, symbol LIMIT $p_limit`,
      params: { ...source.params, p_ts: snapshotTs, p_limit: req.limit + 1, ...(after && { p_account: after[0]!, p_symbol: after[1]! }) },
    }),
  );
  const fetched = columns.symbol?.length ?? 0;
  const count = Math.min(fetched, req.limit);
  if (fetched > count) for (const name of Object.keys(columns)) columns[name]!.length = count;
  const accounts = columns.user_address ?? columns.account_index ?? [];
  return {
    columns,
    count,
    nextCursor: fetched > count ? issue(fingerprint, [snapshotTs, snapshotTs], now, accounts[count - 1]!, columns.symbol![count - 1]!) : null,
    meta: {
      ...snapshotMeta(req.family, snapshotTs, now, false),
      quality: qualityOf(
        req.family,
        (columns.quality ?? []).map((quality) => ({ quality: quality as Quality })),
      ),
    },
  };
}

/**
 * A bulk page's columns as JSON rows, members in column order (the schema's). Each is parsed with
 * the route's row schema as it leaves DuckDB: the columns are SQL (marketPositionColumns), not
 * marketPositionOf, and a JSON page holds at most 2,000 rows (Arrow pages, up to 50,000, are not
 * turned into rows).
 */
export function rowsOfColumns(columns: Record<string, (string | null)[]>, count: number): v.InferOutput<typeof MarketPositionSchema>[] {
  const names = Object.keys(columns);
  return Array.from({ length: count }, (_, i) => {
    const parsed = v.safeParse(MarketPositionSchema, Object.fromEntries(names.map((name) => [name, columns[name]![i]!])));
    if (!parsed.success) throw new AppError('internal_error', `Bulk positions row ${i} does not match its schema: ${describeIssues(parsed.issues)}`);
    return parsed.output;
  });
}

// ---------------------------------------------------------------------------------------------
// Registry and freshness
