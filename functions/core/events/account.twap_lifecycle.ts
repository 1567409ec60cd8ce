import { twapCandidates } from '../detect/batch-detectors.ts';
import { batch, common, declaration, maxAge, pct, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({
    type: 'account.twap_lifecycle', live: true, description: 'A watched address\'s TWAP lifecycle', scope: 'addresses', venues: ['perpx', 'hip3', 'spot'],
    scopeKeys: ['venue', 'symbols', 'addresses'], params: maxAge(),
    metrics: { ...common(['perpx', 'hip3', 'spot']), address: { type: 'text' }, status: { type: 'enum', values: ['activated', 'finished', 'terminated'] }, fill_pct: pct('Share of the TWAP filled') },
  }),
  detection: batch({ reads: 'twaps', addressColumn: 'user_address', detect: twapCandidates }),
} satisfies EventDefinition<'account.twap_lifecycle'>;
