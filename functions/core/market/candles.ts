/**
 * Candles rolled up from 1-minute candles into UTC buckets (weeks anchored to Monday): a page reads
 * the span its `limit` can reach, then doubling spans until it is full.
 */
import type { Family } from '../venues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { SqlValue } from '#ports/sql.ts';
import { withMinuteCandles, type MinuteCandleSource } from '../archive/read-candles.ts';
import { CANDLE_INTERVALS, type CandleInterval } from '#schemas/intervals.ts';
import type { Candle } from '#schemas/market.ts';
import { CANDLE_PROJECTION } from './shape.ts';
import { DAY, EMPTY, type JsonRows, type WindowParams, page, startPage } from './queries.ts';

/** Weeks open on Monday 00:00 UTC; 1970-01-05 was the first Monday after the epoch. */
const WEEK_ANCHOR = 4 * DAY;

export function bucketStart(ts: number, interval: CandleInterval): number {
  const width = CANDLE_INTERVALS[interval];
  const anchor = interval === '1w' ? WEEK_ANCHOR : 0;
  return Math.floor((ts - anchor) / width) * width + anchor;
}

export interface CandlesRequest extends WindowParams {
  routeId: string;
  family: Family;
  symbol: string;
  interval: CandleInterval;
}

/**
 * Candles whose bucket opens in [start, end), each rolled up from every 1-minute candle inside it:
 * open the first open, close the last close, high the max, low the min, volumes and trade counts
 * summed. A bucket without a 1-minute candle does not exist: a missing bar is not a zero bar.
 */
export async function candlesPage(deps: ArchiveDeps, req: CandlesRequest, now: number): Promise<JsonRows<Candle>> {
  const paging = startPage('candles_1m', req, req.symbol, { interval: req.interval }, now);
  if ('done' in paging) return paging.done;
  const { window, after } = paging;
  const width = CANDLE_INTERVALS[req.interval];
  // After a cursor: the first bucket opening after its instant (a bucket's own start, as served, or any instant a client names).
  const firstBucket = after ? bucketStart(Number(after[0]), req.interval) + width : window[0];
  if (firstBucket >= window[1]) return EMPTY;
  // A page reads spans of whole buckets, not the whole window: first the `limit` buckets and the
  // one that tells whether more follow, so a page of a busy market opens the files of its own span.
  // A bucket exists only where trades were, so a quiet market's page reads on, each span twice the
  // last, until it has its buckets and one more, or the window ends.
  const lastMinute = bucketStart(window[1] - 1, req.interval) + width - 1;
  const parts: string[] = [];
  let count = 0;
  let last: (number | string)[] | undefined;
  let more = false;
  for (let from = bucketStart(firstBucket, req.interval), buckets = req.limit + 1; from <= lastMinute && !more; from += buckets * width, buckets *= 2) {
    const to = Math.min(lastMinute, from + buckets * width - 1);
    const result = await spanPage(
      deps,
      req,
      { from, to },
      { from: Math.max(firstBucket, from), before: Math.min(window[1], to + 1), limit: req.limit - count },
    );
    if (result.count > 0) {
      parts.push(result.json);
      count += result.count;
      last = result.last;
    }
    more = result.more;
  }
  return page({ json: parts.join(','), count, more, last }, paging);
}

type BucketWindow = { from: number; before: number; limit: number };

type BucketPage = Awaited<ReturnType<typeof bucketPage>>;

/** Buckets in [buckets.from, buckets.before) rolled up from the 1-minute candles of one span of whole buckets. */
function spanPage(deps: ArchiveDeps, req: CandlesRequest, span: { from: number; to: number }, buckets: BucketWindow): Promise<BucketPage> {
  return withMinuteCandles(deps, { family: req.family, symbol: req.symbol, ...span }, async (source) =>
    source ? rollUp(deps, req, source, buckets) : { json: '', count: 0, more: false },
  );
}

function rollUp(deps: ArchiveDeps, req: CandlesRequest, source: MinuteCandleSource, buckets: BucketWindow): Promise<BucketPage> {
  const width = CANDLE_INTERVALS[req.interval];
  // Pieces of minutes (stored candles beside the live tail's) are rolled up into buckets in one
  // aggregation: open and close by each piece's first and last trade (arg_min and arg_max, which
  // need no sort, unlike first and last with ORDER BY).
  const [openAt, closeAt] = source.pieces ? ['coalesce(open_ts, ts)', 'coalesce(close_ts, ts)'] : ['ts', 'ts'];
  return bucketPage(deps, {
    buckets: `WITH minutes AS (${source.pieces ?? source.sql})
      ${
        req.interval === '1m' && !source.pieces
          ? // 1-minute candles are served as they are stored.
            `SELECT ts AS bucket, open, high, low, close, volume, quote_volume, trade_count FROM minutes`
          : `SELECT (ts - $c_anchor) // $c_width * $c_width + $c_anchor AS bucket,
             arg_min(open, ${openAt}) AS open, max(high) AS high, min(low) AS low, arg_max(close, ${closeAt}) AS close,
             sum(volume) AS volume, sum(quote_volume) AS quote_volume, CAST(sum(trade_count) AS BIGINT) AS trade_count
           FROM minutes GROUP BY 1`
      }`,
    params: { ...source.params, ...((req.interval !== '1m' || source.pieces) && { c_anchor: req.interval === '1w' ? WEEK_ANCHOR : 0, c_width: width }) },
    projection: CANDLE_PROJECTION,
    ...buckets,
  });
}

/**
 * One page of time buckets, oldest first: `buckets` is SQL yielding a `bucket` column (the bucket's
 * start, epoch ms) beside the columns `projection` renders. Buckets in [from, before) are served;
 * one beyond `limit` is looked at to tell whether the window goes on. Parameter names of `buckets`
 * must not start with `b_`.
 */
export async function bucketPage(
  deps: Pick<ArchiveDeps, 'sql'>,
  q: { buckets: string; params: Record<string, SqlValue>; projection: string; from: number; before?: number; limit: number },
): Promise<{ json: string; count: number; more: boolean; last?: number[] }> {
  const [result] = await deps.sql.query({
    sql: `WITH b_all AS (${q.buckets}),
          b_page AS (
            SELECT *, row_number() OVER (ORDER BY bucket) AS b_rn FROM b_all
            WHERE bucket >= $b_from AND bucket < $b_before ORDER BY bucket LIMIT $b_fetch)
          SELECT string_agg(to_json(${q.projection}), ',' ORDER BY b_rn) FILTER (WHERE b_rn <= $b_take) AS json,
                 count(*) AS fetched, max_by(bucket, b_rn) FILTER (WHERE b_rn <= $b_take) AS last_bucket
          FROM b_page`,
    params: { ...q.params, b_from: q.from, b_before: q.before ?? Number.MAX_SAFE_INTEGER, b_fetch: q.limit + 1, b_take: q.limit },
  });
  const fetched = Number(result?.fetched ?? 0);
  const count = Math.min(fetched, q.limit);
  return { json: count > 0 ? String(result!.json) : '', count, more: fetched > q.limit, last: count > 0 ? [Number(result!.last_bucket)] : undefined };
}
