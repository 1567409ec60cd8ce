import type { Family } from '../venues.ts';
import { HOUR_MS, rowsOf } from './kit/reads.ts';
import type { FundingRecord } from '#schemas/datasets.ts';
import { common, declaration, minute, type EventDefinition } from './declare.ts';
import { iso, inWindow, instrumentUrl, bySymbol } from './kit/format.ts';
import type { Candidate } from './kit/candidate.ts';

/**
 * `market.funding_flip`: a settled funding rate whose sign differs from the market's previous one.
 * Funding settles hourly; the rows between hours are the running prediction, whose sign wobbles
 * whenever the premium sits near zero, so only the hourly rates are compared.
 */
/** What a flip is judged on: a funding record's, or a funding_rates_1h row's, members. */
export type FundingRate = Pick<FundingRecord, 'symbol' | 'ts' | 'funding_rate'> & { family: string };

export function fundingFlips(rows: readonly FundingRate[], from: number, to: number): Candidate<'market.funding_flip'>[] {
  const out: Candidate<'market.funding_flip'>[] = [];
  for (const [symbol, series] of bySymbol(rows.filter((r) => r.ts % HOUR_MS === 0))) {
    for (let i = 1; i < series.length; i += 1) {
      const previous = Number(series[i - 1]!.funding_rate);
      const row = series[i]!;
      const rate = Number(row.funding_rate);
      if (!inWindow(row.ts, from, to) || previous === 0 || rate === 0 || Math.sign(previous) === Math.sign(rate)) continue;
      out.push(fundingFlip(row.family as Family, symbol, row.ts, rate, previous));
    }
  }
  return out;
}

/** One market.funding_flip: the settled `rate` at `ts` after `previous` of the other sign. */
export function fundingFlip(family: Family, symbol: string, ts: number, rate: number, previous: number): Candidate<'market.funding_flip'> {
  const fields = { venue: family, symbol, timestamp: iso(ts), funding_rate: rate, flipped_to: rate > 0 ? 'positive' : 'negative' };
  let data: Candidate['data'] | undefined;
  return {
    type: 'market.funding_flip',
    key: `flip:${family}:${symbol}:${ts}`,
    occurredAt: ts,
    venue: family,
    symbol,
    address: null,
    metrics: fields,
    // Built when first read: an estimate makes a candidate of each of a month's flips to match and count them, and shows five.
    get data() {
      return (data ??= { ...fields, previous_rate: previous, api_url: instrumentUrl(family, symbol) });
    },
  };
}

const decl = declaration({
  type: 'market.funding_flip',
  live: true,
  description: 'The funding rate changes sign',
  scope: 'public',
  venues: ['perpx', 'hip3'],
  scopeKeys: ['venue', 'symbols'],
  params: {},
  metrics: { ...common(['perpx', 'hip3']), funding_rate: { type: 'number' }, flipped_to: { type: 'enum', values: ['positive', 'negative'] } },
});

export default {
  declaration: decl,
  // Two hours back: the window's first settled rate is compared with the one before it.
  detection: minute({ params: [], detect: async (ctx) => fundingFlips(await rowsOf(ctx, 'funding', decl.venues, ctx.from - 2 * HOUR_MS), ctx.from, ctx.to) }),
  preview: {
    estimate: {
      metric: 'funding_rate',
      absolute: true,
      // The settled rates alone decide a flip: the estimate reads them from their hourly reduction.
      reduced: {
        rows: { reduction: 'funding_rates_1h' },
        bySymbol: true,
        since: (from) => from - 2 * HOUR_MS,
        detect: async (rows, from, to) =>
          fundingFlips(
            rows.map((r) => ({ family: String(r.family), symbol: String(r.symbol), ts: Number(r.ts), funding_rate: String(r.funding_rate) })),
            from,
            to,
          ),
        // The same comparison in SQL over the reduction (settled rates only): a month of every
        // market's rates stays in DuckDB, only the flips are decoded.
        occurrences: {
          sql: (rows) => ({
            sql: `SELECT family, symbol, ts, rate AS funding_rate, previous FROM (
                SELECT family, symbol, ts, CAST(funding_rate AS DOUBLE) AS rate, lag(CAST(funding_rate AS DOUBLE)) OVER (PARTITION BY family, symbol ORDER BY ts) AS previous
                FROM ${rows})
              WHERE ts >= $o_from AND ts < $o_to AND previous <> 0 AND rate <> 0 AND sign(previous) <> sign(rate)`,
            params: {},
          }),
          candidate: (c, i) => fundingFlip(c.family![i] as Family, String(c.symbol![i]), Number(c.ts![i]), Number(c.funding_rate![i]), Number(c.previous![i])),
        },
      },
    },
  },
} satisfies EventDefinition<'market.funding_flip'>;
