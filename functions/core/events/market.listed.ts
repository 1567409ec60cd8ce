import { rowsOf } from './kit/reads.ts';
import { MARKET_VENUES, common, declaration, minute, type EventDefinition } from './declare.ts';
import { iso, inWindow, instrumentUrl } from './kit/format.ts';
import type { Candidate } from './kit/candidate.ts';
import type { Family } from '../venues.ts';
import type { InstrumentRecord } from '#schemas/datasets.ts';

/** `market.listed`: once per market, at its listing time. */
export function listings(rows: readonly InstrumentRecord[], from: number, to: number): Candidate<'market.listed'>[] {
  return rows
    .filter((r) => inWindow(r.ts, from, to) && r.market_type !== 'outcome')
    .map((r) => {
      const family = r.family as Family;
      const fields = { venue: family, symbol: r.symbol, timestamp: iso(r.ts) };
      return {
        type: 'market.listed',
        key: `listed:${family}:${r.symbol}`,
        occurredAt: r.ts,
        venue: family,
        symbol: r.symbol,
        address: null,
        metrics: fields,
        data: { ...fields, market_type: r.market_type, max_leverage: r.max_leverage ?? null, api_url: instrumentUrl(family, r.symbol) },
      };
    });
}

const decl = declaration({
  type: 'market.listed',
  live: true,
  description: 'A new market, once per market',
  scope: 'public',
  venues: MARKET_VENUES,
  scopeKeys: ['venue'],
  params: {},
  metrics: common(MARKET_VENUES),
});

export default {
  declaration: decl,
  detection: minute({ params: [], detect: async (ctx) => listings(await rowsOf(ctx, 'instruments', decl.venues, ctx.from), ctx.from, ctx.to) }),
} satisfies EventDefinition<'market.listed'>;
