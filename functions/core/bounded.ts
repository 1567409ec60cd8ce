/**
 * Work over many items with at most `limit` in flight. Every item is tried even when one fails (a
 * retry then finds as much done as possible); the first failure is thrown once all have settled.
 */
export async function eachBounded<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const results = await Promise.allSettled(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      const failures: unknown[] = [];
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i).catch((error: unknown) => {
          failures.push(error);
        });
      }
      if (failures.length > 0) throw failures[0];
    }),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** `eachBounded` collecting each item's result, in the items' order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  await eachBounded(items, limit, async (item, i) => {
    out[i] = await work(item, i);
  });
  return out;
}

const ignore = () => undefined;

/**
 * Work a sequential producer hands over piece by piece (a file written, then uploaded), with at most
 * `limit` pieces, and `maxWeight` of their weight (unless one piece alone), in flight: `add` waits
 * for room before starting a piece. `settle` waits for every piece started and throws the first
 * failure once all have settled, so nothing is left running behind a failure.
 */
export function boundedPipeline<R>(limit: number, maxWeight = Number.POSITIVE_INFINITY) {
  const running = new Set<Promise<void>>();
  const started: Promise<R>[] = [];
  let weight = 0;
  return {
    async add(pieceWeight: number, start: () => Promise<R>): Promise<void> {
      // Race only the pieces still running: a finished one would win every race at once, and the
      // loop would spin on microtasks, never letting the I/O it waits for complete.
      while (running.size >= limit || (running.size > 0 && weight + pieceWeight > maxWeight)) await Promise.race(running);
      weight += pieceWeight;
      const result = start();
      started.push(result);
      const done: Promise<void> = result.then(ignore, ignore).then(() => {
        running.delete(done);
        weight -= pieceWeight;
      });
      running.add(done);
    },
    async settle(): Promise<R[]> {
      const outcomes = await Promise.allSettled(started);
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) throw failed.reason;
      return outcomes.map((o) => (o as PromiseFulfilledResult<R>).value);
    },
  };
}
