import { fundingFlip, fundingFlips } from '../detect/minute-detectors.ts';
import type { Family } from '../venues.ts';
import { HOUR_MS, rowsOf } from '../detect/minute-reads.ts';
import type { FundingRecord } from '../../../schemas/datasets.ts';
import { common, declaration, minute, type EventDefinition } from './declare.ts';

const decl = declaration({
  type: 'market.funding_flip', live: true, description: 'The funding rate changes sign', scope: 'public', venues: ['perpx', 'hip3'], scopeKeys: ['venue', 'symbols'], params: {},
  metrics: { ...common(['perpx', 'hip3']), funding_rate: { type: 'number' }, flipped_to: { type: 'enum', values: ['positive', 'negative'] } },
});

export default {
  declaration: decl,
  // Two hours back: the window's first settled rate is compared with the one before it.
  detection: minute({ params: [], detect: async (ctx) => fundingFlips(await rowsOf(ctx, 'funding', decl.venues, ctx.from - 2 * HOUR_MS), ctx.from, ctx.to) }),
  preview: {
    estimate: {
      metric: 'funding_rate', absolute: true,
      // The settled rates alone decide a flip: the estimate reads them from their hourly reduction.
      reduced: {
        rows: { reduction: 'funding_rates_1h' }, bySymbol: true, since: (from) => from - 2 * HOUR_MS,
        detect: async (rows, from, to) => fundingFlips(rows as unknown as FundingRecord[], from, to),
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
