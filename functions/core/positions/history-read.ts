/**
 * The hourly history reads of one account (`/positions/history`, `/account/history`): hourly
 * snapshot rows, a page at most 168 hours of them.
 */
import type { ArchiveDeps } from '#ports/archive.ts';
import type { SqlValue } from '#ports/sql.ts';
import { readWindow } from '../archive/read-pages.ts';
import { NUMBERED_FAMILIES, type SnapshotRow } from './engine.ts';
import { HOUR_MS, positionsCoverage, snapshotRowOf } from './store.ts';
import { accountSummaryOf, positionOf, qualityOf, type AccountSummaryRow, type PositionRow } from './shape.ts';
import { groupBy } from '../group.ts';
import { issue, openCursor, positionIn } from './cursor.ts';
import { HISTORY_PAGE_HOURS, checkRange, coverageMeta, inScope, type PositionsPage, type RangeRequest } from './read.ts';

/**
 * Hourly snapshot rows of one account in [start, end), hour by hour: a page holds at most 168
 * hours, so it may end short on an hour boundary and still carry a cursor.
 */
async function hourlyRowsOf(deps: ArchiveDeps, req: RangeRequest, now: number, rowLimit: number) {
  checkRange(req);
  const { fingerprint, state } = openCursor(req.cursor, req.routeId, req, now);
  // Resume at an hour, or within one after a row: (ts, account, symbol).
  const resume = state && positionIn(state, ['count'], ['count', 'count', 'text', 'text']);
  const from = resume ? (resume[0] as number) : Math.ceil(req.start / HOUR_MS) * HOUR_MS;
  const pageEnd = Math.min(req.end, from + HISTORY_PAGE_HOURS * HOUR_MS);
  const after = resume && resume.length > 1 ? resume.slice(1) : undefined;
  const params: Record<string, SqlValue> = { p_account: req.account };
  const rows =
    pageEnd <= from
      ? []
      : (
          await readWindow<SnapshotRow>(deps, {
            dataset: 'position_snapshots',
            family: req.family,
            from,
            to: pageEnd - 1,
            limit: rowLimit + 1,
            after,
            filter: { sql: 'account = $p_account AND ts % 3600000 = 0', params },
          })
        ).rows
          .map(snapshotRowOf)
          .filter(inScope(req));
  return { fingerprint, rows, pageEnd, from };
}

/** `/positions/history`: the account's positions at each hourly snapshot in [start, end). */
export async function walletHistory(deps: ArchiveDeps, req: RangeRequest, now: number): Promise<PositionsPage<PositionRow[]>> {
  if (req.end <= positionsCoverage(req.family)) return { data: [], nextCursor: null, meta: NUMBERED_FAMILIES.has(req.family) ? coverageMeta(req.family) : {} };
  const { fingerprint, rows, pageEnd } = await hourlyRowsOf(deps, req, now, req.limit);
  const page = rows.slice(0, req.limit);
  const window: [number, number] = [req.start, req.end];
  let nextCursor: string | null = null;
  // Resume within an hour after the last row, or at the next hour once this page's hours are done.
  if (rows.length > req.limit) nextCursor = issue(fingerprint, window, now, page.at(-1)!.ts, page.at(-1)!.ts, page.at(-1)!.account, page.at(-1)!.symbol);
  else if (pageEnd < req.end) nextCursor = issue(fingerprint, window, now, pageEnd);
  return { data: page.map((r) => positionOf(req.family, r, r.ts)), nextCursor, meta: { source: 'snapshot', quality: qualityOf(req.family, page) } };
}

/** `/account/history`: one summary per hourly snapshot in [start, end) at which the account held positions. */
export async function accountHistory(deps: ArchiveDeps, req: RangeRequest, now: number): Promise<PositionsPage<AccountSummaryRow[]>> {
  if (req.end <= positionsCoverage(req.family)) return { data: [], nextCursor: null, meta: NUMBERED_FAMILIES.has(req.family) ? coverageMeta(req.family) : {} };
  const { fingerprint, rows, pageEnd } = await hourlyRowsOf(deps, req, now, 1_000_000);
  const byHour = groupBy(rows, (row) => row.ts);
  const hours = [...byHour.keys()].sort((a, b) => a - b);
  const served = hours.slice(0, req.limit);
  const data = served.map((hour) => accountSummaryOf(req.family, req.account, byHour.get(hour)!, hour, { dex: req.dex, history: true }));
  const window: [number, number] = [req.start, req.end];
  const resumeAt = hours.length > served.length ? served.at(-1)! + HOUR_MS : pageEnd < req.end ? pageEnd : undefined;
  return {
    data,
    nextCursor: resumeAt === undefined ? null : issue(fingerprint, window, now, resumeAt),
    meta: { source: 'snapshot', quality: qualityOf(req.family, rows) },
  };
}
