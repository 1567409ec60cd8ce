/**
 * Breadth history (SPEC "Breadth"): ascending minute rows, or with `interval` the last snapshot of
 * each bucket (never an average). `start` and `end` are inclusive; the cursor is the epoch ms of the
 * last row served, exclusive. A missing minute is simply absent, and so is an empty bucket.
 */
import { AppError } from '../errors.ts';
import { parseTransparentCursor } from '../market/cursor.ts';
import type { BreadthStore } from '#ports/breadth.ts';
import { BREADTH_INTERVALS, type BreadthInterval } from '#schemas/intervals.ts';
import type { BreadthFamily, BreadthSnapshot } from './compute.ts';

/** The first stored instant of each family's history (recomputed core history, live hip3 snapshots). */
export const BREADTH_COVERAGE: Readonly<Record<BreadthFamily, number>> = {
  perpx: Date.parse('2026-08-24T00:00:00Z'),
  hip3: Date.parse('2026-08-28T20:49:00Z'),
};
export const BREADTH_LIMIT_CAP = 1000;

export interface HistoryRequest {
  family: BreadthFamily;
  start?: number;
  end?: number;
  interval?: BreadthInterval;
  limit: number;
  cursor?: string;
}

/** The cursor's instant (`<ts_ms>`, checked as every transparent cursor is); rows after it are served. */
export function parseBreadthCursor(cursor: string): number {
  return parseTransparentCursor('ms', cursor)[0]!;
}

export async function breadthHistory(
  store: BreadthStore,
  req: HistoryRequest,
  now: number,
): Promise<{ snapshots: BreadthSnapshot[]; nextCursor: string | null }> {
  // Each default stands alone: an older `end` alone does not move the default start (an empty
  // series, per the spec), but a window the caller spelled out backwards is refused, as on every route.
  if (req.start !== undefined && req.end !== undefined && req.start > req.end) {
    throw new AppError('invalid_time_range', 'start must not be after end.', { param: 'start' });
  }
  const end = req.end ?? now;
  const start = req.start ?? now - 86_400_000;
  const limit = Math.min(req.limit, BREADTH_LIMIT_CAP);
  const lower = Math.max(start, req.cursor === undefined ? 0 : parseBreadthCursor(req.cursor) + 1);
  if (lower > end || end < BREADTH_COVERAGE[req.family]) return { snapshots: [], nextCursor: null };

  if (!req.interval) {
    const { snapshots, more } = await store.range(req.family, lower, end, limit);
    const last = snapshots[snapshots.length - 1];
    return { snapshots, nextCursor: more && last ? String(Date.parse(last.calculated_at)) : null };
  }

  const width = BREADTH_INTERVALS[req.interval];
  const picked: BreadthSnapshot[] = [];
  let from = lower;
  while (from <= end) {
    // Jump over empty stretches to the next stored minute, then take the last one of its bucket.
    const first = await store.edge(req.family, from, end, 'first');
    if (!first) break;
    const ts = Date.parse(first.calculated_at);
    const bucketEnd = Math.min(ts - (ts % width) + width - 1, end);
    const last = (await store.edge(req.family, ts, bucketEnd, 'last'))!;
    if (picked.length === limit) return { snapshots: picked, nextCursor: String(Date.parse(picked[limit - 1]!.calculated_at)) };
    picked.push(last);
    from = bucketEnd + 1;
  }
  return { snapshots: picked, nextCursor: null };
}
