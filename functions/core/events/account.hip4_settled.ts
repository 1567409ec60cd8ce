import { settledHoldings } from '../detect/minute-detectors.ts';
import { holdersOf, settledSides } from '../detect/minute-reads.ts';
import { common, declaration, maxAge, minute, usd, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({
    type: 'account.hip4_settled', live: true, description: 'A watched address\'s outcome settlement', scope: 'addresses', venues: ['hip4'],
    scopeKeys: ['venue', 'symbols', 'addresses'], params: maxAge(7200), notionalMetric: 'notional_usd',
    metrics: { ...common(['hip4']), address: { type: 'text' }, notional_usd: usd('Settled notional'), resolution: { type: 'enum', values: ['yes', 'no'] } },
  }),
  detection: minute({
    params: [],
    detect: async (ctx) => {
      const settled = await settledSides(ctx);
      if (settled.length === 0 || ctx.watched.size === 0) return [];
      return settledHoldings(settled, await holdersOf(ctx.archive, settled, ctx.watched, ctx.to), ctx.from, ctx.to);
    },
  }),
} satisfies EventDefinition<'account.hip4_settled'>;
