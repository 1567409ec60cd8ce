import { transferCandidates } from '../detect/batch-detectors.ts';
import { batch, declaration, maxAge, usd, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({
    type: 'account.transfer', live: true, description: 'A transfer by a watched address', scope: 'addresses', venues: ['perpx', 'spot'],
    scopeKeys: ['venue', 'symbols', 'addresses'], params: maxAge(), latencyClass: 'seconds', notionalMetric: 'usdc_value',
    metrics: {
      venue: { type: 'enum', values: ['perpx', 'spot'] }, address: { type: 'text' }, token: { type: 'text' }, amount: { type: 'number' }, kind: { type: 'text' },
      role: { type: 'enum', values: ['source', 'destination'] }, usdc_value: usd('Transfer value in USDC'), timestamp: { type: 'timestamp' },
    },
  }),
  detection: batch({ reads: 'transfers', addressColumn: 'user_address', detect: transferCandidates }),
  preview: { dryRun: true, estimate: { metric: 'usdc_value', rollup: 'transfer_rollups_1h' } },
} satisfies EventDefinition<'account.transfer'>;
