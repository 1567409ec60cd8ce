/**
 * A per-container cache of costly reports: each key's value is computed once per `ttlMs` (callers
 * asking meanwhile share the computation) and handed back with when it was computed, so a response
 * can say how old it is. A failed computation is not kept.
 */
import type { Clock } from '#ports/clock.ts';
import { systemClock } from '#ports/clock.ts';

export interface Cached<T> {
  value: T;
  cachedAt: number;
  ttlMs: number;
}

/** Entries beyond this many are dropped oldest first (symbol windows are many). */
const MAX_ENTRIES = 1_000;

export function timedCache(ttlMs: number, clock: Clock = systemClock) {
  const entries = new Map<string, { promise: Promise<unknown>; cachedAt: number }>();
  return {
    async get<T>(key: string, compute: () => Promise<T>): Promise<Cached<T>> {
      const now = clock.now();
      let entry = entries.get(key);
      if (!entry || now - entry.cachedAt >= ttlMs) {
        entry = { promise: compute(), cachedAt: now };
        entries.delete(key);
        entries.set(key, entry);
        if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
        const mine = entry;
        mine.promise.catch(() => {
          if (entries.get(key) === mine) entries.delete(key);
        });
      }
      return { value: (await entry.promise) as T, cachedAt: entry.cachedAt, ttlMs };
    },
  };
}
