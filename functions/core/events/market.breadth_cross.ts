import { BREADTH_FAMILIES } from '../breadth/compute.ts';
import { breadthCrosses, type BreadthPoint } from '../detect/minute-detectors.ts';
import { DAY_MS } from '../detect/minute-reads.ts';
import { declaration, minute, pct, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({
    type: 'market.breadth_cross', live: true, description: 'The share above session VWAP crossed the threshold, with hysteresis; venue-wide',
    scope: 'public', venues: ['perpx', 'hip3'], scopeKeys: ['venue'],
    params: {
      threshold: { type: 'number', default: 30, min: 1, max: 99, unit: '%', description: 'Breadth level' },
      hysteresis_pct: { type: 'number', default: 5, min: 0, max: 50, unit: '%', description: 'Band that must be left before firing again' },
    },
    metrics: { venue: { type: 'enum', values: ['perpx', 'hip3'] }, value_pct: pct('Breadth now'), direction: { type: 'enum', values: ['up', 'down'] }, timestamp: { type: 'timestamp' } },
  }),
  detection: minute<{ threshold: number; hysteresis_pct: number }>({
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
