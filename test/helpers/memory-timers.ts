/**
 * An in-memory double of the timer port, for the pure sweep logic (test/unit/core/timers.test.ts);
 * test/integration/port-contracts.test.ts holds it to the same contract as the DynamoDB store.
 */
import { CURSOR_TRAIL_MS, minuteOf } from '#core/timers.ts';
import type { Timer, TimerStore } from '#ports/timers.ts';

export function memoryTimers(): TimerStore & { parked: Map<string, Timer>; cursor?: number } {
  const store = {
    parked: new Map<string, Timer>(),
    cursor: undefined as number | undefined,
    // As the DynamoDB store does: the cursor is written only when created or when the timer is behind its trail.
    async park(timer: Timer, parkedAt: number) {
      store.parked.set(timer.id, timer);
      const minute = Math.min(minuteOf(timer.dueAt), minuteOf(parkedAt) - CURSOR_TRAIL_MS);
      if (store.cursor === undefined || store.cursor > minute) store.cursor = minute;
    },
    async listDue(minute: number, until: number, limit: number) {
      return [...store.parked.values()]
        .filter((t) => minuteOf(t.dueAt) === minute && t.dueAt <= until)
        .sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : 1))
        .slice(0, Math.max(0, limit));
    },
    async removeAll(timers: Timer[]) {
      for (const timer of timers) store.parked.delete(timer.id);
    },
    async readCursor() {
      return store.cursor;
    },
    async advanceCursor(minute: number) {
      if (store.cursor !== undefined && store.cursor < minute) store.cursor = minute;
    },
  };
  return store;
}
