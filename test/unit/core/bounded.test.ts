/**
 * The bounded pipeline compaction and ingest upload through: a producer hands pieces over one by
 * one; pieces that finish at once (in the same microtask) beside pieces waiting on I/O once made the
 * producer's wait spin on microtasks forever, filling the heap (the compaction sandbox's crash).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { boundedPipeline } from '#core/bounded.ts';

const piece = fc.record({
  weight: fc.integer({ min: 1, max: 10 }),
  wait: fc.oneof(fc.constant('now' as const), fc.integer({ min: 0, max: 3 })),
  fails: fc.boolean(),
});
const settleAfter = (wait: 'now' | number) => (wait === 'now' ? Promise.resolve() : new Promise<void>((resolve) => setTimeout(resolve, wait)));

describe('boundedPipeline', () => {
  it('keeps at most the limit, and the weight, in flight, and gives every result in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          piece.map((p) => ({ ...p, fails: false })),
          { maxLength: 40 },
        ),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 5, max: 20 }),
        async (pieces, limit, maxWeight) => {
          // Prepare
          const pipeline = boundedPipeline<number>(limit, maxWeight);
          let running = 0;
          let weight = 0;
          const seen: { running: number; weight: number }[] = [];
          // Act
          for (const [i, p] of pieces.entries()) {
            await pipeline.add(p.weight, async () => {
              running += 1;
              weight += p.weight;
              seen.push({ running, weight });
              try {
                await settleAfter(p.wait);
                return i;
              } finally {
                running -= 1;
                weight -= p.weight;
              }
            });
          }
          const results = await pipeline.settle();
          // Assess
          expect(results).toEqual(pieces.map((_, i) => i));
          for (const s of seen) {
            expect(s.running).toBeLessThanOrEqual(limit);
            if (s.running > 1) expect(s.weight).toBeLessThanOrEqual(maxWeight);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('waits for every piece, then throws the first failure', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 20 }), fc.integer({ min: 1, max: 3 }), async (pieces, limit) => {
        // Prepare
        const pipeline = boundedPipeline<number>(limit, 15);
        let finished = 0;
        // Act
        for (const [i, p] of pieces.entries()) {
          await pipeline.add(p.weight, async () => {
            await settleAfter(p.wait);
            finished += 1;
            if (p.fails) throw new Error(`piece ${i}`);
            return i;
          });
        }
        const outcome = await pipeline.settle().then(
          (r) => ({ ok: r }),
          (error: Error) => ({ error: error.message }),
        );
        // Assess
        expect(finished).toBe(pieces.length);
        const first = pieces.findIndex((p) => p.fails);
        expect(outcome).toEqual(first < 0 ? { ok: pieces.map((_, i) => i) } : { error: `piece ${first}` });
      }),
      { numRuns: 60 },
    );
  });
});
