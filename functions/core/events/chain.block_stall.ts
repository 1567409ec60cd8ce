import { declaration, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({
    type: 'chain.block_stall',
    live: false,
    description: 'Blocks stopped for threshold_s',
    scope: 'public',
    venues: ['perpx'],
    scopeKeys: ['venue'],
    params: { threshold_s: { type: 'integer', default: 20, menu: [10, 20, 30, 60, 120, 300, 600], unit: 's', description: 'Silence that counts' } },
    metrics: { state: { type: 'enum', values: ['stalled', 'recovered'] }, stall_s: { type: 'number', unit: 's' } },
  }),
} satisfies EventDefinition<'chain.block_stall'>;
