/**
 * The positions routes' reads (SPEC "Account and market positions", behaviour rules 1-10): pure
 * functions of the archive port. Wallet reads resolve an instant (latest snapshot, an exact hour
 * with a snapshot, or the snapshot before it plus that account's legs up to it), clamp to how far
 * the change log is built, and say so in `meta`. Market and bulk reads stay on one snapshot.
 * Every read is bounded by one snapshot's rows of a market or an account, or by a page's window.
 * The hourly history reads are in history-read.ts, the market and bulk reads in market-read.ts.
 */
import { AppError } from '../errors.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { Row, SqlValue } from '#ports/sql.ts';
import { readWindow } from '../archive/read-pages.ts';
import { windowSource } from '../archive/read.ts';
import { issue, openCursor, positionIn } from './cursor.ts';
import { NUMBERED_FAMILIES, POSITION_FAMILIES, type PositionFamily } from './engine.ts';
import { accountKinds, finalizedThrough, latestMarkerAt, latestSnapshotAt, positionsCoverage, snapshotRowsAt } from './store.ts';
import { accountSummaryOf, changeOf, positionOf, qualityOf, type AccountSummaryRow, type ChangeRow, type PositionRow, type Quality } from './shape.ts';
import { accountSeen, accountSnapshotAt, positionsAt } from './account-read.ts';

/** SPEC "Limits": current positions are stale past 12 minutes; history pages hold 168 hours (cursors: cursor.ts). */
export const STALE_AFTER_MS = 12 * 60_000;

export const HISTORY_PAGE_HOURS = 168;

export const iso = (ms: number) => new Date(ms).toISOString();

export interface PositionsPage<T> {
  data: T;
  nextCursor: string | null;
  meta: Record<string, unknown>;
}

export function coverageMeta(family: PositionFamily) {
  const from = iso(positionsCoverage(family));
  return { coverage_from: from, notice: `Positions of ${family} are covered from ${from}; the requested time is before that.` };
}

/** How far the change log is built: the newest snapshot (undefined before the job's first run). */
export const builtThrough = (deps: ArchiveDeps, family: PositionFamily, now: number) => latestSnapshotAt(deps, family, now);

function finalityMeta(family: PositionFamily, built: number) {
  const final = finalizedThrough(family, built);
  return final === undefined ? {} : { finalized_through: iso(final) };
}

// ---------------------------------------------------------------------------------------------
// Wallet and account reads

export interface AccountRequest {
  routeId: string;
  family: PositionFamily;
  account: string;
  symbol?: string;
  dex?: string;
  cursor?: string;
  limit: number;
}

export const inScope = (req: { symbol?: string; dex?: string }) => (row: { symbol: string }) =>
  (req.symbol === undefined || row.symbol === req.symbol) && (req.dex === undefined || row.symbol.startsWith(`${req.dex}:`));

export interface WalletPositions {
  positions: PositionRow[];
  account: AccountSummaryRow | null;
  account_seen?: 'flat' | 'never_seen' | 'outside_coverage';
}

