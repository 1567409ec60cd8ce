import { liquidationBurst, liquidationBursts, type BurstParams } from '../detect/minute-detectors.ts';
import { HOUR_MS, MINUTE_MS, rowsOf } from '../detect/minute-reads.ts';
import type { MarketReference } from '../detect/relative-metrics.ts';
import type { Family } from '../venues.ts';
import { common, declaration, minute, relative, usd, type EventDefinition } from './declare.ts';

const VENUES = ['perpx', 'hip3', 'altx'] as const;

export default {
  declaration: declaration({
    type: 'market.liquidation_burst', live: true, description: 'Liquidation volume in a rolling window crosses the threshold (rising edge only)',
    scope: 'public', venues: VENUES, scopeKeys: ['venue', 'symbols'],
    params: {
      window_s: { type: 'integer', default: 300, menu: [60, 300, 900, 3600], unit: 's', description: 'Rolling window' },
      threshold_mode: { type: 'enum', default: 'usd', menu: ['usd', 'pct_oi', 'pct_volume_1h'], description: 'What the threshold measures' },
      threshold_usd: { type: 'number', default: 1_000_000, min: 1000, unit: 'USD', description: 'Threshold in USD (a top-level `threshold` means this)' },
      threshold_pct: { type: 'number', default: 1, min: 0.01, max: 100, unit: '%', description: 'Threshold in percent for the pct modes' },
    },
    metrics: { ...common(VENUES), notional_usd: usd('Liquidated notional in the window'), liquidation_count: { type: 'integer' }, ...relative() },
    notionalMetric: 'notional_usd',
  }),
  detection: minute<BurstParams>({
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
      metric: 'notional_usd', gate: { param: 'threshold_usd', lowest: 1_000, fixed: { threshold_mode: 'usd' } },
      // Windows are whole minutes judged at minute ends, so a minute's fills are summed once at
      // compaction and the detector runs over those sums. Percent modes judge each minute against
      // the market's references of that minute, which the reduction does not keep: replayed.
      reduced: {
        rows: { reduction: 'liquidation_minutes_1h' }, bySymbol: true, since: (from) => from - HOUR_MS - MINUTE_MS,
        answers: (params) => params.threshold_mode === 'usd',
        detect: async (rows, from, to, _archive, paramSets) => liquidationBursts(
          rows.map((r) => ({ family: r.family as Family, symbol: String(r.symbol), ts: Number(r.ts), price: Number(r.notional), size: 1, fills: Number(r.fills) })),
          from, to, paramSets as BurstParams[], () => undefined,
        ),
        // The same judgement in SQL (USD mode, the only one answered): each minute end where fills
        // enter, its window's sum against the window's one minute earlier; only the edges are decoded.
        occurrences: {
          sql: (rows, params) => {
            const windowMs = Number(params.window_s) * 1000;
            // Frame offsets cannot be bound parameters: a validated whole number of seconds, checked again.
            if (!Number.isSafeInteger(windowMs) || windowMs < MINUTE_MS) throw new Error(`window_s ${String(params.window_s)} is not a whole number of minutes`);
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
          candidate: (c, i, params) => liquidationBurst(c.family![i] as Family, String(c.symbol![i]), Number(c.ts![i]), params as BurstParams, {
            usd: Number(c.usd_now![i]), count: Number(c.fills_now![i]), value: Number(c.usd_now![i]),
          }),
        },
        note: 'Each minute\'s liquidated notional is summed once; sums may differ from delivery\'s in the last floating-point digit.',
      },
    },
  },
} satisfies EventDefinition<'market.liquidation_burst'>;
