import type { QueueName } from '../resources.ts';

export interface Timer {
  id: string;
  queue: QueueName;
  body: string;
  /** Epoch ms at which the message should become visible on its queue. */
  dueAt: number;
}

export interface TimerStore {
  /** Stores the timer and keeps the sweep cursor at or before its minute. Idempotent per id. */
  park(timer: Timer): Promise<void>;
  /** Timers in the minute bucket starting at `minute` that are due before `until`, oldest first. */
  listDue(minute: number, until: number, limit: number): Promise<Timer[]>;
  remove(timer: Timer): Promise<void>;
  /** Start of the oldest minute bucket that may still hold timers; undefined if none was ever parked. */
  readCursor(): Promise<number | undefined>;
  /** Moves the cursor forward (never back) to `minute`. */
  advanceCursor(minute: number): Promise<void>;
}
