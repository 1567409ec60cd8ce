/**
 * Sampled series over the archive: open interest, funding, and prices (mark, oracle and mid, read
 * from the open-interest samples that carry them). A history page is the native cadence,
 * or with `interval` the last sample of each bucket (never an average); `current` is the newest
 * sample at or before now, read newest file first so it never scans a day of files.
 */
import { AppError } from '../errors.ts';
import { isSymbolOf, type Family } from '../venues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { readWindowJson } from '../archive/read-pages.ts';
import { windowSource } from '../archive/read.ts';
import { EMPTY, page, startPage, windowPage, type JsonRows, type WindowParams } from './queries.ts';
import { bucketPage } from './candles.ts';
import { FUNDING_PROJECTION, PRICE_PROJECTION, openInterestProjection } from './shape.ts';
import { SAMPLE_INTERVALS, type SampleInterval } from '#schemas/intervals.ts';
import type { Funding, OpenInterest, PriceSnapshot } from '#schemas/market.ts';

interface SeriesDef<Row> {
  dataset: 'open_interest' | 'funding';
  projection: (family: Family) => string;
  readonly rowType?: Row;
}

const SERIES = {
  open_interest: { dataset: 'open_interest', projection: openInterestProjection } satisfies SeriesDef<OpenInterest>,
  funding: { dataset: 'funding', projection: () => FUNDING_PROJECTION } satisfies SeriesDef<Funding>,
  prices: { dataset: 'open_interest', projection: () => PRICE_PROJECTION } satisfies SeriesDef<PriceSnapshot>,
} as const;

export type Series = keyof typeof SERIES;
type RowOf<S extends Series> = S extends 'open_interest' ? OpenInterest : S extends 'funding' ? Funding : PriceSnapshot;

export interface SeriesRequest extends WindowParams {
  routeId: string;
  family: Family;
  symbol: string;
  interval?: SampleInterval;
}

/** hip4 sides are `#N`; the bare `N` is accepted for them too. */
export const seriesSymbol = (family: Family, symbol: string) => (family === 'hip4' && /^\d+$/.test(symbol) ? `#${symbol}` : symbol);

export async function seriesPage<S extends Series>(deps: ArchiveDeps, series: S, req: SeriesRequest, now: number): Promise<JsonRows<RowOf<S>>> {
  const { dataset } = SERIES[series];
  const width = req.interval && SAMPLE_INTERVALS[req.interval];
  // With an interval, a page's last bucket (its cursor) may open before `start`.
  const paging = startPage(dataset, req, req.symbol, { interval: req.interval }, now, width ? (start) => start - (start % width) : undefined);
  if ('done' in paging) return paging.done;
  const projection = SERIES[series].projection(req.family);
  if (!width) {
    return page(await windowPage(deps, { dataset, family: req.family, symbol: req.symbol, limit: req.limit, projection }, paging), paging);
  }
  const { window, after } = paging;
  const source = await windowSource(deps, { dataset, family: req.family, symbol: req.symbol, from: window[0], to: window[1] });
  if (!source) return EMPTY;
  // After a cursor: the buckets opening after its instant (a bucket's start, as served, or a row's time a client names).
  const result = await bucketPage(deps, {
    buckets: `SELECT *, ts // $q_width * $q_width AS bucket FROM (${source.sql})
              QUALIFY row_number() OVER (PARTITION BY ts // $q_width ORDER BY ts DESC) = 1`,
    params: { ...source.params, q_width: width },
    projection,
    from: after ? Number(after[0]) + 1 : Number.MIN_SAFE_INTEGER,
    limit: req.limit,
  });
  return page(result, paging);
}

/** How far back `current` looks for the newest sample; older than this is not current. */
const CURRENT_LOOKBACK_MS = 7 * 86_400_000;

/** The newest sample at or before now, and how old it is. */
export async function currentSample<S extends Series>(
  deps: ArchiveDeps,
  series: S,
  family: Family,
  symbol: string,
  now: number,
): Promise<{ row: RowOf<S>; ageMs: number }> {
  const { dataset, projection } = SERIES[series];
  const result = isSymbolOf(family, symbol)
    ? await readWindowJson(deps, {
        dataset,
        family,
        symbol,
        from: now - CURRENT_LOOKBACK_MS,
        to: now,
        limit: 1,
        direction: 'desc',
        projection: projection(family),
      })
    : undefined;
  if (!result?.count) throw new AppError('not_found', `No ${dataset.replace('_', ' ')} for ${symbol} on ${family} in the last 7 days.`, { param: 'symbol' });
  const row = JSON.parse(result.json) as RowOf<S>;
  return { row, ageMs: now - Date.parse(row.timestamp) };
}
