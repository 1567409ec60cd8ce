/** Derivatives: open interest, funding, liquidations and per-market state. */
import * as v from 'valibot';
import { familiesOf } from '#schemas/datasets.ts';
import { FAMILIES } from '../core/venues.ts';
import {
  AltxLiquidationSchema,
  AltxLiquidationVolumeSchema,
  CoinFreshnessSchema,
  CoinSummarySchema,
  FundingSchema,
  PriceSnapshotSchema,
  LiquidationSchema,
  LiquidationVolumeQuery,
  LiquidationVolumeSchema,
  LiquidationsQuery,
  UserLiquidationsQuery,
  userPath,
  OpenInterestSchema,
  SeriesQuery,
  symbolPath,
} from '#schemas/market.ts';
import { Hip3OracleBoundsSchema, Hip3OracleExternalSchema } from '#schemas/oracle.ts';
import { capitalized, operationGroup, page } from './operation.ts';
import { LEVEL_OPERATIONS } from './derivatives-levels.ts';

/**
 * Where a sampled series is served: every family with its dataset, and the deprecated un-prefixed
 * core path (`/v1<suffix>`) as `getLegacy<Operation>`.
 */
const sampledSeries = (dataset: 'open_interest' | 'funding', operation: string, suffix: string, tag: string) => ({
  suffix,
  families: familiesOf(dataset),
  tags: [tag],
  billed: true,
  pathParams: symbolPath,
  legacy: [{ path: `/v1${suffix}`, operationId: `getLegacy${capitalized(operation)}` }],
});

/** Families with liquidations: core and hip3 in the shared dataset, altx in its own. */
const LIQUIDATION_FAMILIES = FAMILIES.filter((f) => familiesOf('liquidations').includes(f) || familiesOf('altx_liquidations').includes(f));

/** Open interest, funding, liquidations, the level maps and the per-market state (prices, summary, freshness) per family that has the data. */
export const DERIVATIVES_OPERATIONS = operationGroup('derivatives', {
  openInterest: {
    datatype: 'oi',
    ...sampledSeries('open_interest', 'openInterest', '/openinterest/{symbol}', 'Open interest'),
    summary: 'Open interest history: native cadence, or the last sample per interval',
    query: SeriesQuery,
    response: page(v.array(OpenInterestSchema), 'A page of open-interest samples, oldest first'),
  },
  openInterestCurrent: {
    datatype: 'oi',
    ...sampledSeries('open_interest', 'openInterestCurrent', '/openinterest/{symbol}/current', 'Open interest'),
    summary: 'The newest open-interest sample and its age',
    response: page(OpenInterestSchema, 'The newest sample; meta.age_ms says how old'),
  },
  funding: {
    datatype: 'funding',
    ...sampledSeries('funding', 'funding', '/funding/{symbol}', 'Funding'),
    summary: 'Funding-rate history: native cadence, or the last sample per interval',
    query: SeriesQuery,
    response: page(v.array(FundingSchema), 'A page of funding samples, oldest first'),
  },
  fundingCurrent: {
    datatype: 'funding',
    ...sampledSeries('funding', 'fundingCurrent', '/funding/{symbol}/current', 'Funding'),
    summary: 'The newest funding sample and its age',
    response: page(FundingSchema, 'The newest sample; meta.age_ms says how old'),
  },
  liquidations: {
    datatype: 'liquidations',
    suffix: '/liquidations/{symbol}',
    families: LIQUIDATION_FAMILIES,
    tags: ['Liquidations'],
    billed: true,
    pathParams: symbolPath,
    summary: "Liquidation fills of a market, oldest first; a cascade's fills stay individual rows",
    query: LiquidationsQuery,
    response: page(v.array(v.union([LiquidationSchema, AltxLiquidationSchema])), 'A page of liquidation fills (altx: its own row shape)'),
  },
  userLiquidations: {
    datatype: 'liquidations',
    suffix: '/liquidations/user/{user}',
    families: ['perpx'],
    tags: ['Liquidations'],
    billed: true,
    pathParams: userPath,
    summary: "A wallet's liquidations, as the liquidated party or the liquidator, oldest first",
    query: UserLiquidationsQuery,
    response: page(v.array(LiquidationSchema), 'A page of liquidation fills'),
  },
  liquidationVolume: {
    datatype: 'liquidations',
    suffix: '/liquidations/{symbol}/volume',
    families: LIQUIDATION_FAMILIES,
    tags: ['Liquidations'],
    billed: true,
    pathParams: symbolPath,
    summary: 'Liquidated notional per bucket, long and short, with counts (altx: total and count)',
    query: LiquidationVolumeQuery,
    response: page(v.array(v.union([LiquidationVolumeSchema, AltxLiquidationVolumeSchema])), 'Buckets with liquidations, oldest first'),
  },
  ...LEVEL_OPERATIONS,
  oracleExternalPrice: {
    datatype: 'oracle',
    suffix: '/oracle/external-price/{symbol}',
    families: ['hip3'],
    tags: ['Market state'],
    billed: true,
    pathParams: symbolPath,
    summary: 'The deployer-pushed external (oracle) price and the mark of the newest sample',
    response: page(Hip3OracleExternalSchema, 'The newest sample of the last day'),
  },
  oracleDiscoveryBounds: {
    datatype: 'oracle',
    suffix: '/oracle/discovery-bounds/{symbol}',
    families: ['hip3'],
    tags: ['Market state'],
    billed: true,
    pathParams: symbolPath,
    summary: 'Instantaneous price discovery bounds: the external price (or the mark) +- 1 / max leverage',
    response: page(Hip3OracleBoundsSchema, 'The bounds of the newest sample of the last day'),
  },
  prices: {
    datatype: 'market_state',
    suffix: '/prices/{symbol}',
    families: familiesOf('open_interest'),
    tags: ['Market state'],
    billed: true,
    pathParams: symbolPath,
    summary: 'Mark, oracle and mid price history: native cadence, or the last sample per interval',
    query: SeriesQuery,
    response: page(v.array(PriceSnapshotSchema), 'A page of price snapshots, oldest first'),
  },
  summary: {
    datatype: 'market_state',
    suffix: '/summary/{symbol}',
    families: familiesOf('open_interest'),
    tags: ['Market state'],
    billed: true,
    pathParams: symbolPath,
    summary: 'The latest prices, funding and open interest, with 24-hour traded and liquidated notional',
    response: page(CoinSummarySchema, 'The summary; members the family does not have are absent'),
  },
  freshness: {
    datatype: 'market_state',
    suffix: '/freshness/{symbol}',
    families: FAMILIES,
    tags: ['Market state'],
    billed: true,
    pathParams: symbolPath,
    summary: 'Per dataset, the newest record of the market and its lag behind now',
    response: page(CoinFreshnessSchema, 'One bucket per dataset the family has'),
  },
});
