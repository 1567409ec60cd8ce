/**
 * The positions job: extends each family's change log and snapshots from the archived fills.
 *
 * A family's progress is its newest snapshot (its marker row): the book then is that snapshot's
 * rows, and the change log is built through its instant. Each step takes one UTC hour of fills at
 * most (memory bounded by an hour of the family's fills), replays them through the engine, charges
 * funding and takes a snapshot at each hour boundary, and a live snapshot at the target instant
 * (every 5 minutes on core and hip3, every 2 minutes on the numbered venues), then writes the legs
 * and then the snapshots through ingest (typed records, not re-parsed), so compaction and the
 * readers treat them like any dataset. A step that dies before its snapshot is written is redone by
 * the next run from the same snapshot: legs collapse on (account, trade_id). Never the other way: a
 * snapshot written without its legs would move the next run past them. A fill that arrives after
 * its instant was built is not applied; the next fill of that account and market then contradicts
 * the running size and is quarantined (re-anchored), so the book heals.
 */
import { randomUUID } from 'node:crypto';
import type { ArchiveDeps } from '#ports/archive.ts';
import { windowSource } from '../archive/read.ts';
import { ingestRecords } from '../archive/ingest.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';
import { dayOf } from '../archive/layout.ts';
import {
  NUMBERED_FAMILIES,
  POSITION_FAMILIES,
  applyFill,
  bookFromSnapshot,
  chargeFunding,
  snapshotRows,
  type Book,
  type Fill,
  type PositionFamily,
} from './engine.ts';
import { HOUR_MS, finalizedThrough, latestSnapshotAt, marketInputs, positionsCoverage, registryAt, snapshotRowsAt, type Registry } from './store.ts';

/** Fills this recent are left for the next run, so the last live batches are in. */
export const POSITIONS_SETTLE_MS = 60_000;
/** Live snapshot cadence per family (SPEC: about every 5 minutes core/hip3, 2 minutes altx). */
export const LIVE_CADENCE_MS: Readonly<Record<PositionFamily, number>> = { perpx: 300_000, hip3: 300_000, altx: 120_000, 'altx-rh': 120_000 };
const LEASE_MS = 5 * 60_000;

export interface PositionsReport {
  steps: number;
  legs: number;
  snapshots: number;
  snapshotRows: number;
  skippedLeased: number;
  /** Per family, the instant the change log is built through after the run. */
  builtThrough: Partial<Record<PositionFamily, number>>;
}

export interface PositionsOptions {
  families?: readonly PositionFamily[];
  /** Wall-clock milliseconds after which no new step starts (the rest waits for the next run). */
  budgetMs?: number;
}

/** The live snapshot instant a run at `now` builds up to. */
export const targetInstant = (family: PositionFamily, now: number) =>
  Math.floor((now - POSITIONS_SETTLE_MS) / LIVE_CADENCE_MS[family]) * LIVE_CADENCE_MS[family];

/** The tracked side of each fill in [from, to), in (ts, trade_id) order. */
async function fillsBetween(deps: ArchiveDeps, family: PositionFamily, from: number, to: number): Promise<Fill[]> {
  const source = await windowSource(deps, { dataset: 'trades', family, from, to: to - 1 });
  if (!source) return [];
  const account = NUMBERED_FAMILIES.has(family) ? 'account_index' : 'user_address';
  const rows = await deps.sql.query<Fill>({
    sql: `SELECT ts, trade_id, symbol, ${account} AS account, side, price, size, start_position, direction, closed_pnl, fee, fee_token, crossed, order_id, is_liquidation
          FROM (${source.sql}) WHERE ${account} IS NOT NULL ORDER BY ts, trade_id`,
    params: source.params,
  });
  return rows.map((r) => ({ ...r, ts: Number(r.ts), trade_id: Number(r.trade_id), order_id: r.order_id == null ? null : Number(r.order_id) }));
}

/** The first instant at or after `from` whose UTC day holds any fill of the family (or `to`). */
async function firstTradingDay(deps: ArchiveDeps, family: PositionFamily, from: number, to: number): Promise<number> {
  const deltas = await deps.manifest.deltaFiles('trades', family, dayOf(from), dayOf(to));
  const deltaDays = new Set(deltas.map((d) => d.day));
  for (let day = Math.floor(from / 86_400_000) * 86_400_000; day < to; day += 86_400_000) {
    if (deltaDays.has(dayOf(day)) || (await deps.manifest.compactedFilesOfDay('trades', family, dayOf(day))).length > 0) return Math.max(from, day);
  }
  return to;
}

