/** CVD buckets from taker sums (core/market/cvd.ts): delta is buy minus sell, cumulative_delta the running sum of the deltas. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cvdBuckets } from '#core/market/cvd.ts';

/** Within the 8 decimals the buckets keep (one rounding per step summed), or the doubles' own precision for large notionals. */
const close = (a: number, b: number, scale: number, steps = 1) => expect(Math.abs(a - b)).toBeLessThanOrEqual(steps * (1e-8 + 1e-15 * scale));

const sums = fc.uniqueArray(fc.integer({ min: 0, max: 100_000 }), { minLength: 0, maxLength: 50 }).chain((minutes) =>
  fc.tuple(
    ...[...minutes]
      .sort((a, b) => a - b)
      .map((m) =>
        fc.record({
          bucket: fc.constant(Date.UTC(2026, 8, 1) + m * 60_000),
          buy: fc.double({ min: 0, max: 1e9, noNaN: true }),
          sell: fc.double({ min: 0, max: 1e9, noNaN: true }),
        }),
      ),
  ),
);

describe('cvdBuckets', () => {
  it('makes delta buy minus sell and cumulative_delta the running sum of the deltas from the first bucket', () => {
    fc.assert(
      fc.property(sums, (input) => {
        const out = cvdBuckets(input);
        expect(out.map((b) => b.timestamp_ms)).toEqual(input.map((s) => s.bucket));
        let running = 0;
        const scale = Math.max(0, ...input.flatMap((x) => [x.buy, x.sell]));
        for (const [i, b] of out.entries()) {
          expect(Date.parse(b.timestamp)).toBe(b.timestamp_ms);
          close(b.buy_volume, input[i]!.buy, scale);
          close(b.sell_volume, input[i]!.sell, scale);
          close(b.delta, b.buy_volume - b.sell_volume, scale);
          running += b.delta;
          close(b.cumulative_delta, running, scale, i + 1);
        }
      }),
    );
  });

  it('restarts the running sum with each call (each page)', () => {
    const first = cvdBuckets([
      { bucket: 0, buy: 5, sell: 2 },
      { bucket: 60_000, buy: 1, sell: 4 },
    ]);
    const second = cvdBuckets([{ bucket: 120_000, buy: 2, sell: 0 }]);
    expect(first.map((b) => [b.delta, b.cumulative_delta])).toEqual([
      [3, 3],
      [-3, 0],
    ]);
    expect(second[0]).toMatchObject({ timestamp: '1970-01-01T00:02:00.000Z', delta: 2, cumulative_delta: 2 });
  });
});
