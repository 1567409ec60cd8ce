import { HOUR_MS, MINUTE_MS, rowsOf } from './kit/reads.ts';
import type { MarketReference } from './kit/relative-metrics.ts';
import type { Family } from '../venues.ts';
import { common, declaration, minute, relative, usd, type EventDefinition } from './declare.ts';
import { iso, bySymbol, round, percent } from './kit/format.ts';
import type { Candidate } from './kit/candidate.ts';
import { MIN_DENOMINATOR_USD } from './kit/relative-metrics.ts';
import { FAMILY_PREFIX } from '../venues.ts';
import type { LiquidationRecord } from '#schemas/datasets.ts';

export type BurstParams = { window_s: number; threshold_mode: string; threshold_usd: number; threshold_pct: number };

/**
 * What market.liquidation_burst sums: a liquidation fill, or (from the liquidation_minutes_1h
 * reduction) the fills of one market and minute folded into one row: `fills` fills whose
 * notional is `price` x `size`.
 */
export type BurstRow = Pick<LiquidationRecord, 'family' | 'symbol' | 'ts'> & { price: string | number; size: string | number; fills?: number };

/** The first index of `sorted` whose value is above `value`. */
function firstAbove(sorted: readonly number[], value: number): number {
  let [lo, hi] = [0, sorted.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! > value) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * `market.liquidation_burst`: liquidated notional over the trailing `window_s`, judged at each
 * minute's end, crossing the threshold (USD, or percent of open interest or of last-hour volume);
 * the rising edge only. A percent mode never fires while its denominator is under 10,000 USD.
 *
 * Only the minute ends that can be an edge are judged, so a month of one market costs its rows,
 * not its minutes (the estimate runs this over 30 days): in USD mode the sum rises only at a
 * minute end some row enters, and a percent mode can fire only while the window holds a row
 * (thresholds are positive, so an empty window is never over).
 */
export function liquidationBursts(
  rows: readonly BurstRow[],
  from: number,
  to: number,
  paramSets: readonly BurstParams[],
  reference: (family: Family, symbol: string, at: number) => MarketReference | undefined,
): Candidate<'market.liquidation_burst'>[] {
  const out: Candidate<'market.liquidation_burst'>[] = [];
  for (const [symbol, series] of bySymbol(rows)) {
    const family = series[0]!.family as Family;
    const times = series.map((r) => r.ts);
    const firstEnd = Math.ceil(from / MINUTE_MS) * MINUTE_MS;
    for (const params of paramSets) {
      const windowMs = params.window_s * 1000;
      const measure = (end: number) => {
        let usd = 0;
        let count = 0;
        // The window's rows, summed oldest first (the order fixes the floating-point sum).
        for (let i = firstAbove(times, end - windowMs); i < series.length && series[i]!.ts <= end; i += 1) {
          usd += Number(series[i]!.price) * Number(series[i]!.size);
          count += series[i]!.fills ?? 1;
        }
        const ref = reference(family, symbol, end);
        const denominator =
          params.threshold_mode === 'pct_oi' ? ref?.openInterestUsd : params.threshold_mode === 'pct_volume_1h' ? ref?.volume1hUsd : undefined;
        const value =
          params.threshold_mode === 'usd'
            ? usd
            : denominator === undefined || denominator === null || denominator < MIN_DENOMINATOR_USD
              ? null
              : percent(usd / denominator);
        const threshold = params.threshold_mode === 'usd' ? params.threshold_usd : params.threshold_pct;
        return { usd, count, value, over: value !== null && value >= threshold, ref };
      };
      // The minute ends in [from, to) that can be an edge: each row's own minute end (USD), or
      // every minute end while the row is in the window (percent modes).
      const ends = new Set<number>();
      for (const ts of times) {
        const entered = Math.ceil(ts / MINUTE_MS) * MINUTE_MS;
        const last = params.threshold_mode === 'usd' ? entered : Math.min(to - 1, ts + windowMs - 1);
        for (let end = Math.max(entered, firstEnd); end <= last && end < to; end += MINUTE_MS) ends.add(end);
      }
      for (const end of [...ends].sort((a, b) => a - b)) {
        const now = measure(end);
        if (!now.over || measure(end - MINUTE_MS).over) continue;
        out.push(liquidationBurst(family, symbol, end, params, now));
      }
    }
  }
  return out;
}

/** One market.liquidation_burst: the window ending at `end` holds `usd` of `count` fills, `value` in the mode's unit. */
export function liquidationBurst(
  family: Family,
  symbol: string,
  end: number,
  params: BurstParams,
  at: { usd: number; count: number; value: number | null },
): Candidate<'market.liquidation_burst'> {
  const fields = { venue: family, symbol, timestamp: iso(end), notional_usd: round(at.usd, 2), liquidation_count: at.count };
  const paramsKey = `${params.window_s}:${params.threshold_mode}:${params.threshold_mode === 'usd' ? params.threshold_usd : params.threshold_pct}`;
  let data: Candidate['data'] | undefined;
  return {
    type: 'market.liquidation_burst',
    key: `burst:${family}:${symbol}:${end}:${paramsKey}`,
    occurredAt: end,
    venue: family,
    symbol,
    address: null,
    params: { ...params },
    metrics: fields,
    // Built when first read (see fundingFlip).
    get data() {
      return (data ??= {
        ...fields,
        window_s: params.window_s,
        threshold_mode: params.threshold_mode,
        value: round(at.value!, 4),
        threshold: params.threshold_mode === 'usd' ? params.threshold_usd : params.threshold_pct,
        api_url: `${FAMILY_PREFIX[family]}/trades/${encodeURIComponent(symbol)}?start=${end - params.window_s * 1000}&end=${end}`,
      });
    },
  };
}

const VENUES = ['perpx', 'hip3', 'altx'] as const;

export default {
  declaration: declaration({
    type: 'market.liquidation_burst',
    live: true,
    description: 'Liquidation volume in a rolling window crosses the threshold (rising edge only)',
    scope: 'public',
    venues: VENUES,
    scopeKeys: ['venue', 'symbols'],
    // A bare `threshold` reads as USD.
    paramAliases: { threshold: 'threshold_usd' },
    params: {
      window_s: { type: 'integer', default: 300, menu: [60, 300, 900, 3600], unit: 's', description: 'Rolling window' },
      threshold_mode: { type: 'enum', default: 'usd', menu: ['usd', 'pct_oi', 'pct_volume_1h'], description: 'What the threshold measures' },
      threshold_usd: { type: 'number', default: 1_000_000, min: 1000, unit: 'USD', description: 'Threshold in USD (a top-level `threshold` means this)' },
      threshold_pct: { type: 'number', default: 1, min: 0.01, max: 100, unit: '%', description: 'Threshold in percent for the pct modes' },
    },
    metrics: { ...common(VENUES), notional_usd: usd('Liquidated notional in the window'), liquidation_count: { type: 'integer' }, ...relative() },
    notionalMetric: 'notional_usd',
  }),
  detection: minute<BurstParams, 'market.liquidation_burst'>({
    params: ['window_s', 'threshold_mode', 'threshold_usd', 'threshold_pct'],
    detect: async (ctx, bursts) => {
      const longest = Math.max(...bursts.map((s) => s.window_s));
      const rows = await rowsOf(ctx, 'liquidations', VENUES, ctx.from - longest * 1000 - MINUTE_MS);
      // Percent modes compare with references at each minute end; fetch them up front (the detector is synchronous).
      const references = new Map<string, MarketReference | undefined>();
      if (bursts.some((s) => s.threshold_mode !== 'usd')) {
        for (const key of new Set(rows.map((r) => `${r.family}|${r.symbol}`))) {
          const [family, symbol] = key.split('|') as [Family, string];
          for (let end = Math.ceil(ctx.from / MINUTE_MS) * MINUTE_MS - MINUTE_MS; end < ctx.to; end += MINUTE_MS) {
            references.set(`${key}|${end}`, await ctx.references.market(family, symbol, end));
          }
        }
      }
      return liquidationBursts(rows, ctx.from, ctx.to, bursts, (family, symbol, at) => references.get(`${family}|${symbol}|${at}`));
    },
  }),
  preview: {
    estimate: {
      metric: 'notional_usd',
      gate: { param: 'threshold_usd', lowest: 1_000, fixed: { threshold_mode: 'usd' } },
      // Windows are whole minutes judged at minute ends, so a minute's fills are summed once at
      // compaction and the detector runs over those sums. Percent modes judge each minute against
      // the market's references of that minute, which the reduction does not keep: replayed.
      reduced: {
        rows: { reduction: 'liquidation_minutes_1h' },
        bySymbol: true,
        since: (from) => from - HOUR_MS - MINUTE_MS,
        answers: (params) => params.threshold_mode === 'usd',
        detect: async (rows, from, to, _archive, paramSets) =>
          liquidationBursts(
            rows.map((r) => ({
              family: r.family as Family,
              symbol: String(r.symbol),
              ts: Number(r.ts),
              price: Number(r.notional),
              size: 1,
              fills: Number(r.fills),
            })),
            from,
            to,
            paramSets as BurstParams[],
            () => undefined,
          ),
        // The same judgement in SQL (USD mode, the only one answered): each minute end where fills
        // enter, its window's sum against the window's one minute earlier; only the edges are decoded.
        occurrences: {
          sql: (rows, params) => {
            const windowMs = Number(params.window_s) * 1000;
            // Frame offsets cannot be bound parameters: a validated whole number of seconds, checked again.
            if (!Number.isSafeInteger(windowMs) || windowMs < MINUTE_MS)
              throw new Error(`window_s ${String(params.window_s)} is not a whole number of minutes`);
            return {
              sql: `WITH minutes AS (
                  SELECT family, symbol, ((ts + ${MINUTE_MS - 1}) // ${MINUTE_MS}) * ${MINUTE_MS} AS e, sum(notional) AS usd, sum(fills) AS fills FROM ${rows} GROUP BY ALL),
                judged AS (
                  SELECT family, symbol, e, sum(usd) OVER now_w AS usd_now, sum(fills) OVER now_w AS fills_now, coalesce(sum(usd) OVER before_w, 0) AS usd_before FROM minutes
                  WINDOW now_w AS (PARTITION BY family, symbol ORDER BY e RANGE BETWEEN ${windowMs - MINUTE_MS} PRECEDING AND CURRENT ROW),
                    before_w AS (PARTITION BY family, symbol ORDER BY e RANGE BETWEEN ${windowMs} PRECEDING AND ${MINUTE_MS} PRECEDING))
                SELECT family, symbol, e AS ts, usd_now, fills_now, round(usd_now, 2) AS notional_usd FROM judged
                WHERE e >= ((CAST($o_from AS BIGINT) + ${MINUTE_MS - 1}) // ${MINUTE_MS}) * ${MINUTE_MS} AND e < $o_to AND usd_now >= $o_threshold AND usd_before < $o_threshold`,
              params: { o_threshold: Number(params.threshold_usd) },
            };
          },
          candidate: (c, i, params) =>
            liquidationBurst(c.family![i] as Family, String(c.symbol![i]), Number(c.ts![i]), params as BurstParams, {
              usd: Number(c.usd_now![i]),
              count: Number(c.fills_now![i]),
              value: Number(c.usd_now![i]),
            }),
        },
        note: "Each minute's liquidated notional is summed once; sums may differ from delivery's in the last floating-point digit.",
      },
    },
  },
} satisfies EventDefinition<'market.liquidation_burst'>;
