import { batch, common, declaration, maxAge, relative, usd, type EventDefinition } from './declare.ts';
import { iso, tradesUrl, sqlRound, byTradeId } from './kit/format.ts';
import { groupBy } from '../group.ts';
import { ofType, type Candidate } from './kit/candidate.ts';
import type { Family } from '../venues.ts';
import type { LiquidationRecord } from '#schemas/datasets.ts';

/** The two types this module's detector finds together (the second for watched accounts only). */
export type LiquidationType = 'market.liquidation' | 'account.liquidated';

/** The liquidation columns liquidationCandidates reads. */
export const LIQUIDATION_COLUMNS = ['family', 'symbol', 'ts', 'trade_id', 'liquidated_user', 'size', 'price', 'side', 'closed_pnl', 'direction'] as const;

/** One `market.liquidation` (and, for the account, one `account.liquidated`) per account, market and instant. */
export function liquidationCandidates(rows: readonly LiquidationRecord[], watched: ReadonlySet<string>): Candidate<LiquidationType>[] {
  const out: Candidate<LiquidationType>[] = [];
  for (const fills of groupBy(rows, (r) => `${r.family}|${r.symbol}|${r.liquidated_user}|${r.ts}`).values()) {
    const first = fills[0]!;
    const family = first.family as Family;
    let notional = 0;
    let closedPnl = 0;
    for (const f of byTradeId(fills)) {
      notional += Number(f.size) * Number(f.price);
      closedPnl += Number(f.closed_pnl ?? 0);
    }
    // The liquidated account sells to close a long and buys to close a short.
    const side = first.side === 'A' ? 'long' : 'short';
    const key = `liq:${family}:${first.symbol}:${first.liquidated_user}:${first.ts}`;
    const common = { venue: family, symbol: first.symbol, timestamp: iso(first.ts), notional_usd: sqlRound(notional, 2) };
    const data = {
      ...common,
      side,
      closed_pnl: sqlRound(closedPnl, 2),
      liquidated_user: first.liquidated_user,
      fill_count: fills.length,
      direction: first.direction ?? null,
      api_url: tradesUrl(family, first.symbol, first.ts),
    };
    out.push({
      type: 'market.liquidation',
      key,
      occurredAt: first.ts,
      venue: family,
      symbol: first.symbol,
      address: null,
      metrics: { ...common, side, liquidated_user: first.liquidated_user, direction: first.direction ?? null },
      data,
    });
    if (watched.has(first.liquidated_user)) {
      out.push({
        type: 'account.liquidated',
        key,
        occurredAt: first.ts,
        venue: family,
        symbol: first.symbol,
        address: first.liquidated_user,
        metrics: { ...common, address: first.liquidated_user },
        data: { ...data, account: first.liquidated_user },
      });
    }
  }
  return out;
}

const VENUES = ['perpx', 'hip3', 'altx'] as const;

export default {
  declaration: declaration({
    type: 'market.liquidation',
    live: true,
    description: 'A liquidation; fills of one cascade collapse into one event per account and instant',
    scope: 'public',
    venues: VENUES,
    scopeKeys: ['venue', 'symbols'],
    params: maxAge(),
    latencyClass: 'seconds',
    metrics: {
      ...common(VENUES),
      notional_usd: usd('Liquidated notional'),
      side: { type: 'enum', values: ['long', 'short'] },
      liquidated_user: { type: 'text' },
      direction: { type: 'text' },
      ...relative(),
    },
    notionalMetric: 'notional_usd',
    costFloor: { metric: 'notional_usd', min: 100, note: 'Liquidations under 100 USD notional are never read' },
  }),
  // No account is watched here: the account side is account.liquidated's.
  detection: batch({
    reads: 'liquidations',
    columns: LIQUIDATION_COLUMNS,
    detect: (rows) => ofType(liquidationCandidates(rows, new Set()), 'market.liquidation'),
  }),
  preview: { dryRun: true, estimate: { metric: 'notional_usd', rollup: 'liquidation_rollups_1h' } },
} satisfies EventDefinition<'market.liquidation'>;
