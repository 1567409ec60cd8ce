import { DAY_MS, timesOf, type MinuteContext } from './kit/reads.ts';
import type { Candidate } from './kit/candidate.ts';
import { MARKET_VENUES, common, declaration, minute, type EventDefinition } from './declare.ts';
import { iso, instrumentUrl } from './kit/format.ts';
import { groupBy } from '../group.ts';
import { MINUTE_MS, type Tick } from './kit/reads.ts';
import { silences, incidentOf } from './kit/silences.ts';
import { FAMILY_PREFIX, type Family } from '../venues.ts';
import { ofType } from './kit/candidate.ts';

/**
 * `ingest.stall` / `ingest.recovered`: a market's L2 feed silent for `threshold_s`. A market is judged
 * only when the threshold is at least five times its usual (median) update interval, so slow feeds
 * are not stalls. Per-market events go to rules naming `symbols`; rules without them get one
 * storm-collapsed event per venue and minute listing every market that stalled (or recovered) in it.
 */
export function ingestStalls(ticks: readonly Tick[], from: number, to: number, thresholds: readonly number[]): Candidate<StallType>[] {
  const out: Candidate<StallType>[] = [];
  const markets = groupBy(ticks, (t) => `${t.family}|${t.symbol}`);
  for (const thresholdS of thresholds) {
    const storms = new Map<string, { family: Family; state: 'stalled' | 'recovered'; minute: number; symbols: string[]; incidents: string[] }>();
    for (const series of markets.values()) {
      const { family, symbol } = series[0]!;
      const times = series.map((t) => t.ts).sort((a, b) => a - b);
      const gaps = times
        .slice(1)
        .map((t, i) => t - times[i]!)
        .sort((a, b) => a - b);
      const usual = gaps[Math.floor(gaps.length / 2)];
      if (usual === undefined || thresholdS * 1000 < 5 * usual) continue;
      for (const s of silences(times, thresholdS * 1000, from, to)) {
        const type = s.state === 'stalled' ? 'ingest.stall' : 'ingest.recovered';
        const incident = incidentOf('stall', family, symbol, s.since, thresholdS);
        const age = Math.round(((s.until ?? s.at) - s.since) / 1000);
        const fields = { venue: family, symbol, timestamp: iso(s.at), age_s: age };
        out.push({
          type,
          key: `${type}:${incident}`,
          occurredAt: s.at,
          venue: family,
          symbol,
          address: null,
          params: { threshold_s: thresholdS },
          scope: 'per_market',
          metrics: fields,
          data: {
            ...fields,
            state: s.state,
            incident_id: incident,
            threshold_s: thresholdS,
            last_update_at: iso(s.since),
            api_url: instrumentUrl(family, symbol),
          },
        });
        const minute = Math.floor(s.at / MINUTE_MS) * MINUTE_MS;
        const slot = `${family}|${s.state}|${minute}`;
        const storm = storms.get(slot) ?? { family, state: s.state, minute, symbols: [], incidents: [] };
        storm.symbols.push(symbol);
        storm.incidents.push(incident);
        storms.set(slot, storm);
      }
    }
    for (const storm of storms.values()) {
      const type = storm.state === 'stalled' ? 'ingest.stall' : 'ingest.recovered';
      const incident = incidentOf('storm', storm.family, storm.minute, thresholdS, ...storm.incidents.sort());
      const fields = { venue: storm.family, symbol: null, timestamp: iso(storm.minute) };
      out.push({
        type,
        key: `${type}:storm:${incident}`,
        occurredAt: storm.minute,
        venue: storm.family,
        symbol: null,
        address: null,
        params: { threshold_s: thresholdS },
        scope: 'collapsed',
        metrics: { ...fields, age_s: null },
        data: {
          ...fields,
          state: storm.state,
          symbols: storm.symbols.sort(),
          market_count: storm.symbols.length,
          incident_id: incident,
          threshold_s: thresholdS,
          api_url: `${FAMILY_PREFIX[storm.family]}/instruments`,
        },
      });
    }
  }
  return out;
}

/** Stalls and recoveries, found together once per run for the thresholds in use. */
export function ingestStallsOfRun(ctx: MinuteContext, sets: readonly { threshold_s: number }[]): Promise<Candidate<StallType>[]> {
  const thresholds = [...new Set(sets.map((s) => s.threshold_s))].sort((a, b) => a - b);
  // Enough history to know each market's usual interval (the longest threshold is at least five of them).
  const lookback = 2 * Math.max(...thresholds) * 1000;
  return ctx.shared(`ingest-stalls|${thresholds.join(',')}`, async () =>
    ingestStalls(await timesOf(ctx, 'l2_snapshots', MARKET_VENUES, ctx.from - lookback, DAY_MS, 'market'), ctx.from, ctx.to, thresholds),
  );
}

/** The catalogue's default silence: also the threshold at which the data-quality incidents of stalls are opened. */
export const DEFAULT_STALL_THRESHOLD_S = 600;

/** The two types this module's detector finds together. */
export type StallType = 'ingest.stall' | 'ingest.recovered';

export const stallDeclaration = <T extends StallType>(type: T) =>
  declaration({
    type,
    live: true,
    description: type === 'ingest.stall' ? "One market's L2 feed silent for threshold_s" : 'A stall cleared; shares incident_id',
    scope: 'public',
    venues: MARKET_VENUES,
    scopeKeys: ['venue', 'symbols'],
    params: {
      threshold_s: {
        type: 'integer',
        default: DEFAULT_STALL_THRESHOLD_S,
        menu: [60, 120, 300, 600, 1800, 3600],
        unit: 's',
        description: "Silence that counts (judged only at five times a market's usual update interval)",
      },
    },
    metrics: { ...common(MARKET_VENUES), age_s: { type: 'number', unit: 's' } },
  });

export default {
  declaration: stallDeclaration('ingest.stall'),
  detection: minute<{ threshold_s: number }, 'ingest.stall'>({
    params: ['threshold_s'],
    detect: async (ctx, sets) => ofType(await ingestStallsOfRun(ctx, sets), 'ingest.stall'),
  }),
  incident: { kind: 'ingest_stall', opens: true, params: { threshold_s: DEFAULT_STALL_THRESHOLD_S } },
} satisfies EventDefinition<'ingest.stall'>;
