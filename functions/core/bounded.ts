/**
 * Work over many items with at most `limit` in flight. Every item is tried even when one fails (a
 * retry then finds as much done as possible); the first failure is thrown once all have settled.
 */
export async function eachBounded<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const results = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, async () => {
    const failures: unknown[] = [];
    while (next < items.length) {
      const i = next++;
      await work(items[i]!, i).catch((error: unknown) => { failures.push(error); });
    }
    if (failures.length > 0) throw failures[0];
  }));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** `eachBounded` collecting each item's result, in the items' order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  await eachBounded(items, limit, async (item, i) => { out[i] = await work(item, i); });
  return out;
}
