/**
 * Cumulative volume delta from the trade tape: per bucket, the notional (price x size) of trades
 * whose taker bought (`side` B) and sold (`side` A), their difference, and the running sum of the
 * differences from the first bucket of the page. The running sum restarts on every page, as the
 * reference client documents, so a page is self-contained; a bucket without trades is absent.
 */
import type { Family } from '../venues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { windowSource } from '../archive/read.ts';
import { DAY, resolveWindow, startPage, type WindowParams } from './queries.ts';
import { CVD_INTERVALS, type CvdBucket, type CvdInterval } from '#schemas/flow-analytics.ts';

export interface CvdRequest extends WindowParams {
  routeId: string;
  family: Family;
  symbol: string;
  interval: CvdInterval;
}

/** A bucket's taker sums as the archive aggregates them. */
export interface TakerSums {
  bucket: number;
  buy: number;
  sell: number;
}

/** Notionals are sums of doubles: rounded so no float noise shows, and the running sum is kept of the rounded deltas. */
const round = (x: number) => Math.round(x * 1e8) / 1e8;

/** Buckets, oldest first, with their deltas and the running sum of the deltas from the first. */
export function cvdBuckets(sums: readonly TakerSums[]): CvdBucket[] {
  let running = 0;
  return sums.map(({ bucket, buy, sell }) => {
    const delta = round(round(buy) - round(sell));
    running = round(running + delta);
    return {
      timestamp: new Date(bucket).toISOString(),
      timestamp_ms: bucket,
      buy_volume: round(buy),
      sell_volume: round(sell),
      delta,
      cumulative_delta: running,
    };
  });
}

export interface CvdPage {
  data: CvdBucket[];
  nextCursor: string | null;
  meta?: Record<string, unknown>;
}

const notional = 'CAST(price AS DOUBLE) * CAST(size AS DOUBLE)';

/**
 * One page of CVD buckets. With `start` or a cursor: buckets of [start, end) oldest first, `limit`
 * a page, each page's cursor the last bucket served. Without either: the newest `limit` buckets of
 * the 24 hours before `end`, and no cursor (reference §2.1).
 */
export async function cvdPage(deps: ArchiveDeps, req: CvdRequest, now: number): Promise<CvdPage> {
  const width = CVD_INTERVALS[req.interval];
  const newest = req.start === undefined && req.cursor === undefined;
  const end = req.end ?? now;
  const windowed = newest ? { ...req, start: Math.max(0, end - DAY), end } : req;
  resolveWindow(windowed, now);
  // A bucket (and the cursor naming it) may open before `start`.
  const paging = startPage('trades', { ...windowed }, req.symbol, { interval: req.interval }, now, (start) => start - (start % width));
  if ('done' in paging) return { data: [], nextCursor: null, ...(paging.done.meta && { meta: paging.done.meta }) };
  const [from, to] = paging.window;
  const source = await windowSource(deps, { dataset: 'trades', family: req.family, symbol: req.symbol, from, to });
  if (!source) return { data: [], nextCursor: null };
  const after = paging.after ? Number(paging.after[0]) : Number.MIN_SAFE_INTEGER;
  const rows = await deps.sql.query({
    sql: `SELECT * FROM (
            SELECT ts // $v_width * $v_width AS bucket,
              coalesce(sum(${notional}) FILTER (WHERE side = 'B'), 0) AS buy,
              coalesce(sum(${notional}) FILTER (WHERE side = 'A'), 0) AS sell
            FROM (${source.sql}) WHERE ts >= $v_from AND ts < $v_to GROUP BY 1)
          WHERE bucket > $v_after ORDER BY bucket ${newest ? 'DESC' : 'ASC'} LIMIT $v_fetch`,
    params: { ...source.params, v_width: width, v_from: from, v_to: to, v_after: after, v_fetch: newest ? req.limit : req.limit + 1 },
  });
  const sums = rows.map((r) => ({ bucket: Number(r.bucket), buy: Number(r.buy), sell: Number(r.sell) }));
  if (newest) return { data: cvdBuckets(sums.reverse()), nextCursor: null };
  const served = sums.slice(0, req.limit);
  const more = sums.length > req.limit;
  if (!more) return { data: cvdBuckets(served), nextCursor: null };
  return {
    data: cvdBuckets(served),
    nextCursor: paging.cursorAt([served[served.length - 1]!.bucket]),
    meta: {
      notice: 'One page of several: send meta.next_cursor back as cursor with the same start, end and interval; cumulative_delta restarts on each page.',
    },
  };
}
