import { batch, common, declaration, maxAge, relative, usd, type EventDefinition } from './declare.ts';
import { iso, tradesUrl, sqlRound, byTradeId } from './kit/format.ts';
import { groupBy } from '../group.ts';
import type { Candidate } from './kit/candidate.ts';
import type { Family } from '../venues.ts';
import type { TradeRecord } from '#schemas/datasets.ts';

/** The trade columns fillCandidates reads (a preview's scan decodes only these). */
export const FILL_COLUMNS = ['family', 'symbol', 'ts', 'trade_id', 'user_address', 'side', 'size', 'price', 'order_id', 'crossed'] as const;

/** One `account.fill` per address, market, side and instant. */
export function fillCandidates(trades: readonly TradeRecord[], watched: ReadonlySet<string>): Candidate<'account.fill'>[] {
  const mine = trades.filter((t) => t.user_address && watched.has(t.user_address));
  return [...groupBy(mine, (t) => `${t.family}|${t.symbol}|${t.user_address}|${t.side}|${t.ts}`).values()].map((fills) => {
    const first = fills[0]!;
    const family = first.family as Family;
    let size = 0;
    let notional = 0;
    for (const f of byTradeId(fills)) {
      size += Number(f.size);
      notional += Number(f.size) * Number(f.price);
    }
    const side = first.side === 'B' ? 'buy' : 'sell';
    const orderIds = [...new Set(fills.map((f) => f.order_id).filter((id): id is number => typeof id === 'number'))].map(String);
    const taker = fills.some((f) => f.crossed === true);
    return {
      type: 'account.fill',
      key: `fill:${family}:${first.symbol}:${first.user_address}:${first.side}:${first.ts}:${fills
        .map((f) => f.trade_id)
        .sort((a, b) => a - b)
        .join(',')}`,
      occurredAt: first.ts,
      venue: family,
      symbol: first.symbol,
      address: first.user_address!,
      metrics: {
        venue: family,
        symbol: first.symbol,
        timestamp: iso(first.ts),
        address: first.user_address!,
        side,
        size: sqlRound(size),
        price: sqlRound(notional / size),
        notional_usd: sqlRound(notional, 2),
        taker,
        fill_count: fills.length,
      },
      data: {
        venue: family,
        symbol: first.symbol,
        account: first.user_address,
        side,
        size: sqlRound(size),
        vwap: sqlRound(notional / size),
        notional_usd: sqlRound(notional, 2),
        buy_notional_usd: side === 'buy' ? sqlRound(notional, 2) : 0,
        fill_count: fills.length,
        order_ids: orderIds,
        taker,
        timestamp: iso(first.ts),
        api_url: tradesUrl(family, first.symbol, first.ts),
      },
    };
  });
}

const VENUES = ['perpx', 'hip3', 'spot', 'hip4', 'altx', 'altx-rh'] as const;

export default {
  declaration: declaration({
    type: 'account.fill',
    live: true,
    description: 'A fill by a watched address',
    scope: 'addresses',
    venues: VENUES,
    scopeKeys: ['venue', 'symbols', 'addresses'],
    params: maxAge(),
    latencyClass: 'seconds',
    notionalMetric: 'notional_usd',
    metrics: {
      ...common(VENUES),
      address: { type: 'text' },
      side: { type: 'enum', values: ['buy', 'sell'] },
      size: { type: 'number' },
      price: { type: 'number' },
      notional_usd: usd('Fill notional'),
      taker: { type: 'boolean' },
      fill_count: { type: 'integer' },
      ...relative(true),
    },
  }),
  detection: batch({ reads: 'trades', addressColumn: 'user_address', columns: FILL_COLUMNS, detect: fillCandidates }),
  preview: { dryRun: true, estimate: { metric: 'notional_usd', rollup: 'fill_rollups_1h' } },
} satisfies EventDefinition<'account.fill'>;