/** `/wallets/{address}/positions` and `/accounts/{account_index}/positions` (rules 1-5, 7). */
export async function walletPositions(deps: ArchiveDeps, req: AccountRequest & { timestamp?: number }, now: number): Promise<PositionsPage<WalletPositions>> {
  const { fingerprint, state } = openCursor(req.cursor, req.routeId, { ...req }, now);
  if (req.timestamp !== undefined && req.timestamp < positionsCoverage(req.family)) {
    return {
      data: { positions: [], account: null, account_seen: 'outside_coverage' },
      nextCursor: null,
      meta: { as_of: iso(req.timestamp), stale: false, ...coverageMeta(req.family) },
    };
  }
  // The instant: pinned by the cursor, else the latest snapshot, else the timestamp clamped to the
  // change log. The latest snapshot and an as-of read start together; a clamped read is redone.
  const requested = req.timestamp === undefined ? undefined : state ? state.window[0] : req.timestamp;
  const [latest, asOf] = await Promise.all([
    // A later page of the latest snapshot stays on the snapshot its cursor pinned.
    accountSnapshotAt(deps, req.family, req.account, req.timestamp === undefined && state ? state.window[0] : now),
    requested === undefined ? undefined : positionsAt(deps, req.family, req.account, requested),
  ]);
  const built = latest.ts;
  if (built === undefined) {
    return {
      data: { positions: [], account: null, account_seen: 'never_seen' },
      nextCursor: null,
      meta: { stale: true, notice: 'No positions snapshot has been built yet.', coverage_from: iso(positionsCoverage(req.family)) },
    };
  }
  const at = requested === undefined ? built : Math.min(requested, built);
  const clamped = requested !== undefined && requested > built ? { requested_end: iso(requested), clamped_to: iso(built) } : {};
  const { rows: all, snapshotTs } =
    requested === undefined ? { rows: latest.rows, snapshotTs: built } : requested > built ? await positionsAt(deps, req.family, req.account, built) : asOf!;
  const scoped = all.filter(inScope(req));
  const after = state ? (positionIn(state, ['text'])[0] as string) : undefined;
  const remaining = after === undefined ? scoped : scoped.filter((r) => r.symbol > after);
  const rows = remaining.slice(0, req.limit);
  const more = remaining.length > rows.length;
  const firstPage = !state;
  // hip3 scopes its account summary to one dex: present only when `dex` is given.
  const summary =
    firstPage && (req.family !== 'hip3' || req.dex !== undefined) ? accountSummaryOf(req.family, req.account, scoped, at, { dex: req.dex }) : null;
  const data: WalletPositions = { positions: rows.map((r) => positionOf(req.family, r)), account: summary };
  // The registry as the listing shows it: now for the latest read (an account opened since the
  // snapshot holds nothing in it), else as of the instant asked for.
  if (firstPage && scoped.length === 0) data.account_seen = await accountSeen(deps, req.family, req.account, at, Math.min(requested ?? now, now));
  const stale = requested === undefined && now - at > STALE_AFTER_MS;
  const reconstructed = requested !== undefined && snapshotTs === undefined;
  return {
    data,
    nextCursor: more ? issue(fingerprint, [at, at], now, rows.at(-1)!.symbol) : null,
    meta: {
      as_of: iso(at),
      stale,
      ...(stale && { notice: `The latest snapshot is ${Math.round((now - at) / 60_000)} minutes old.` }),
      coverage_from: iso(positionsCoverage(req.family)),
      source: reconstructed ? 'reconstructed' : 'snapshot',
      ...(snapshotTs !== undefined && { snapshot_ts: iso(snapshotTs) }),
      ...(reconstructed && { built_through: iso(built), ...finalityMeta(req.family, built) }),
      ...clamped,
      quality: qualityOf(req.family, scoped),
      ...(NUMBERED_FAMILIES.has(req.family) && { finalized: scoped.every((r) => r.finalized !== false) }),
    },
  };
}

export interface RangeRequest extends AccountRequest {
  start: number;
  end: number;
}

export function checkRange(req: { start: number; end: number }) {
  if (req.start >= req.end) throw new AppError('invalid_time_range', 'start must be before end ([start, end) is the window).', { param: 'start' });
}

/** `/positions/changes`: legs in [start, end), clamped to the change log, oldest first. */
export async function walletChanges(deps: ArchiveDeps, req: RangeRequest, now: number): Promise<PositionsPage<ChangeRow[]>> {
  checkRange(req);
  const { fingerprint, state } = openCursor(req.cursor, req.routeId, req, now);
  if (req.end <= positionsCoverage(req.family)) return { data: [], nextCursor: null, meta: coverageMeta(req.family) };
  const built = (await builtThrough(deps, req.family, now)) ?? positionsCoverage(req.family);
  const end = Math.min(req.end, built);
  const filters = [`account = $p_account`];
  const params: Record<string, SqlValue> = { p_account: req.account };
  if (req.symbol !== undefined) {
    filters.push('symbol = $p_symbol');
    params.p_symbol = req.symbol;
  }
  if (req.dex !== undefined) {
    filters.push('starts_with(symbol, $p_dex)');
    params.p_dex = `${req.dex}:`;
  }
  const legs =
    end <= req.start
      ? []
      : (
          await readWindow(deps, {
            dataset: 'position_changes',
            family: req.family,
            from: Math.max(req.start, positionsCoverage(req.family)),
            to: end - 1,
            limit: req.limit + 1,
            after: state && positionIn(state, ['count', 'text', 'count']),
            filter: { sql: filters.join(' AND '), params },
          })
        ).rows;
  const page = legs.slice(0, req.limit);
  const kind = NUMBERED_FAMILIES.has(req.family) ? (await accountKinds(deps, req.family, now)).get(req.account) : undefined;
  const last = page.at(-1);
  return {
    data: page.map((leg) => changeOf(req.family, leg, kind)),
    nextCursor:
      legs.length > req.limit && last ? issue(fingerprint, [req.start, req.end], now, Number(last.ts), String(last.account), Number(last.trade_id)) : null,
    meta: {
      source: 'changes',
      built_through: iso(built),
      ...finalityMeta(req.family, built),
      coverage_from: iso(positionsCoverage(req.family)),
      ...(req.end > built && { requested_end: iso(req.end), clamped_to: iso(built) }),
    },
  };
}