/** Replays [from, to) onto `book`: legs, funding and a snapshot at each hour in (from, to], and one at `to`. */
async function step(
  deps: ArchiveDeps,
  family: PositionFamily,
  registry: Registry,
  book: Book,
  from: number,
  to: number,
): Promise<{ records: NormalizedRecord[]; legs: number; snapshots: number; rows: number }> {
  const [fills, inputs] = await Promise.all([fillsBetween(deps, family, from, to), marketInputs(deps, family, from, to, registry)]);
  const boundaries: number[] = [];
  for (let hour = Math.floor(from / HOUR_MS) * HOUR_MS + HOUR_MS; hour <= to; hour += HOUR_MS) boundaries.push(hour);
  if (boundaries.at(-1) !== to) boundaries.push(to);
  const records: NormalizedRecord[] = [];
  let snapshots = 0;
  let rows = 0;
  const takeSnapshot = (at: number) => {
    if (at % HOUR_MS === 0 && !NUMBERED_FAMILIES.has(family))
      chargeFunding(
        book,
        (s) => inputs.rateAt(s, at),
        (s) => inputs.markAt(s, at),
      );
    for (const row of snapshotRows(book, at, inputs.context(at))) records.push({ dataset: 'position_snapshots', family, ...row });
    snapshots += 1;
    rows += book.size;
  };
  const final = finalizedThrough(family, to);
  let next = 0;
  for (const fill of fills) {
    while (next < boundaries.length && boundaries[next]! <= fill.ts) takeSnapshot(boundaries[next++]!);
    const leg = applyFill(book, fill, final === undefined ? undefined : fill.ts <= final);
    records.push({ dataset: 'position_changes', family, ...leg });
  }
  while (next < boundaries.length) takeSnapshot(boundaries[next++]!);
  return { records, legs: fills.length, snapshots, rows };
}

/** Builds one family's change log and snapshots up to its target instant (or until the budget is spent). */
async function buildFamily(deps: ArchiveDeps, family: PositionFamily, report: PositionsReport, withinBudget: () => boolean): Promise<void> {
  const target = targetInstant(family, deps.clock.now());
  let built = await latestSnapshotAt(deps, family, target);
  if (built !== undefined && built >= target) {
    report.builtThrough[family] = built;
    return;
  }
  const [book, registry] = await Promise.all([
    built === undefined ? new Map() : snapshotRowsAt(deps, family, built).then(bookFromSnapshot),
    // Read once a run: the registry changes with listings, not with every hour of a backlog.
    registryAt(deps, family, target),
  ]);
  let from = built ?? positionsCoverage(family);
  while (from < target && withinBudget()) {
    // Nothing held and nothing traded: skip to the first day with fills (one marker records the jump).
    if (book.size === 0) from = Math.max(from, Math.min(await firstTradingDay(deps, family, from, target), target - 1));
    const to = Math.min(target, Math.floor(from / HOUR_MS) * HOUR_MS + HOUR_MS);
    const out = await step(deps, family, registry, book, from, to);
    // The legs first, then the snapshot, which is the family's progress: written as one batch, a
    // snapshot whose file landed while the legs' failed would move the next run past legs never written.
    const legs = out.records.filter((r) => r.dataset === 'position_changes');
    if (legs.length > 0) await ingestRecords(deps, legs);
    await ingestRecords(
      deps,
      out.records.filter((r) => r.dataset !== 'position_changes'),
    );
    report.steps += 1;
    report.legs += out.legs;
    report.snapshots += out.snapshots;
    report.snapshotRows += out.rows;
    from = to;
    built = to;
  }
  if (built !== undefined) report.builtThrough[family] = built;
}

export async function buildPositions(deps: ArchiveDeps, options: PositionsOptions = {}): Promise<PositionsReport> {
  const report: PositionsReport = { steps: 0, legs: 0, snapshots: 0, snapshotRows: 0, skippedLeased: 0, builtThrough: {} };
  const started = performance.now();
  const withinBudget = () => options.budgetMs === undefined || performance.now() - started < options.budgetMs;
  const owner = randomUUID();
  for (const family of options.families ?? POSITION_FAMILIES) {
    const lease = `positions#${family}`;
    if (!(await deps.manifest.acquireLease(lease, owner, deps.clock.now() + LEASE_MS, deps.clock.now()))) {
      report.skippedLeased += 1;
      continue;
    }
    try {
      await buildFamily(deps, family, report, withinBudget);
    } finally {
      await deps.manifest.releaseLease(lease, owner);
    }
  }
  return report;
}
