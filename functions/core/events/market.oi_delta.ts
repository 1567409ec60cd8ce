import { OI_DELTA_FLOOR_USD, OI_DELTA_LOWEST_PCT, OI_DELTA_WINDOWS_S } from '../archive/sql.ts';
import { MINUTE_MS, rowsOf } from './kit/reads.ts';
import { common, declaration, minute, pct, usd, type EventDefinition } from './declare.ts';
import { iso, inWindow, instrumentUrl, bySymbol, round, percent } from './kit/format.ts';
import type { Candidate } from './kit/candidate.ts';
import type { Family } from '../venues.ts';
import type { OpenInterestRecord } from '#schemas/datasets.ts';

const oiUsd = (r: OpenInterestRecord) => Number(r.open_interest) * Number(r.mark_price ?? r.oracle_price ?? 0);

/**
 * `market.oi_delta`: open interest moved at least `threshold_pct` over `window_s`; once per
 * direction per crossing (it fires when the move crosses the threshold, not while it stays past it).
 */
export function oiDeltas(
  rows: readonly OpenInterestRecord[],
  from: number,
  to: number,
  paramSets: readonly { window_s: number; threshold_pct: number }[],
): Candidate<'market.oi_delta'>[] {
  const out: Candidate<'market.oi_delta'>[] = [];
  for (const [symbol, series] of bySymbol(rows)) {
    for (const { window_s: windowS, threshold_pct: threshold } of paramSets) {
      // Each row's base, the last row at or before its time minus the window, in one pass (times ascend).
      const baseOf = new Map<OpenInterestRecord, OpenInterestRecord | undefined>();
      for (let i = 0, j = -1; i < series.length; i += 1) {
        while (j + 1 < series.length && series[j + 1]!.ts <= series[i]!.ts - windowS * 1000) j += 1;
        baseOf.set(series[i]!, j >= 0 ? series[j] : undefined);
      }
      const stateAt = (row: OpenInterestRecord) => {
        const base = baseOf.get(row);
        if (!base || oiUsd(base) <= 0) return { state: 'none' as const, delta: 0, base };
        const delta = percent(oiUsd(row) / oiUsd(base) - 1);
        return { state: delta >= threshold ? ('up' as const) : delta <= -threshold ? ('down' as const) : ('none' as const), delta, base };
      };
      for (let i = 1; i < series.length; i += 1) {
        const row = series[i]!;
        if (!inWindow(row.ts, from, to)) continue;
        const now = stateAt(row);
        if (now.state === 'none' || stateAt(series[i - 1]!).state === now.state) continue;
        const family = row.family as Family;
        const fields = {
          venue: family,
          symbol,
          timestamp: iso(row.ts),
          delta_pct: round(now.delta),
          delta_usd: round(oiUsd(row) - oiUsd(now.base!), 2),
          direction: now.state,
          open_interest_usd: round(oiUsd(row), 2),
        };
        out.push({
          type: 'market.oi_delta',
          key: `oid:${family}:${symbol}:${row.ts}:${windowS}:${threshold}`,
          occurredAt: row.ts,
          venue: family,
          symbol,
          address: null,
          params: { window_s: windowS, threshold_pct: threshold },
          metrics: fields,
          data: { ...fields, window_s: windowS, threshold_pct: threshold, api_url: instrumentUrl(family, symbol) },
        });
      }
    }
  }
  return out;
}

const decl = declaration({
  type: 'market.oi_delta',
  live: true,
  description: 'Open interest moved by at least the threshold over the window; once per direction per crossing',
  scope: 'public',
  venues: ['perpx', 'hip3'],
  scopeKeys: ['venue', 'symbols'],
  params: {
    window_s: { type: 'integer', default: 900, menu: OI_DELTA_WINDOWS_S, unit: 's', description: 'Window' },
    threshold_pct: { type: 'number', default: 10, min: 0.1, max: 1000, unit: '%', description: 'Move that fires' },
  },
  metrics: {
    ...common(['perpx', 'hip3']),
    delta_pct: pct('Move over the window'),
    delta_usd: usd('Move over the window'),
    direction: { type: 'enum', values: ['up', 'down'] },
    open_interest_usd: usd('Open interest now'),
  },
  costFloor: { metric: 'open_interest_usd', min: OI_DELTA_FLOOR_USD, note: 'Only markets with at least 100,000 USD open interest are considered' },
});

export default {
  declaration: decl,
  detection: minute<{ window_s: number; threshold_pct: number }, 'market.oi_delta'>({
    params: ['window_s', 'threshold_pct'],
    detect: async (ctx, sets) => {
      // The longest window in use, and a few minutes more to find the row at its start.
      const longest = Math.max(...sets.map((s) => s.window_s));
      return oiDeltas(await rowsOf(ctx, 'open_interest', decl.venues, ctx.from - longest * 1000 - 5 * MINUTE_MS), ctx.from, ctx.to, sets);
    },
  }),
  preview: { estimate: { metric: 'delta_pct', absolute: true, gate: { param: 'threshold_pct', lowest: OI_DELTA_LOWEST_PCT }, crossings: 'oi_crossings' } },
} satisfies EventDefinition<'market.oi_delta'>;
