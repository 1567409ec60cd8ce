import { ingestStalls } from '../detect/minute-detectors.ts';
import { DAY_MS, timesOf, type MinuteContext } from '../detect/minute-reads.ts';
import type { Candidate } from '../detect/candidate.ts';
import { MARKET_VENUES, common, declaration, minute, type EventDefinition } from './declare.ts';

/** Stalls and recoveries, found together once per run for the thresholds in use. */
export function ingestStallsOfRun(ctx: MinuteContext, sets: readonly { threshold_s: number }[]): Promise<Candidate[]> {
  const thresholds = [...new Set(sets.map((s) => s.threshold_s))].sort((a, b) => a - b);
  // Enough history to know each market's usual interval (the longest threshold is at least five of them).
  const lookback = 2 * Math.max(...thresholds) * 1000;
  return ctx.shared(`ingest-stalls|${thresholds.join(',')}`, async () =>
    ingestStalls(await timesOf(ctx, 'l2_snapshots', MARKET_VENUES, ctx.from - lookback, DAY_MS, 'market'), ctx.from, ctx.to, thresholds));
}

/** The catalogue's default silence: also the threshold at which the data-quality incidents of stalls are opened. */
export const DEFAULT_STALL_THRESHOLD_S = 600;

export const stallDeclaration = <T extends 'ingest.stall' | 'ingest.recovered'>(type: T) => declaration({
  type, live: true, description: type === 'ingest.stall' ? 'One market\'s L2 feed silent for threshold_s' : 'A stall cleared; shares incident_id',
  scope: 'public', venues: MARKET_VENUES, scopeKeys: ['venue', 'symbols'],
  params: {
    threshold_s: { type: 'integer', default: DEFAULT_STALL_THRESHOLD_S, menu: [60, 120, 300, 600, 1800, 3600], unit: 's', description: 'Silence that counts (judged only at five times a market\'s usual update interval)' },
  },
  metrics: { ...common(MARKET_VENUES), age_s: { type: 'number', unit: 's' } },
});

export default {
  declaration: stallDeclaration('ingest.stall'),
  detection: minute<{ threshold_s: number }>({
    params: ['threshold_s'], detect: async (ctx, sets) => (await ingestStallsOfRun(ctx, sets)).filter((c) => c.type === 'ingest.stall'),
  }),
} satisfies EventDefinition<'ingest.stall'>;
