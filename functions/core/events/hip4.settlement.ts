import { settledSides } from './kit/reads.ts';
import type { SettlementRecord } from '#schemas/datasets.ts';
import { common, declaration, maxAge, minute, usd, type EventDefinition } from './declare.ts';
import { iso, inWindow, instrumentUrl, round } from './kit/format.ts';
import type { Candidate } from './kit/candidate.ts';

/**
 * `hip4.settlement`: an outcome side settled. Its notional is the contracts outstanding at their
 * face value (1 USD each), whichever way the side resolved.
 */
/** What a settlement event is made of: a settlements record's members (the resolution as stored). */
export type Settlement = Pick<SettlementRecord, 'symbol' | 'ts' | 'settle_price' | 'open_interest'> & { resolution: string };

export function settlements(rows: readonly Settlement[], from: number, to: number): Candidate<'hip4.settlement'>[] {
  return rows
    .filter((r) => inWindow(r.ts, from, to))
    .map((r) => {
      const notional = round(Number(r.open_interest), 2);
      const fields = { venue: 'hip4' as const, symbol: r.symbol, timestamp: iso(r.ts), notional_usd: notional, resolution: r.resolution };
      return {
        type: 'hip4.settlement',
        key: `settle:${r.symbol}:${r.ts}`,
        occurredAt: r.ts,
        venue: 'hip4',
        symbol: r.symbol,
        address: null,
        metrics: fields,
        data: { ...fields, settle_price: Number(r.settle_price), open_interest: Number(r.open_interest), api_url: instrumentUrl('hip4', r.symbol) },
      };
    });
}

export default {
  declaration: declaration({
    type: 'hip4.settlement',
    live: true,
    description: 'An outcome side settled; symbols use #<id>',
    scope: 'public',
    venues: ['hip4'],
    scopeKeys: ['venue', 'symbols'],
    params: maxAge(7200),
    metrics: { ...common(['hip4']), notional_usd: usd('Settled notional'), resolution: { type: 'enum', values: ['yes', 'no'] } },
    notionalMetric: 'notional_usd',
    costFloor: { metric: 'notional_usd', min: 500, note: 'Scans from 500 USD; a rule without min_notional_usd receives 1,000 USD and up' },
    defaultMinNotionalUsd: 1_000,
  }),
  detection: minute({ params: [], detect: async (ctx) => settlements(await settledSides(ctx), ctx.from, ctx.to) }),
  preview: {
    estimate: {
      metric: 'notional_usd',
      // A settlement row is the event itself (one per settled side): the estimate reads the window's rows at once.
      reduced: {
        rows: { source: 'settlements' },
        bySymbol: true,
        since: (from) => from,
        detect: async (rows, from, to) =>
          settlements(
            rows.map((r) => ({
              symbol: String(r.symbol),
              ts: Number(r.ts),
              resolution: String(r.resolution),
              settle_price: String(r.settle_price),
              open_interest: String(r.open_interest),
            })),
            from,
            to,
          ),
      },
    },
  },
} satisfies EventDefinition<'hip4.settlement'>;
