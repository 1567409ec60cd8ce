import { upgradeCandidates } from '../detect/batch-detectors.ts';
import { batch, declaration, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({
    type: 'chain.upgrade_detected', live: true, description: 'A new node build; started and completed share incident_id', scope: 'public', venues: ['perpx'], scopeKeys: ['venue'],
    params: {}, latencyClass: 'seconds',
    metrics: {
      state: { type: 'enum', values: ['started', 'completed'] }, commit: { type: 'text' },
      weekday_utc: { type: 'enum', values: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] }, duration_s: { type: 'number', unit: 's' },
    },
  }),
  detection: batch({ reads: 'chain_events', detect: upgradeCandidates }),
} satisfies EventDefinition<'chain.upgrade_detected'>;
