/**
 * The public catalogue of what each family serves (`/v1/capabilities`; reference §3 Capability).
 * Every per-family operation of the route table names its data type here, so the catalogue is
 * generated from the routes and cannot disagree with them; each data type names the datasets whose
 * coverage start it reports (the first one the family has) and how its rows arrive.
 */
import * as v from 'valibot';
import type { Dataset } from './datasets.ts';

export const CADENCES = ['event', 'snapshot', 'sample', 'interval', 'reference'] as const;

export interface DataTypeDef {
  /** Datasets behind the data type, in order of preference for the coverage start. */
  datasets: readonly Dataset[];
  cadence: (typeof CADENCES)[number];
  notes?: string;
}

export const DATA_TYPES = {
  trades: { datasets: ['trades'], cadence: 'event' },
  cvd: {
    datasets: ['trades'],
    cadence: 'interval',
    notes: 'Taker buy minus sell notional per bucket, from the trade tape; the running total restarts on every page.',
  },
  candles: { datasets: ['candles_1m'], cadence: 'interval', notes: 'Rolled up on demand from 1-minute candles; a bucket without trades has no bar.' },
  trigger_orders: { datasets: ['order_events'], cadence: 'event' },
  order_history: { datasets: ['order_events'], cadence: 'event' },
  twap: { datasets: ['twaps'], cadence: 'event', notes: 'TWAP statuses with the notional their fills (trades with the TWAP id) executed.' },
  order_flow: { datasets: ['order_events'], cadence: 'interval' },
  trigger_levels: {
    datasets: ['order_events'],
    cadence: 'snapshot',
    notes: 'Resting trigger orders by trigger price around the mark, from order events; history every 15 minutes.',
  },
  instruments: { datasets: ['instruments'], cadence: 'reference', notes: 'Point in time: the registry as it stands now.' },
  wallet_classify: {
    datasets: ['trades', 'order_events', 'position_changes'],
    cadence: 'snapshot',
    notes: "A UTC day of each wallet's fills, orders and closed positions, with the class the archive's rule gives.",
  },
  questions: {
    datasets: ['instruments'],
    cadence: 'reference',
    notes: 'hip4 questions, from the outcome metadata of the instrument registry (point in time: now).',
  },
  oi: { datasets: ['open_interest'], cadence: 'sample' },
  funding: { datasets: ['funding'], cadence: 'sample', notes: 'Rates are decimal fractions, not annualized.' },
  liquidations: { datasets: ['liquidations', 'altx_liquidations'], cadence: 'event' },
  liquidation_levels: {
    datasets: ['position_snapshots'],
    cadence: 'snapshot',
    notes: "Positions' projected liquidation prices by price bucket, at each positions snapshot; isolated at max leverage (the archive does not see margin).",
  },
  oracle: {
    datasets: ['open_interest'],
    cadence: 'sample',
    notes: "The deployer's external price beside the mark, and the discovery bounds 1 / max leverage either side of it.",
  },
  market_state: { datasets: ['open_interest', 'trades'], cadence: 'sample', notes: 'Prices, the latest summary and per-dataset freshness.' },
  l2_orderbook: { datasets: ['l2_snapshots'], cadence: 'snapshot', notes: 'Native snapshots: at most 20 levels a side on the perpx families.' },
  l2_full_depth: { datasets: ['l4_diffs'], cadence: 'event', notes: 'Derived from the order-level book.' },
  l4_orderbook: { datasets: ['l4_diffs'], cadence: 'event' },
  l3_orderbook: { datasets: ['l4_diffs'], cadence: 'event', notes: 'At most 250 orders a side.' },
  positions: {
    datasets: ['position_snapshots'],
    cadence: 'snapshot',
    notes: 'Rebuilt from fills: hourly snapshots, live every few minutes, as-of reads at any instant.',
  },
  accounts: { datasets: ['accounts'], cadence: 'reference' },
  breadth: { datasets: [], cadence: 'interval', notes: 'Share of instruments above session VWAP, every minute.' },
} as const satisfies Record<string, DataTypeDef>;

export type DataType = keyof typeof DATA_TYPES;

export const CapabilitySchema = v.strictObject({
  venue: v.string(),
  datatype: v.picklist(Object.keys(DATA_TYPES) as [DataType, ...DataType[]]),
  rest_routes: v.array(v.string()),
  ws_channels: v.array(v.string()),
  live: v.boolean(),
  replay: v.boolean(),
  available_from: v.nullable(v.pipe(v.string(), v.description('RFC 3339 UTC'))),
  cadence: v.picklist(CADENCES),
  page_limit: v.nullable(v.pipe(v.number(), v.integer())),
  intervals: v.array(v.string()),
  notes: v.nullable(v.string()),
});
export type Capability = v.InferOutput<typeof CapabilitySchema>;