/** `/account`: the account's summary at the latest snapshot; on hip3 without `dex`, one row per dex. */
export async function accountSummaries(
  deps: ArchiveDeps,
  req: { family: PositionFamily; account: string; dex?: string },
  now: number,
): Promise<PositionsPage<AccountSummaryRow[]>> {
  const built = await builtThrough(deps, req.family, now);
  if (built === undefined) return { data: [], nextCursor: null, meta: { stale: true, notice: 'No positions snapshot has been built yet.' } };
  const rows = (await snapshotRowsAt(deps, req.family, built, { account: req.account })).filter(inScope(req));
  const dexes = req.family === 'hip3' && req.dex === undefined ? [...new Set(rows.map((r) => r.symbol.split(':')[0]!))].sort() : [req.dex];
  const data = dexes.map((dex) => accountSummaryOf(req.family, req.account, dex === undefined ? rows : rows.filter(inScope({ dex })), built, { dex }));
  const stale = now - built > STALE_AFTER_MS;
  return {
    data,
    nextCursor: null,
    meta: {
      as_of: iso(built),
      snapshot_ts: iso(built),
      source: 'snapshot',
      stale,
      ...(stale && { notice: 'The latest snapshot is older than 12 minutes.' }),
      quality: qualityOf(req.family, rows),
    },
  };
}

export interface L1Accounts {
  l1_address: string;
  total_accounts: number;
  accounts: { account_index: string; account_type: number; first_seen: string | null }[];
}

/** `/v1/altx/accounts?l1_address=`: the numbered accounts an L1 address owns, oldest first. */
export async function accountsOfL1(
  deps: ArchiveDeps,
  req: { routeId: string; l1_address: string; cursor?: string; limit: number },
  now: number,
): Promise<PositionsPage<L1Accounts>> {
  const address = req.l1_address.toLowerCase();
  const { fingerprint, state } = openCursor(req.cursor, req.routeId, { ...req, l1_address: address }, now);
  const source = await windowSource(deps, { dataset: 'accounts', family: 'altx', from: 0, to: now });
  const rows: Row[] = source
    ? await deps.sql.query({
        sql: `SELECT account_index, account_type, ts FROM (${source.sql}) WHERE l1_address = $p_l1 ORDER BY ts, account_index`,
        params: { ...source.params, p_l1: address },
      })
    : [];
  const offset = state ? (positionIn(state, ['count'])[0] as number) : 0;
  const page = rows.slice(offset, offset + req.limit);
  return {
    data: {
      l1_address: address,
      total_accounts: rows.length,
      accounts: page.map((r) => ({ account_index: String(r.account_index), account_type: Number(r.account_type), first_seen: iso(Number(r.ts)) })),
    },
    nextCursor: offset + page.length < rows.length ? issue(fingerprint, [0, 0], now, offset + page.length) : null,
    meta: {},
  };
}

const VENUE = {
  perpx: { venue: 'perpx', product: 'core' },
  hip3: { venue: 'perpx', product: 'hip3' },
  altx: { venue: 'altx', product: 'altx' },
  'altx-rh': { venue: 'altx_rh', product: 'altx_rh' },
} as const satisfies Record<PositionFamily, { venue: string; product: string }>;

/** `/v1/data-quality/positions`: per venue, the newest live and hourly snapshots and how far the change log is built. */
export async function positionsFreshness(deps: ArchiveDeps, now: number) {
  return Promise.all(
    POSITION_FAMILIES.map(async (family) => {
      const [marker, hourly] = await Promise.all([latestMarkerAt(deps, family, now), latestSnapshotAt(deps, family, now, true)]);
      const live = marker?.ts;
      const final = live === undefined ? undefined : finalizedThrough(family, live);
      return {
        ...VENUE[family],
        live_snapshot_ts: live === undefined ? null : iso(live),
        live_age_seconds: live === undefined ? null : Math.round((now - live) / 1000),
        stale: live === undefined || now - live > STALE_AFTER_MS,
        live_quality: (marker?.quality as Quality | undefined) ?? null,
        hourly_snapshot_ts: hourly === undefined ? null : iso(hourly),
        built_through: live === undefined ? null : iso(live),
        finalized_through: final === undefined ? null : iso(final),
      };
    }),
  );
}

export type PositionsFreshnessRow = Awaited<ReturnType<typeof positionsFreshness>>[number];
