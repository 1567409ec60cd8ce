import { FILL_COLUMNS, fillCandidates } from '../detect/batch-detectors.ts';
import { batch, common, declaration, maxAge, relative, usd, type EventDefinition } from './declare.ts';

const VENUES = ['perpx', 'hip3', 'spot', 'hip4', 'altx', 'altx-rh'] as const;

export default {
  declaration: declaration({
    type: 'account.fill', live: true, description: 'A fill by a watched address', scope: 'addresses', venues: VENUES,
    scopeKeys: ['venue', 'symbols', 'addresses'], params: maxAge(), latencyClass: 'seconds', notionalMetric: 'notional_usd',
    metrics: {
      ...common(VENUES), address: { type: 'text' }, side: { type: 'enum', values: ['buy', 'sell'] },
      size: { type: 'number' }, price: { type: 'number' }, notional_usd: usd('Fill notional'), taker: { type: 'boolean' }, fill_count: { type: 'integer' }, ...relative(true),
    },
  }),
  detection: batch({ reads: 'trades', addressColumn: 'user_address', columns: FILL_COLUMNS, detect: fillCandidates }),
  preview: { dryRun: true, estimate: { metric: 'notional_usd', rollup: 'fill_rollups_1h' } },
} satisfies EventDefinition<'account.fill'>;
