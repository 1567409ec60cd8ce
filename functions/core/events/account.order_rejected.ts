import { ENGINE_CANCELS, orderRejectedCandidates } from '../detect/batch-detectors.ts';
import { batch, common, declaration, maxAge, type EventDefinition } from './declare.ts';

export default {
  // Found per ingested batch, so it arrives faster than its declared `minutes` class promises.
  declaration: declaration({
    type: 'account.order_rejected', live: true, description: 'An involuntary engine cancel of a watched address\'s order', scope: 'addresses', venues: ['perpx', 'hip3'],
    scopeKeys: ['venue', 'symbols', 'addresses'], params: maxAge(),
    metrics: { ...common(['perpx', 'hip3']), address: { type: 'text' }, reason: { type: 'enum', values: [...ENGINE_CANCELS] } },
  }),
  detection: batch({ reads: 'order_events', addressColumn: 'user_address', detect: orderRejectedCandidates }),
} satisfies EventDefinition<'account.order_rejected'>;
