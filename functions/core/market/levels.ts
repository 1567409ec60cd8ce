/**
 * What the level maps share (trigger levels, liquidation levels): the price grid around a mark, the
 * aggregation of priced points into its buckets, the mark price at each instant, and the paging of
 * snapshot instants (cursor = the last instant served, exclusive).
 */
import type { Family } from '../venues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { windowSource } from '../archive/read.ts';
import { DAY, startPage, type WindowParams } from './queries.ts';
import type { Dataset } from '#schemas/datasets.ts';
import type { LevelSide } from '#schemas/levels.ts';

/** Sums of doubles, rounded so no float noise shows. */
export const round8 = (x: number) => Math.round(x * 1e8) / 1e8;

/** How far back the mark price of an instant may be: an older one is no mark (the market was not sampled). */
export const MARK_LOOKBACK = 3_600_000;

export interface LevelGrid {
  /** The lowest price covered: mid x (1 - range_pct / 100). */
  low: number;
  width: number;
  count: number;
}

export function levelGrid(mid: number, rangePct: number, buckets: number): LevelGrid {
  const low = mid * (1 - rangePct / 100);
  return { low, width: (2 * mid * rangePct) / 100 / buckets, count: buckets };
}

/** The bucket holding a price: [low + i x width, low + (i+1) x width), the top edge in the last bucket; undefined outside. */
export function bucketIndex(grid: LevelGrid, price: number): number | undefined {
  if (!Number.isFinite(price) || grid.width <= 0) return undefined;
  const high = grid.low + grid.count * grid.width;
  if (price < grid.low || price > high) return undefined;
  return Math.min(grid.count - 1, Math.floor((price - grid.low) / grid.width));
}

/** A priced point on one side: B a bid (a long position), A an ask (a short); `weight` is summed per bucket. */
export interface LevelPoint {
  price: number;
  side: 'B' | 'A';
  weight: number;
}

export interface BucketSums {
  centre: number;
  bidCount: number;
  bidWeight: number;
  askCount: number;
  askWeight: number;
}

const SIDE_KEPT: Record<LevelSide, 'B' | 'A'> = { bid: 'B', buy: 'B', B: 'B', ask: 'A', sell: 'A', A: 'A' };

/**
 * Every bucket of the grid, lowest price first, with the count and summed weight of the points of
 * each side whose price falls in it; a side the filter drops counts zero everywhere.
 */
export function bucketPoints(grid: LevelGrid, points: readonly LevelPoint[], side?: LevelSide): BucketSums[] {
  const kept = side && SIDE_KEPT[side];
  const sums = Array.from({ length: grid.count }, (_, i) => ({
    centre: round8(grid.low + (i + 0.5) * grid.width),
    bidCount: 0,
    bidWeight: 0,
    askCount: 0,
    askWeight: 0,
  }));
  for (const point of points) {
    if (kept && point.side !== kept) continue;
    const i = bucketIndex(grid, point.price);
    if (i === undefined) continue;
    const bucket = sums[i]!;
    if (point.side === 'B') {
      bucket.bidCount++;
      bucket.bidWeight += point.weight;
    } else {
      bucket.askCount++;
      bucket.askWeight += point.weight;
    }
  }
  return sums.map((s) => ({ ...s, bidWeight: round8(s.bidWeight), askWeight: round8(s.askWeight) }));
}

/** The newest mark (open-interest samples) at or before each instant, within MARK_LOOKBACK; instants without one are absent. */
export async function marksAt(deps: ArchiveDeps, family: Family, symbol: string, instants: readonly number[]): Promise<Map<number, number>> {
  const marks = new Map<number, number>();
  if (instants.length === 0) return marks;
  const from = Math.min(...instants) - MARK_LOOKBACK;
  const to = Math.max(...instants);
  const source = await windowSource(deps, { dataset: 'open_interest', family, symbol, from, to });
  if (!source) return marks;
  const rows = await deps.sql.query<{ ts: number; mark: number }>({
    sql: `SELECT ts, TRY_CAST(mark_price AS DOUBLE) AS mark FROM (${source.sql}) WHERE TRY_CAST(mark_price AS DOUBLE) > 0 ORDER BY ts`,
    params: source.params,
  });
  const sorted = [...instants].sort((a, b) => a - b);
  let i = 0;
  let newest: { ts: number; mark: number } | undefined;
  for (const instant of sorted) {
    while (i < rows.length && Number(rows[i]!.ts) <= instant) newest = rows[i++];
    if (newest && instant - Number(newest.ts) <= MARK_LOOKBACK) marks.set(instant, Number(newest.mark));
  }
  return marks;
}

export interface SnapshotRequest extends WindowParams {
  routeId: string;
  family: Family;
  symbol: string;
}

/** A page of snapshot instants: those served, and the cursor after the last when more follow. */
export interface InstantPage {
  instants: number[];
  nextCursor: string | null;
  meta?: Record<string, unknown>;
}

/**
 * The instants of a history page: of `candidates(from, to)` (ascending) in [start, end] (start
 * defaulting to 24 hours before end), those after the cursor, `limit` of them.
 */
export async function instantPage(
  dataset: Dataset,
  req: SnapshotRequest,
  filters: Record<string, unknown>,
  now: number,
  candidates: (from: number, to: number) => Promise<number[]>,
): Promise<InstantPage> {
  const end = req.end ?? now;
  const paging = startPage(dataset, { ...req, start: req.start ?? Math.max(0, end - DAY), end }, req.symbol, filters, now);
  if ('done' in paging) return { instants: [], nextCursor: null, ...(paging.done.meta && { meta: paging.done.meta }) };
  const [from, to] = paging.window;
  const after = paging.after ? Number(paging.after[0]) : Number.NEGATIVE_INFINITY;
  const all = (await candidates(from, to)).filter((t) => t > after);
  const instants = all.slice(0, req.limit);
  const more = all.length > req.limit;
  return { instants, nextCursor: more ? paging.cursorAt([instants[instants.length - 1]!]) : null };
}

export const iso = (ms: number) => new Date(ms).toISOString();
