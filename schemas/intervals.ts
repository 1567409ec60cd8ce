/** Bucket widths accepted by the routes, in milliseconds (the schemas' accepted values derive from these). */
const DAY = 86_400_000;

export const CANDLE_INTERVALS = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1d': DAY,
  '1w': 7 * DAY,
} as const;
export type CandleInterval = keyof typeof CANDLE_INTERVALS;

export const FLOW_INTERVALS = { '1m': 60_000, '5m': 300_000, '1h': 3_600_000 } as const;
export type FlowInterval = keyof typeof FLOW_INTERVALS;

/** Sampled series (open interest, funding): the last sample of each bucket. */
export const SAMPLE_INTERVALS = { '5m': 300_000, '15m': 900_000, '30m': 1_800_000, '1h': 3_600_000, '4h': 14_400_000, '1d': DAY } as const;
export type SampleInterval = keyof typeof SAMPLE_INTERVALS;

export const BREADTH_INTERVALS = { '5m': 300_000, '15m': 900_000, '30m': 1_800_000, '1h': 3_600_000, '4h': 14_400_000, '1d': DAY } as const;
export type BreadthInterval = keyof typeof BREADTH_INTERVALS;

/** The keys of an interval table as a non-empty tuple, for picklists. */
export const intervalNames = <T extends Record<string, number>>(table: T) => Object.keys(table) as [keyof T & string, ...(keyof T & string)[]];
