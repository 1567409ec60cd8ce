import { declaration, pct, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({
    type: 'chain.block_time_degraded',
    live: false,
    description: 'Block cadence below the trailing 24 h baseline',
    scope: 'public',
    venues: ['perpx'],
    scopeKeys: ['venue'],
    params: {
      degraded_pct: { type: 'integer', default: 20, menu: [10, 20, 30, 50], unit: '%', description: 'Slowdown against the baseline' },
      consecutive_minutes: { type: 'integer', default: 2, menu: [1, 2, 3, 5], unit: 'min', description: 'Minutes it must last' },
    },
    metrics: { state: { type: 'enum', values: ['degraded', 'recovered'] }, degraded_pct: pct('Slowdown') },
  }),
} satisfies EventDefinition<'chain.block_time_degraded'>;
