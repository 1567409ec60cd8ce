/**
 * What every backend of the timer port (functions/ports/timers.ts) must do. The cursor is one per
 * store, so the suite expects a store nothing else has parked in, and its tests run in order.
 */
import { describe, expect, it } from 'vitest';
import { CURSOR_TRAIL_MS, minuteOf } from '#core/timers.ts';
import type { Timer, TimerStore } from '#ports/timers.ts';

const MINUTE = 60_000;
const M0 = Date.UTC(2026, 10, 21, 12, 0);

const timer = (id: string, dueAt: number, queue: Timer['queue'] = 'delivery'): Timer => ({ id, queue, body: `{"id":"${id}"}`, dueAt });

export function timerStoreContract(store: () => TimerStore): void {
  describe('TimerStore', () => {
    it('has no cursor before the first timer is parked, and moving it creates none', async () => {
      expect(await store().readCursor()).toBeUndefined();
      await store().advanceCursor(M0);
      expect(await store().readCursor()).toBeUndefined();
    });

    it('puts the cursor at or before the minute of a timer parked ahead, trailing the clock', async () => {
      await store().park(timer('first', M0 + 10 * MINUTE), M0 + 30_000);
      expect(await store().readCursor()).toBe(minuteOf(M0 + 30_000) - CURSOR_TRAIL_MS);
    });

    it("lists a minute's timers due by `until` (inclusive), oldest first, at most `limit`, and parks each id once", async () => {
      const minute = M0 + 10 * MINUTE;
      const timers = [timer('b', minute + 20_000), timer('a', minute + 5_000, 'ingest'), timer('c', minute + 59_999), timer('d', minute + 20_000)];
      for (const t of timers) await store().park(t, M0);
      await store().park(timer('a', minute + 5_000, 'ingest'), M0); // parked again: still one
      await store().park(timer('next-minute', minute + MINUTE), M0);
      expect((await store().listDue(minute, minute + MINUTE, 100)).map((t) => t.id)).toEqual(['first', 'a', 'b', 'd', 'c']);
      expect(await store().listDue(minute, minute + 20_000, 100)).toEqual([timer('first', minute), timers[1], timers[0], timers[3]]);
      expect((await store().listDue(minute, minute + 20_000, 2)).map((t) => t.id)).toEqual(['first', 'a']);
      expect(await store().listDue(minute, minute + 4_999, 100)).toEqual([timer('first', minute)]);
      expect(await store().listDue(minute, minute + MINUTE, 0)).toEqual([]);
      expect(await store().listDue(minute + 5 * MINUTE, minute + 6 * MINUTE, 100)).toEqual([]);
    });

    it('removes released timers, any number of them, and only those', async () => {
      const minute = M0 + 20 * MINUTE;
      const many = Array.from({ length: 60 }, (_, i) => timer(`many-${String(i).padStart(2, '0')}`, minute + i * 500));
      for (const t of many) await store().park(t, M0);
      await store().removeAll(many.slice(0, 55));
      expect((await store().listDue(minute, minute + MINUTE, 100)).map((t) => t.id)).toEqual(many.slice(55).map((t) => t.id));
      await store().removeAll([...many.slice(55), timer('never-parked', minute)]);
      expect(await store().listDue(minute, minute + MINUTE, 100)).toEqual([]);
      await store().removeAll([]);
    });

    it('moves the cursor forward only, and back to a timer parked already due behind it', async () => {
      const at = (await store().readCursor())!;
      await store().advanceCursor(at + 5 * MINUTE);
      await store().advanceCursor(at + 2 * MINUTE);
      expect(await store().readCursor()).toBe(at + 5 * MINUTE);
      // A timer due behind the cursor (parked late, as after an outage) pulls it back to its minute.
      await store().park(timer('late', at + 3 * MINUTE + 1_000), at + 20 * MINUTE);
      expect(await store().readCursor()).toBe(at + 3 * MINUTE);
      // One due ahead never moves it forward past a timer still parked.
      await store().park(timer('ahead', at + 40 * MINUTE), at + 3 * MINUTE);
      expect(await store().readCursor()).toBeLessThanOrEqual(at + 3 * MINUTE);
    });
  });
}
