/**
 * Liquidations over the archive: the fills of liquidated positions per market, per user, and their
 * notional per time bucket. A cascade's fills stay individual rows; `side` is the side that was
 * liquidated (A = a long, B = a short). altx records its liquidations as trades between two
 * numbered accounts, in a dataset and row shape of its own, with volume totals but no direction.
 */
import type { Family } from '../venues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { windowSource } from '../archive/read.ts';
import { coverageStart } from '../archive/coverage.ts';
import { EMPTY, page, startPage, windowPage, type JsonRows, type WindowParams } from './queries.ts';
import { bucketPage } from './candles.ts';
import { ALTX_LIQUIDATION_PROJECTION, ALTX_LIQUIDATION_VOLUME_PROJECTION, LIQUIDATION_PROJECTION, LIQUIDATION_VOLUME_PROJECTION } from './shape.ts';
import { SAMPLE_INTERVALS, type SampleInterval } from '#schemas/intervals.ts';
import type { AltxLiquidation, AltxLiquidationVolume, Liquidation, LiquidationVolume } from '#schemas/market.ts';

const notional = 'CAST(price AS DOUBLE) * CAST(size AS DOUBLE)';

/** Liquidated notional (price x size) in total and by the side liquidated, with counts: the columns of a volume bucket. */
export const LIQUIDATION_SUMS = `sum(${notional}) AS total_usd,
  coalesce(sum(${notional}) FILTER (WHERE side = 'A'), 0) AS long_usd, coalesce(sum(${notional}) FILTER (WHERE side = 'B'), 0) AS short_usd,
  count(*) AS count, count(*) FILTER (WHERE side = 'A') AS long_count, count(*) FILTER (WHERE side = 'B') AS short_count`;

/** Each liquidation dataset: how a row reads, and what a volume bucket sums. */
const SHAPES = {
  liquidations: {
    rows: LIQUIDATION_PROJECTION,
    volume: LIQUIDATION_VOLUME_PROJECTION,
    sums: LIQUIDATION_SUMS,
  },
  altx_liquidations: {
    rows: ALTX_LIQUIDATION_PROJECTION,
    volume: ALTX_LIQUIDATION_VOLUME_PROJECTION,
    sums: 'sum(CAST(usd_amount AS DOUBLE)) AS total_usd, count(*) AS count',
  },
} as const;

/** The family's liquidation dataset: altx has its own; the others share `liquidations` (or have none). */
const datasetOf = (family: Family): keyof typeof SHAPES => (coverageStart('altx_liquidations', family) !== undefined ? 'altx_liquidations' : 'liquidations');

export interface LiquidationsRequest extends WindowParams {
  routeId: string;
  family: Family;
  symbol: string;
}

export async function liquidationsPage(deps: ArchiveDeps, req: LiquidationsRequest, now: number): Promise<JsonRows<Liquidation | AltxLiquidation>> {
  const dataset = datasetOf(req.family);
  const paging = startPage(dataset, req, req.symbol, {}, now);
  if ('done' in paging) return paging.done;
  const result = await windowPage(deps, { dataset, family: req.family, symbol: req.symbol, limit: req.limit, projection: SHAPES[dataset].rows }, paging);
  return page(result, paging);
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
  const paging = startPage('liquidations', req, user, { symbol: req.symbol }, now);
  if ('done' in paging) return paging.done;
  const result = await windowPage(
    deps,
    {
      dataset: 'liquidations',
      family: req.family,
      symbol: req.symbol,
      limit: req.limit,
      projection: LIQUIDATION_PROJECTION,
      filter: { sql: 'liquidated_user = $q_user OR liquidator_user = $q_user', params: { q_user: user } },
    },
    paging,
  );
  return page(result, paging);
}

export interface LiquidationVolumeRequest extends LiquidationsRequest {
  interval: SampleInterval;
}

/**
 * Liquidated notional (price x size, USD) per bucket, split by the side liquidated, with counts
 * (altx: the total and count). A bucket without liquidations is absent, not zero.
 */
export async function liquidationVolumePage(
  deps: ArchiveDeps,
  req: LiquidationVolumeRequest,
  now: number,
): Promise<JsonRows<LiquidationVolume | AltxLiquidationVolume>> {
  const dataset = datasetOf(req.family);
  const width = SAMPLE_INTERVALS[req.interval];
  // A bucket (and the cursor naming it) may open before `start`.
  const paging = startPage(dataset, req, req.symbol, { interval: req.interval }, now, (start) => start - (start % width));
  if ('done' in paging) return paging.done;
  const { window, after } = paging;
  const source = await windowSource(deps, { dataset, family: req.family, symbol: req.symbol, from: window[0], to: window[1] });
  if (!source) return EMPTY;
  const result = await bucketPage(deps, {
    buckets: `SELECT ts // $v_width * $v_width AS bucket, any_value(symbol) AS symbol, ${SHAPES[dataset].sums} FROM (${source.sql}) GROUP BY 1`,
    params: { ...source.params, v_width: width },
    projection: SHAPES[dataset].volume,
    from: after ? Number(after[0]) + 1 : Number.MIN_SAFE_INTEGER,
    limit: req.limit,
  });
  return page(result, paging);
}
