import type { QueueName } from '../resources.ts';

export interface Timer {
  id: string;
  queue: QueueName;
  body: string;
  /** Epoch ms at which the message should become visible on its queue. */
  dueAt: number;
}

export interface TimerStore {
  /**
   * Stores the timer and keeps the sweep cursor at or before its minute. Idempotent per id. The
   * cursor trails the clock (CURSOR_TRAIL_MS), so only a timer already due when parked at
   * `parkedAt` (or the first one, which creates the cursor) has to write it.
   */
  park(timer: Timer, parkedAt: number): Promise<void>;
  /** Timers in the minute bucket starting at `minute` that are due before `until`, oldest first. */
  listDue(minute: number, until: number, limit: number): Promise<Timer[]>;
  /** Deletes released timers (any number; batched by the store). */
  removeAll(timers: Timer[]): Promise<void>;
  /** Start of the oldest minute bucket that may still hold timers; undefined if none was ever parked. */
  readCursor(): Promise<number | undefined>;
  /** Moves the cursor forward (never back) to `minute`. */
  advanceCursor(minute: number): Promise<void>;
}
