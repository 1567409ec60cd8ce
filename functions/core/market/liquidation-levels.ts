/**
 * Liquidation levels: the positions of a positions snapshot (position_snapshots) by projected
 * liquidation price, in buckets around the mark. The rule is the venue's documented formula,
 *   liq = entry - side x margin_available / |size| / (1 - side / maintenance_leverage),
 * the price at which equity meets the maintenance margin, with side +1 for a long and -1 for a
 * short and the maintenance leverage twice the market's max leverage (maintenance margin is half
 * the initial margin at max leverage). The archive rebuilds positions from fills and never sees
 * margin, so each position is taken as isolated with the initial margin of max leverage
 * (|size| x entry / max_leverage, so margin_available = |size| x entry / (2 x max_leverage)): the
 * nearest liquidation the position can have. A position without an entry price or max leverage has
 * no liquidation price; its notional is `flagged_notional`, out of the buckets.
 */
import { AppError } from '../errors.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { Family } from '../venues.ts';
import { windowSource } from '../archive/read.ts';
import { blocksAt } from './blocks.ts';
import { bucketPoints, instantPage, iso, levelGrid, marksAt, round8, type LevelPoint, type SnapshotRequest } from './levels.ts';
import type { LevelsParams } from './trigger-levels.ts';
import type { LiquidationLevelBucket, LiquidationLevels, LiquidationLevelsItem } from '#schemas/levels.ts';

/** A snapshot older than this is stale: `at` (or now) without a snapshot this recent has no levels (reference §7). */
export const SNAPSHOT_STALE_AFTER = 2 * 3_600_000;

/** The projected liquidation price of a position (signed size; at or below 0: never liquidated), or undefined without an entry price or max leverage. */
export function liquidationPrice(size: number, entry: number | null, maxLeverage: number | null): number | undefined {
  if (!size || entry === null || !(entry > 0) || maxLeverage === null || !(maxLeverage >= 1)) return undefined;
  const side = Math.sign(size);
  const abs = Math.abs(size);
  const maintenanceLeverage = 2 * maxLeverage;
  const marginAvailable = (abs * entry) / maxLeverage - (abs * entry) / maintenanceLeverage;
  return entry - (side * marginAvailable) / abs / (1 - side / maintenanceLeverage);
}

/** One open position of the snapshot as read. */
export interface SnapshotPosition {
  size: number;
  entry_price: number | null;
  max_leverage: number | null;
}

export interface LiquidationMap {
  levels: LiquidationLevelBucket[];
  total_long: number;
  total_short: number;
  flagged_notional: number;
}

/** One snapshot's map: notional is |size| x the mark; totals count every position with a liquidation price above 0, in range or not. */
export function liquidationMap(mid: number, positions: readonly SnapshotPosition[], params: LevelsParams): LiquidationMap {
  const points: LevelPoint[] = [];
  let flagged = 0;
  let long = 0;
  let short = 0;
  for (const p of positions) {
    const notional = Math.abs(p.size) * mid;
    const price = liquidationPrice(p.size, p.entry_price, p.max_leverage);
    if (price === undefined) {
      flagged += notional;
      continue;
    }
    // A long at 1x cannot be liquidated: it is not at risk.
    if (price <= 0) continue;
    if (p.size > 0) long += notional;
    else short += notional;
    points.push({ price, side: p.size > 0 ? 'B' : 'A', weight: notional });
  }
  const levels = bucketPoints(levelGrid(mid, params.range_pct, params.buckets), points, params.side).map((b) => ({
    price: b.centre,
    long_notional: b.bidWeight,
    short_notional: b.askWeight,
    long_count: b.bidCount,
    short_count: b.askCount,
  }));
  return { levels, total_long: round8(long), total_short: round8(short), flagged_notional: round8(flagged) };
}

/** The family's positions-snapshot instants in [from, to], ascending (marker rows included, so an instant without positions still counts). */
async function snapshotInstants(deps: ArchiveDeps, family: Family, symbol: string, from: number, to: number): Promise<number[]> {
  const source = await windowSource(deps, { dataset: 'position_snapshots', family, from, to });
  if (!source) return [];
  const rows = await deps.sql.query<{ ts: number }>({
    sql: `SELECT DISTINCT ts FROM (${source.sql}) WHERE symbol IN ('', $v_symbol) ORDER BY ts`,
    params: { ...source.params, v_symbol: symbol },
  });
  return rows.map((r) => Number(r.ts));
}

