/**
 * Trigger levels: the trigger orders resting at an instant, by trigger price, in buckets around the
 * mark. An order rests from its `placed` event (as a trigger) until its next event of any kind
 * (triggered, filled, canceled, force canceled); its size is the placement's. Orders placed more
 * than TRIGGER_LOOKBACK before the instant are not seen, which bounds the scan: the reference
 * service reads the venue's open-order state, the archive only the events.
 */
import { AppError } from '../errors.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { Family } from '../venues.ts';
import { windowSource } from '../archive/read.ts';
import { bucketPoints, instantPage, iso, levelGrid, marksAt, round8, type LevelPoint, type SnapshotRequest } from './levels.ts';
import type { LevelSide, TriggerLevelBucket, TriggerLevels, TriggerLevelsItem } from '#schemas/levels.ts';

export const TRIGGER_LOOKBACK = 7 * 86_400_000;
/** History snapshots every 15 minutes, on the quarter hour (the reference service's cadence). */
export const TRIGGER_SNAPSHOT_EVERY = 15 * 60_000;

/** One trigger-order event as read from the archive, in block order. */
export interface TriggerEvent {
  ts: number;
  oid: number;
  event: string;
  side: 'B' | 'A';
  size: number;
  trigger_price: number;
}

/**
 * The trigger orders resting at each instant (ascending), from the events in block order: a
 * placement with a trigger price and a size rests the order, any later event of its oid ends it.
 */
export function restingAt(events: readonly TriggerEvent[], instants: readonly number[]): Map<number, LevelPoint[]> {
  const resting = new Map<number, LevelPoint>();
  const out = new Map<number, LevelPoint[]>();
  let i = 0;
  for (const instant of instants) {
    for (; i < events.length && events[i]!.ts <= instant; i++) {
      const e = events[i]!;
      if (e.event === 'placed' && Number.isFinite(e.trigger_price) && e.size > 0) resting.set(e.oid, { price: e.trigger_price, side: e.side, weight: e.size });
      else resting.delete(e.oid);
    }
    out.set(instant, [...resting.values()]);
  }
  return out;
}

export interface LevelsParams {
  range_pct: number;
  buckets: number;
  side?: LevelSide;
}

/** One map: every bucket of the grid around `mid`, and the sizes summed over them. */
export function triggerMap(
  mid: number,
  points: readonly LevelPoint[],
  params: LevelsParams,
): { levels: TriggerLevelBucket[]; total_bid_size: number; total_ask_size: number } {
  const levels = bucketPoints(levelGrid(mid, params.range_pct, params.buckets), points, params.side).map((b) => ({
    price_bucket: b.centre,
    bid_count: b.bidCount,
    bid_size: b.bidWeight,
    ask_count: b.askCount,
    ask_size: b.askWeight,
  }));
  const total = (pick: (b: TriggerLevelBucket) => number) => round8(levels.reduce((sum, b) => sum + pick(b), 0));
  return { levels, total_bid_size: total((b) => b.bid_size), total_ask_size: total((b) => b.ask_size) };
}

/** The trigger-order events of [from, to] in block order. */
async function triggerEvents(deps: ArchiveDeps, family: Family, symbol: string, from: number, to: number): Promise<TriggerEvent[]> {
  const source = await windowSource(deps, { dataset: 'order_events', family, symbol, from, to });
  if (!source) return [];
  const rows = await deps.sql.query<TriggerEvent>({
    sql: `SELECT ts, oid, event, side, coalesce(TRY_CAST(size AS DOUBLE), 0) AS size, TRY_CAST(trigger_price AS DOUBLE) AS trigger_price
          FROM (${source.sql}) WHERE is_trigger ORDER BY ts, block_number, seq`,
    params: source.params,
  });
  return rows.map((r) => ({
    ts: Number(r.ts),
    oid: Number(r.oid),
    event: r.event,
    side: r.side,
    size: Number(r.size),
    trigger_price: r.trigger_price === null ? Number.NaN : Number(r.trigger_price),
  }));
}

export interface TriggerLevelsRequest extends LevelsParams {
  family: Family;
  symbol: string;
}

/** The map now; 404 when the market has no mark price in the hour before. */
export async function triggerLevels(deps: ArchiveDeps, req: TriggerLevelsRequest, now: number): Promise<TriggerLevels> {
  const mid = (await marksAt(deps, req.family, req.symbol, [now])).get(now);
  if (mid === undefined)
    throw new AppError('not_found', `No mark price for ${req.symbol} on ${req.family} in the hour before now: no trigger levels.`, { param: 'symbol' });
  const points = restingAt(await triggerEvents(deps, req.family, req.symbol, now - TRIGGER_LOOKBACK, now), [now]).get(now)!;
  return { mid_price: mid, as_of: iso(now), ...triggerMap(mid, points, req) };
}

export interface TriggerLevelsHistoryRequest extends SnapshotRequest, LevelsParams {
  summary?: boolean;
}

/** Quarter-hour instants in [from, to]. */
export function quarterHours(from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = Math.ceil(from / TRIGGER_SNAPSHOT_EVERY) * TRIGGER_SNAPSHOT_EVERY; t <= to; t += TRIGGER_SNAPSHOT_EVERY) out.push(t);
  return out;
}

/** Snapshots at the quarter hours of the window, oldest first; an instant without a mark price is left out (the page may be short). */
export async function triggerLevelsHistory(deps: ArchiveDeps, req: TriggerLevelsHistoryRequest, now: number) {
  const filters = { range_pct: req.range_pct, buckets: req.buckets, side: req.side, summary: req.summary };
  const page = await instantPage('order_events', req, filters, now, async (from, to) => quarterHours(from, to));
  if (page.instants.length === 0) return { data: [], nextCursor: page.nextCursor, meta: page.meta };
  const first = page.instants[0]!;
  const last = page.instants[page.instants.length - 1]!;
  const [marks, events] = await Promise.all([
    marksAt(deps, req.family, req.symbol, page.instants),
    triggerEvents(deps, req.family, req.symbol, first - TRIGGER_LOOKBACK, last),
  ]);
  const resting = restingAt(events, page.instants);
  const data: TriggerLevelsItem[] = page.instants.flatMap((t) => {
    const mid = marks.get(t);
    if (mid === undefined) return [];
    const { levels, ...totals } = triggerMap(mid, resting.get(t)!, req);
    return [{ snapshot_ts: iso(t), snapshot_ts_ms: t, mid_price: mid, ...totals, ...(!req.summary && { levels }) }];
  });
  return { data, nextCursor: page.nextCursor, meta: page.meta };
}
