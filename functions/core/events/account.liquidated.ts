import { LIQUIDATION_COLUMNS, liquidationCandidates } from './market.liquidation.ts';
import { batch, common, declaration, maxAge, relative, usd, type EventDefinition } from './declare.ts';
import { ofType } from './kit/candidate.ts';

const VENUES = ['perpx', 'hip3', 'altx'] as const;

export default {
  declaration: declaration({
    type: 'account.liquidated',
    live: true,
    description: 'A watched address was liquidated',
    scope: 'addresses',
    venues: VENUES,
    scopeKeys: ['venue', 'symbols', 'addresses'],
    params: maxAge(),
    latencyClass: 'seconds',
    notionalMetric: 'notional_usd',
    metrics: { ...common(VENUES), address: { type: 'text' }, notional_usd: usd('Liquidated notional'), ...relative() },
  }),
  detection: batch({
    reads: 'liquidations',
    addressColumn: 'liquidated_user',
    columns: LIQUIDATION_COLUMNS,
    detect: (rows, watched) => ofType(liquidationCandidates(rows, watched), 'account.liquidated'),
  }),
  preview: { estimate: { metric: 'notional_usd', rollup: 'account_liquidation_rollups_1h' } },
} satisfies EventDefinition<'account.liquidated'>;
