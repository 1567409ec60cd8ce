import { BREADTH_FAMILIES } from '../breadth/compute.ts';
import { DAY_MS } from './kit/reads.ts';
import { declaration, minute, pct, type EventDefinition } from './declare.ts';
import { iso, inWindow } from './kit/format.ts';
import { groupBy } from '../group.ts';
import type { Candidate } from './kit/candidate.ts';
import { MINUTE_MS } from './kit/reads.ts';
import { FAMILY_PREFIX, type Family } from '../venues.ts';

export interface BreadthPoint {
  family: Family;
  at: number;
  value: number | null;
}

/**
 * `market.breadth_cross`: the share above session VWAP crossing `threshold` with hysteresis. After
 * an upward cross the next upward one needs the value to have gone back below threshold minus the
 * band first (and the mirror for downward), so a value hovering at the line fires once. `points`
 * should start well before `from` (a day) so the arming state is known when the window opens.
 */
export function breadthCrosses(
  points: readonly BreadthPoint[],
  from: number,
  to: number,
  paramSets: readonly { threshold: number; hysteresis_pct: number }[],
): Candidate<'market.breadth_cross'>[] {
  const out: Candidate<'market.breadth_cross'>[] = [];
  for (const series of groupBy(points, (p) => p.family).values()) {
    const family = series[0]!.family;
    series.sort((a, b) => a.at - b.at);
    for (const { threshold, hysteresis_pct: band } of paramSets) {
      let armedUp = false;
      let armedDown = false;
      let previous: number | null = null;
      for (const point of series) {
        if (point.value === null) continue;
        const value = point.value;
        if (value <= threshold - band) armedUp = true;
        if (value >= threshold + band) armedDown = true;
        const crossedUp = previous !== null && previous < threshold && value >= threshold && armedUp;
        const crossedDown = previous !== null && previous > threshold && value <= threshold && armedDown;
        if ((crossedUp || crossedDown) && inWindow(point.at, from, to)) {
          const direction = crossedUp ? 'up' : 'down';
          const fields = { venue: family, value_pct: value, direction, timestamp: iso(point.at) };
          out.push({
            type: 'market.breadth_cross',
            key: `breadth:${family}:${point.at}:${threshold}:${band}`,
            occurredAt: point.at,
            venue: family,
            symbol: null,
            address: null,
            params: { threshold, hysteresis_pct: band },
            metrics: fields,
            data: {
              ...fields,
              threshold,
              hysteresis_pct: band,
              api_url: `${FAMILY_PREFIX[family]}/breadth/above-vwap?start=${point.at}&end=${point.at + MINUTE_MS}`,
            },
          });
        }
        if (crossedUp) armedUp = false;
        if (crossedDown) armedDown = false;
        previous = value;
      }
    }
  }
  return out;
}

export default {
  declaration: declaration({
    type: 'market.breadth_cross',
    live: true,
    description: 'The share above session VWAP crossed the threshold, with hysteresis; venue-wide',
    scope: 'public',
    venues: ['perpx', 'hip3'],
    scopeKeys: ['venue'],
    params: {
      threshold: { type: 'number', default: 30, min: 1, max: 99, unit: '%', description: 'Breadth level' },
      hysteresis_pct: { type: 'number', default: 5, min: 0, max: 50, unit: '%', description: 'Band that must be left before firing again' },
    },
    metrics: {
      venue: { type: 'enum', values: ['perpx', 'hip3'] },
      value_pct: pct('Breadth now'),
      direction: { type: 'enum', values: ['up', 'down'] },
      timestamp: { type: 'timestamp' },
    },
  }),
  detection: minute<{ threshold: number; hysteresis_pct: number }, 'market.breadth_cross'>({
    params: ['threshold', 'hysteresis_pct'],
    // A day of snapshots tells whether each threshold is armed (left its band) when the window starts.
    detect: async ({ breadth, from, to }, sets) => {
      const points: BreadthPoint[] = [];
      for (const family of BREADTH_FAMILIES) {
        const { snapshots } = await breadth.range(family, from - DAY_MS, to - 1, 2_000);
        for (const s of snapshots) points.push({ family, at: Date.parse(s.calculated_at), value: s.value_pct });
      }
      return breadthCrosses(points, from, to, sets);
    },
  }),
} satisfies EventDefinition<'market.breadth_cross'>;
