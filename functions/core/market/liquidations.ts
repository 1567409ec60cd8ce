/**
 * Liquidations over the archive: the fills of liquidated positions per market, per user, and their
 * notional per time bucket. A cascade's fills stay individual rows; `side` is the side that was
 * liquidated (A = a long, B = a short).
 */
import type { Family } from '../venues.ts';
import type { ArchiveDeps } from '../../ports/archive.ts';
import { readWindowJson, windowSource } from '../archive/read.ts';
import { EMPTY, bucketPage, page, startPage, type JsonRows, type WindowParams } from './queries.ts';
import { LIQUIDATION_PROJECTION, LIQUIDATION_VOLUME_PROJECTION } from './shape.ts';
import { SAMPLE_INTERVALS, type SampleInterval } from '../../../schemas/intervals.ts';
import type { Liquidation, LiquidationVolume } from '../../../schemas/market.ts';

export interface LiquidationsRequest extends WindowParams {
  routeId: string;
  family: Family;
  symbol: string;
}

export async function liquidationsPage(deps: ArchiveDeps, req: LiquidationsRequest, now: number): Promise<JsonRows<Liquidation>> {
  const start = startPage('liquidations', req, req.symbol, {}, now);
  if ('done' in start) return start.done;
  const { fingerprint, cursor, window } = start;
  const result = await readWindowJson(deps, {
    dataset: 'liquidations', family: req.family, symbol: req.symbol, from: window[0], to: window[1], after: cursor?.position,
    limit: req.limit, projection: LIQUIDATION_PROJECTION,
  });
  return page(result, fingerprint, window);
}

export interface UserLiquidationsRequest extends WindowParams {
  routeId: string;
  family: Family;
  user: string;
  /** Only this market. */
  symbol?: string;
}

/**
 * A user's liquidations across the family's markets (or one), as the liquidated party or as the
 * liquidator. Without a market the read covers every market's files of the window, oldest first,
 * and stops when the page is full.
 */
export async function userLiquidationsPage(deps: ArchiveDeps, req: UserLiquidationsRequest, now: number): Promise<JsonRows<Liquidation>> {
  const user = req.user.toLowerCase();
  const start = startPage('liquidations', req, user, { symbol: req.symbol }, now);
  if ('done' in start) return start.done;
  const { fingerprint, cursor, window } = start;
  const result = await readWindowJson(deps, {
    dataset: 'liquidations', family: req.family, symbol: req.symbol, from: window[0], to: window[1], after: cursor?.position,
    limit: req.limit, projection: LIQUIDATION_PROJECTION,
    filter: { sql: 'liquidated_user = $q_user OR liquidator_user = $q_user', params: { q_user: user } },
  });
  return page(result, fingerprint, window);
}

export interface LiquidationVolumeRequest extends LiquidationsRequest {
  interval: SampleInterval;
}

/**
 * Liquidated notional (price x size, USD) per bucket, split by the side liquidated, with counts.
 * A bucket without liquidations is absent, not zero.
 */
export async function liquidationVolumePage(deps: ArchiveDeps, req: LiquidationVolumeRequest, now: number): Promise<JsonRows<LiquidationVolume>> {
  const start = startPage('liquidations', req, req.symbol, { interval: req.interval }, now);
  if ('done' in start) return start.done;
  const { fingerprint, cursor, window } = start;
  const source = await windowSource(deps, { dataset: 'liquidations', family: req.family, symbol: req.symbol, from: window[0], to: window[1] });
  if (!source) return EMPTY;
  const result = await bucketPage(deps, {
    buckets: `SELECT ts // $v_width * $v_width AS bucket, any_value(symbol) AS symbol,
                sum(CAST(price AS DOUBLE) * CAST(size AS DOUBLE)) AS total_usd,
                coalesce(sum(CAST(price AS DOUBLE) * CAST(size AS DOUBLE)) FILTER (WHERE side = 'A'), 0) AS long_usd,
                coalesce(sum(CAST(price AS DOUBLE) * CAST(size AS DOUBLE)) FILTER (WHERE side = 'B'), 0) AS short_usd,
                count(*) AS count, count(*) FILTER (WHERE side = 'A') AS long_count, count(*) FILTER (WHERE side = 'B') AS short_count
              FROM (${source.sql}) GROUP BY 1`,
    params: { ...source.params, v_width: SAMPLE_INTERVALS[req.interval] },
    projection: LIQUIDATION_VOLUME_PROJECTION, from: cursor ? Number(cursor.position[0]) + 1 : Number.MIN_SAFE_INTEGER, limit: req.limit,
  });
  return page(result, fingerprint, window);
}
