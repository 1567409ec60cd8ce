import { settlements } from '../detect/minute-detectors.ts';
import { settledSides } from '../detect/minute-reads.ts';
import type { SettlementRecord } from '../../../schemas/datasets.ts';
import { common, declaration, maxAge, minute, usd, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({
    type: 'hip4.settlement', live: true, description: 'An outcome side settled; symbols use #<id>', scope: 'public', venues: ['hip4'], scopeKeys: ['venue', 'symbols'],
    params: maxAge(7200), metrics: { ...common(['hip4']), notional_usd: usd('Settled notional'), resolution: { type: 'enum', values: ['yes', 'no'] } },
    notionalMetric: 'notional_usd', costFloor: { metric: 'notional_usd', min: 500, note: 'Scans from 500 USD; a rule without min_notional_usd receives 1,000 USD and up' },
  }),
  detection: minute({ params: [], detect: async (ctx) => settlements(await settledSides(ctx), ctx.from, ctx.to) }),
  preview: {
    estimate: {
      metric: 'notional_usd',
      // A settlement row is the event itself (one per settled side): the estimate reads the window's rows at once.
      reduced: { rows: { source: 'settlements' }, bySymbol: true, since: (from) => from, detect: async (rows, from, to) => settlements(rows as unknown as SettlementRecord[], from, to) },
    },
  },
} satisfies EventDefinition<'hip4.settlement'>;
