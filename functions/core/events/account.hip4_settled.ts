import { holdersOf, settledSides } from './kit/reads.ts';
import { common, declaration, maxAge, minute, usd, type EventDefinition } from './declare.ts';
import { iso, inWindow, instrumentUrl, round } from './kit/format.ts';
import type { Candidate } from './kit/candidate.ts';
import type { Holder } from './kit/reads.ts';
import type { SettlementRecord } from '#schemas/datasets.ts';

/** `account.hip4_settled`: a watched address held the side when it settled; notional at face value. */
export function settledHoldings(rows: readonly SettlementRecord[], holders: readonly Holder[], from: number, to: number): Candidate<'account.hip4_settled'>[] {
  const out: Candidate<'account.hip4_settled'>[] = [];
  for (const r of rows.filter((s) => inWindow(s.ts, from, to))) {
    for (const holder of holders.filter((h) => h.symbol === r.symbol && h.position !== 0)) {
      const notional = round(Math.abs(holder.position), 2);
      const fields = {
        venue: 'hip4' as const,
        symbol: r.symbol,
        timestamp: iso(r.ts),
        address: holder.address,
        notional_usd: notional,
        resolution: r.resolution,
      };
      out.push({
        type: 'account.hip4_settled',
        key: `settle:${r.symbol}:${r.ts}:${holder.address}`,
        occurredAt: r.ts,
        venue: 'hip4',
        symbol: r.symbol,
        address: holder.address,
        metrics: fields,
        data: {
          ...fields,
          account: holder.address,
          position: holder.position,
          payout: round(holder.position * Number(r.settle_price), 2),
          api_url: instrumentUrl('hip4', r.symbol),
        },
      });
    }
  }
  return out;
}

export default {
  declaration: declaration({
    type: 'account.hip4_settled',
    live: true,
    description: "A watched address's outcome settlement",
    scope: 'addresses',
    venues: ['hip4'],
    scopeKeys: ['venue', 'symbols', 'addresses'],
    params: maxAge(7200),
    notionalMetric: 'notional_usd',
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
