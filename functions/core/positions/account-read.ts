/**
 * One account's positions at an instant: the snapshot at or before it plus the account's legs up to
 * it, and whether the account was ever seen (so an unknown account is told from a flat one).
 */
import type { ArchiveDeps } from '#ports/archive.ts';
import type { Row } from '#ports/sql.ts';
import { readWindow } from '../archive/read-pages.ts';
import { windowSource } from '../archive/read.ts';
import { applyFill, bookFromSnapshot, snapshotRow, type PositionFamily, type SnapshotRow } from './engine.ts';
import {
  HOUR_MS,
  accountRegistered,
  finalizedThrough,
  latestSnapshotAt,
  marketInputs,
  positionsCoverage,
  registryAt,
  snapshotRowOf,
  snapshotRowsAt,
} from './store.ts';

/** As-of reads look this far back for a snapshot first: the job takes one every hour at least while anything is open. */
const SNAPSHOT_LOOKBACK_MS = 2 * HOUR_MS;

/** The newest snapshot at or before `at` as one account sees it: its instant (undefined before the first) and the account's rows. */
export async function accountSnapshotAt(deps: ArchiveDeps, family: PositionFamily, account: string, at: number): Promise<{ ts?: number; rows: SnapshotRow[] }> {
  const source = await windowSource(deps, { dataset: 'position_snapshots', family, from: at - SNAPSHOT_LOOKBACK_MS, to: at });
  if (source) {
    // One query: the newest marker of the window and, at that instant, the account's rows.
    const rows = (
      await deps.sql.query<SnapshotRow>({
        sql: `WITH snapshots AS (${source.sql}), base AS (SELECT max(ts) AS ts FROM snapshots WHERE account = '')
            SELECT snapshots.* FROM snapshots, base WHERE snapshots.ts = base.ts AND account IN ('', $p_account) ORDER BY account, symbol`,
        params: { ...source.params, p_account: account },
      })
    ).map(snapshotRowOf);
    if (rows.length > 0) return { ts: rows[0]!.ts, rows: rows.filter((r) => r.account !== '') };
  }
  // None that recent (the job skipped an idle stretch): search further back.
  const ts = await latestSnapshotAt(deps, family, at);
  return { ts, rows: ts === undefined ? [] : await snapshotRowsAt(deps, family, ts, { account }) };
}

/** The account's change legs in [from, to), oldest first. */
async function legsOf(deps: ArchiveDeps, family: PositionFamily, account: string, from: number, to: number): Promise<Row[]> {
  if (to <= from) return [];
  return (
    await readWindow(deps, {
      dataset: 'position_changes',
      family,
      from,
      to: to - 1,
      limit: 1_000_000,
      filter: { sql: 'account = $p_account', params: { p_account: account } },
    })
  ).rows;
}

/**
 * The account's positions at `at`: the hourly snapshot when `at` is one, else the snapshot before
 * it plus the account's legs up to it, replayed through the engine and valued at `at`'s marks.
 */
export async function positionsAt(
  deps: ArchiveDeps,
  family: PositionFamily,
  account: string,
  at: number,
): Promise<{ rows: SnapshotRow[]; snapshotTs?: number }> {
  // The registry is read alongside the snapshot and the legs; the marks wait for the markets held.
  const registry = registryAt(deps, family, at);
  // An answer that needs no valuation (an hourly snapshot, nothing held) leaves it unawaited: its failure is then nobody's.
  registry.catch(() => undefined);
  const [base, recent] = await Promise.all([accountSnapshotAt(deps, family, account, at), legsOf(deps, family, account, at - SNAPSHOT_LOOKBACK_MS, at)]);
  if (base.ts === at && at % HOUR_MS === 0) return { rows: base.rows, snapshotTs: at };
  const since = base.ts ?? positionsCoverage(family);
  const legs = since >= at - SNAPSHOT_LOOKBACK_MS ? recent.filter((leg) => Number(leg.ts) >= since) : await legsOf(deps, family, account, since, at);
  const book = bookFromSnapshot(base.rows);
  const final = finalizedThrough(family, at);
  for (const leg of legs) {
    applyFill(
      book,
      {
        ts: Number(leg.ts),
        trade_id: Number(leg.trade_id),
        symbol: String(leg.symbol),
        account,
        side: leg.side as 'B' | 'A',
        price: String(leg.price),
        size: String(leg.size),
        start_position: String(leg.start_position),
        is_liquidation: leg.cause === 'liquidation',
      },
      final === undefined ? undefined : Number(leg.ts) <= final,
    );
  }
  if (book.size === 0) return { rows: [] };
  const inputs = await marketInputs(deps, family, at, at, await registry, { symbols: [...new Set([...book.values()].map((h) => h.symbol))], funding: false });
  return { rows: [...book.values()].sort((a, b) => a.symbol.localeCompare(b.symbol)).map((held) => snapshotRow(held, at, inputs.context(at))) };
}

/**
 * Whether the account is known at `at` and holds nothing (`flat`), or unknown (`never_seen`). Known
 * is a leg in covered history, or on the numbered venues the venue's account registry: the accounts
 * `/v1/altx/accounts` lists are the registry's, and one opened but never traded is an account with
 * no positions, not a stranger (issue 40). The registry is asked first, as of `registeredBy`: one
 * small dataset, where the change log is a look back over every day covered.
 */
export async function accountSeen(
  deps: ArchiveDeps,
  family: PositionFamily,
  account: string,
  at: number,
  registeredBy: number,
): Promise<'flat' | 'never_seen'> {
  if (await accountRegistered(deps, family, account, registeredBy)) return 'flat';
  const legs = await readWindow(deps, {
    dataset: 'position_changes',
    family,
    from: positionsCoverage(family),
    to: at,
    limit: 1,
    filter: { sql: 'account = $p_account', params: { p_account: account } },
  });
  return legs.rows.length > 0 ? 'flat' : 'never_seen';
}
