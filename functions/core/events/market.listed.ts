import { listings } from '../detect/minute-detectors.ts';
import { rowsOf } from '../detect/minute-reads.ts';
import { MARKET_VENUES, common, declaration, minute, type EventDefinition } from './declare.ts';

const decl = declaration({
  type: 'market.listed', live: true, description: 'A new market, once per market', scope: 'public', venues: MARKET_VENUES, scopeKeys: ['venue'], params: {}, metrics: common(MARKET_VENUES),
});

export default {
  declaration: decl,
  detection: minute({ params: [], detect: async (ctx) => listings(await rowsOf(ctx, 'instruments', decl.venues, ctx.from), ctx.from, ctx.to) }),
} satisfies EventDefinition<'market.listed'>;
