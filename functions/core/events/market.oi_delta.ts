import { OI_DELTA_FLOOR_USD, OI_DELTA_LOWEST_PCT, OI_DELTA_WINDOWS_S } from '../archive/sql.ts';
import { oiDeltas } from '../detect/minute-detectors.ts';
import { MINUTE_MS, rowsOf } from '../detect/minute-reads.ts';
import { common, declaration, minute, pct, usd, type EventDefinition } from './declare.ts';

const decl = declaration({
  type: 'market.oi_delta', live: true, description: 'Open interest moved by at least the threshold over the window; once per direction per crossing',
  scope: 'public', venues: ['perpx', 'hip3'], scopeKeys: ['venue', 'symbols'],
  params: {
    window_s: { type: 'integer', default: 900, menu: OI_DELTA_WINDOWS_S, unit: 's', description: 'Window' },
    threshold_pct: { type: 'number', default: 10, min: 0.1, max: 1000, unit: '%', description: 'Move that fires' },
  },
  metrics: {
    ...common(['perpx', 'hip3']), delta_pct: pct('Move over the window'), delta_usd: usd('Move over the window'), direction: { type: 'enum', values: ['up', 'down'] },
    open_interest_usd: usd('Open interest now'),
  },
  costFloor: { metric: 'open_interest_usd', min: OI_DELTA_FLOOR_USD, note: 'Only markets with at least 100,000 USD open interest are considered' },
});

export default {
  declaration: decl,
  detection: minute<{ window_s: number; threshold_pct: number }>({
    params: ['window_s', 'threshold_pct'],
    detect: async (ctx, sets) => {
      // The longest window in use, and a few minutes more to find the row at its start.
      const longest = Math.max(...sets.map((s) => s.window_s));
      return oiDeltas(await rowsOf(ctx, 'open_interest', decl.venues, ctx.from - longest * 1000 - 5 * MINUTE_MS), ctx.from, ctx.to, sets);
    },
  }),
  preview: { estimate: { metric: 'delta_pct', absolute: true, gate: { param: 'threshold_pct', lowest: OI_DELTA_LOWEST_PCT }, crossings: 'oi_crossings' } },
} satisfies EventDefinition<'market.oi_delta'>;