/** Each instant's open positions of the symbol, and its block (blocks.ts). */
async function snapshotsAt(deps: ArchiveDeps, family: Family, symbol: string, instants: readonly number[]) {
  const from = Math.min(...instants);
  const to = Math.max(...instants);
  const positions = new Map<number, SnapshotPosition[]>(instants.map((t) => [t, []]));
  const source = await windowSource(deps, { dataset: 'position_snapshots', family, symbol, from, to });
  if (source) {
    const rows = await deps.sql.query<{ ts: number; size: number; entry_price: number | null; max_leverage: number | null }>({
      sql: `SELECT ts, TRY_CAST(size AS DOUBLE) AS size, TRY_CAST(entry_price AS DOUBLE) AS entry_price, max_leverage
            FROM (${source.sql}) WHERE account <> '' AND TRY_CAST(size AS DOUBLE) <> 0`,
      params: source.params,
    });
    for (const r of rows) {
      positions.get(Number(r.ts))?.push({
        size: Number(r.size),
        entry_price: r.entry_price === null ? null : Number(r.entry_price),
        max_leverage: r.max_leverage === null ? null : Number(r.max_leverage),
      });
    }
  }
  return { positions, blocks: await blocksAt(deps, family, symbol, instants) };
}

async function snapshotItems(deps: ArchiveDeps, family: Family, symbol: string, instants: readonly number[], params: LevelsParams) {
  if (instants.length === 0) return [];
  const [marks, { positions, blocks }] = await Promise.all([marksAt(deps, family, symbol, instants), snapshotsAt(deps, family, symbol, instants)]);
  return instants.flatMap((t) => {
    const mid = marks.get(t);
    if (mid === undefined) return [];
    const map = liquidationMap(mid, positions.get(t)!, params);
    return [{ snapshot_ts: iso(t), snapshot_ts_ms: t, mid_price: mid, block_number: blocks.get(t) ?? 0, source: 'raw' as const, ...map }];
  });
}

export interface LiquidationLevelsRequest extends LevelsParams {
  family: Family;
  symbol: string;
  at?: number;
}

/** The newest snapshot at or before `at` (default now) within SNAPSHOT_STALE_AFTER; 404 without one or without its mark. */
export async function liquidationLevels(deps: ArchiveDeps, req: LiquidationLevelsRequest, now: number): Promise<LiquidationLevels> {
  const at = req.at ?? now;
  const instants = await snapshotInstants(deps, req.family, req.symbol, at - SNAPSHOT_STALE_AFTER, at);
  const newest = instants[instants.length - 1];
  const [item] = newest === undefined ? [] : await snapshotItems(deps, req.family, req.symbol, [newest], req);
  if (!item)
    throw new AppError('not_found', `No positions snapshot of ${req.symbol} on ${req.family} with a mark price in the 2 hours up to ${iso(at)}.`, {
      param: req.at === undefined ? 'symbol' : 'at',
    });
  return item;
}

export interface LiquidationLevelsHistoryRequest extends SnapshotRequest, LevelsParams {
  summary?: boolean;
}

/** Every positions snapshot of the window, oldest first; one without a mark price is left out (the page may be short). */
export async function liquidationLevelsHistory(deps: ArchiveDeps, req: LiquidationLevelsHistoryRequest, now: number) {
  const filters = { range_pct: req.range_pct, buckets: req.buckets, side: req.side, summary: req.summary };
  const page = await instantPage('position_snapshots', req, filters, now, (from, to) => snapshotInstants(deps, req.family, req.symbol, from, to));
  const items = await snapshotItems(deps, req.family, req.symbol, page.instants, req);
  const data: LiquidationLevelsItem[] = items.map(({ levels, ...rest }) => ({ ...rest, ...(!req.summary && { levels }) }));
  return { data, nextCursor: page.nextCursor, meta: page.meta };
}
