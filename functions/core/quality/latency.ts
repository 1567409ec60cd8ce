/**
 * REST latency as the service measures it: each container adds every request's time to a histogram
 * of the current minute (per venue family) and writes the minute once it is over, on the next
 * request, so the store sees at most one write per container, minute and family however busy the
 * container is. The data-quality routes read the minutes back and add them up.
 */
import type { LatencyMinute, LatencyStore } from '#ports/quality.ts';
import { bucketMiddle, bucketOf } from '../archive/cadence.ts';

const MINUTE = 60_000;

export interface LatencyRecorder {
  /** Adds one request; resolves once the minutes that ended before it are written (at most once a minute). */
  record(scope: string, ms: number, now: number): Promise<void>;
}

export function latencyRecorder(store: () => LatencyStore, container: string): LatencyRecorder {
  const open = new Map<string, LatencyMinute>();
  return {
    async record(scope, ms, now) {
      const minute = Math.floor(now / MINUTE) * MINUTE;
      const ended = [...open.values()].filter((m) => m.minute < minute);
      const key = `${minute}|${scope}`;
      const current = open.get(key) ?? { minute, scope, count: 0, sumMs: 0, hist: {} };
      const bucket = String(bucketOf(Math.max(1, ms)));
      current.count += 1;
      current.sumMs += ms;
      current.hist[bucket] = (current.hist[bucket] ?? 0) + 1;
      open.set(key, current);
      for (const m of ended) open.delete(`${m.minute}|${m.scope}`);
      if (ended.length > 0) await Promise.all(ended.map((m) => store().put(container, m)));
    },
  };
}

export interface LatencySummary {
  count: number;
  meanMs: number;
  p99Ms: number;
}

/** Count, mean and p99 (a bucket's middle) of the minutes. */
export function summarize(minutes: readonly LatencyMinute[]): LatencySummary | undefined {
  const count = minutes.reduce((n, m) => n + m.count, 0);
  if (count === 0) return undefined;
  const hist: Record<string, number> = {};
  for (const m of minutes) for (const [b, n] of Object.entries(m.hist)) hist[b] = (hist[b] ?? 0) + n;
  const buckets = Object.entries(hist)
    .map(([b, n]) => [Number(b), n] as const)
    .sort((a, b) => a[0] - b[0]);
  let seen = 0;
  let p99 = bucketMiddle(buckets[buckets.length - 1]![0]);
  for (const [bucket, n] of buckets) {
    seen += n;
    if (seen >= 0.99 * count) {
      p99 = bucketMiddle(bucket);
      break;
    }
  }
  return { count, meanMs: minutes.reduce((s, m) => s + m.sumMs, 0) / count, p99Ms: p99 };
}
