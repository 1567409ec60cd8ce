/**
 * What every backend of the breadth port (functions/ports/breadth.ts) must do. Snapshots are kept
 * per family and minute; each test works in a window of minutes of its own (far in the future, so
 * `latest` is the test's), so suites share one table.
 */
import { describe, expect, it } from 'vitest';
import type { BreadthFamily, BreadthSnapshot } from '#core/breadth/compute.ts';
import type { BreadthStore } from '#ports/breadth.ts';

const MINUTE = 60_000;
let windows = 0;
/** A fresh window of minutes, later than every earlier one. */
const window = () => Date.UTC(2090, 0, 1) + windows++ * 86_400_000 + Math.floor(Math.random() * 1_000) * 86_400_000 * 10;

export function snapshot(family: BreadthFamily, at: number, above = 3): BreadthSnapshot {
  return {
    family,
    session_date: new Date(at).toISOString().slice(0, 10),
    calculated_at: new Date(at).toISOString(),
    value_pct: (above / 5) * 100,
    coverage_ratio: 0.9,
    counts: { candidates: 6, eligible: 5, above, at: 0, below: 5 - above, excluded_no_session_volume: 1, excluded_stale_price: 0 },
    namespaces:
      family === 'hip3' ? { eligible: { xyz: 5 }, above: { xyz: above }, at: {}, below: { xyz: 5 - above } } : { eligible: {}, above: {}, at: {}, below: {} },
  };
}

export function breadthStoreContract(store: () => BreadthStore): void {
  describe('BreadthStore', () => {
    it('reads a minute back as written, per family, and replaces it when written again', async () => {
      const t = window();
      const perpx = snapshot('perpx', t);
      const hip3 = { ...snapshot('hip3', t, 1), value_pct: null };
      await store().put(perpx);
      await store().put(hip3);
      expect(await store().edge('perpx', t, t, 'first')).toEqual(perpx);
      expect(await store().edge('hip3', t, t, 'last')).toEqual(hip3);
      await store().put(snapshot('perpx', t, 4));
      expect((await store().range('perpx', t, t, 10)).snapshots).toEqual([snapshot('perpx', t, 4)]);
    });

    it('pages a range oldest first, inclusive at both ends, saying when more follow', async () => {
      const t = window();
      const minutes = Array.from({ length: 40 }, (_, i) => snapshot('hip3', t + i * MINUTE));
      await store().putMany(minutes);
      await store().putMany([]);
      expect(await store().range('hip3', t, t + 39 * MINUTE, 40)).toEqual({ snapshots: minutes, more: false });
      expect(await store().range('hip3', t + MINUTE, t + 10 * MINUTE, 10)).toEqual({ snapshots: minutes.slice(1, 11), more: false });
      expect(await store().range('hip3', t + MINUTE, t + 10 * MINUTE, 9)).toEqual({ snapshots: minutes.slice(1, 10), more: true });
      expect(await store().range('hip3', t + 39 * MINUTE + 1, t + 99 * MINUTE, 10)).toEqual({ snapshots: [], more: false });
      expect(await store().range('perpx', t, t + 39 * MINUTE, 10)).toEqual({ snapshots: [], more: false });
    });

    it('finds the first and last snapshot of a window, and none in an empty one', async () => {
      const t = window();
      const minutes = [0, 5, 9].map((m) => snapshot('perpx', t + m * MINUTE));
      for (const s of minutes) await store().put(s);
      expect(await store().edge('perpx', t + MINUTE, t + 9 * MINUTE, 'first')).toEqual(minutes[1]);
      expect(await store().edge('perpx', t, t + 8 * MINUTE, 'last')).toEqual(minutes[1]);
      expect(await store().edge('perpx', t + MINUTE, t + 4 * MINUTE, 'first')).toBeUndefined();
      expect(await store().edge('perpx', t + MINUTE, t + 4 * MINUTE, 'last')).toBeUndefined();
    });

    it('answers the newest snapshot of a family', async () => {
      const t = Date.UTC(2199, 0, 1) + Math.floor(Math.random() * 1_000) * MINUTE;
      await store().putMany([snapshot('hip3', t + MINUTE), snapshot('hip3', t)]);
      expect(await store().latest('hip3')).toEqual(snapshot('hip3', t + MINUTE));
    });
  });
}
