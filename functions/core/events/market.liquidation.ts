import { LIQUIDATION_COLUMNS, liquidationCandidates } from '../detect/batch-detectors.ts';
import { batch, common, declaration, maxAge, relative, usd, type EventDefinition } from './declare.ts';

const VENUES = ['perpx', 'hip3', 'altx'] as const;

export default {
  declaration: declaration({
    type: 'market.liquidation', live: true, description: 'A liquidation; fills of one cascade collapse into one event per account and instant',
    scope: 'public', venues: VENUES, scopeKeys: ['venue', 'symbols'], params: maxAge(), latencyClass: 'seconds',
    metrics: {
      ...common(VENUES), notional_usd: usd('Liquidated notional'), side: { type: 'enum', values: ['long', 'short'] }, liquidated_user: { type: 'text' },
      direction: { type: 'text' }, ...relative(),
    },
    notionalMetric: 'notional_usd', costFloor: { metric: 'notional_usd', min: 100, note: 'Liquidations under 100 USD notional are never read' },
  }),
  // No account is watched here: the account side is account.liquidated's.
  detection: batch({ reads: 'liquidations', columns: LIQUIDATION_COLUMNS, detect: (rows) => liquidationCandidates(rows, new Set()) }),
  preview: { dryRun: true, estimate: { metric: 'notional_usd', rollup: 'liquidation_rollups_1h' } },
} satisfies EventDefinition<'market.liquidation'>;
