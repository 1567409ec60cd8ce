import { declaration, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({
    type: 'oracle.stall',
    live: false,
    description: 'A dex oracle stopped publishing',
    scope: 'public',
    venues: ['hip3'],
    scopeKeys: ['venue'],
    params: { window_s: { type: 'integer', default: 300, menu: [60, 120, 300, 900, 3600], unit: 's', description: 'Silence that counts as a stall' } },
    metrics: { dex: { type: 'text' }, state: { type: 'enum', values: ['stalled', 'recovered', 'expired'] }, stall_s: { type: 'number', unit: 's' } },
  }),
} satisfies EventDefinition<'oracle.stall'>;
