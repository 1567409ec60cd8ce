/**
 * Long delays. SQS can hide a message for at most 15 minutes, and the retry ladder waits an hour and
 * more. Such messages are parked as timers in DynamoDB, bucketed by the minute they fall due, and a
 * sweep (a Step Functions loop started every minute) moves each onto its queue shortly before it is
 * due, with the remaining seconds as SQS DelaySeconds. Cost is one small execution per minute
 * whatever the number of waiting messages, instead of one workflow per waiting message.
 *
 * Delivery is at least once: a timer is deleted only after its message is sent, so a crash in
 * between sends it again; consumers dedupe. A sweep sends and deletes ten timers a request
 * (SendMessageBatch, BatchWriteItem), a few batches at once.
 */
import type { QueueName } from '../resources.ts';
import type { Clock } from '../ports/clock.ts';
import type { QueueBatchSender, QueueSender } from '../ports/queues.ts';
import type { Timer, TimerStore } from '../ports/timers.ts';
import { groupBy } from './group.ts';

export const SQS_MAX_DELAY_S = 900;
const MINUTE_MS = 60_000;
/** A sweep releases timers due within this horizon; the schedule runs every minute. */
export const SWEEP_LOOKAHEAD_MS = MINUTE_MS;

export function minuteOf(epochMs: number): number {
  return Math.floor(epochMs / MINUTE_MS) * MINUTE_MS;
}

/** Seconds SQS should still hide a message due at `dueAt`, released at `now`. */
export function remainingDelaySeconds(dueAt: number, now: number): number {
  return Math.min(SQS_MAX_DELAY_S, Math.max(0, Math.ceil((dueAt - now) / 1000)));
}

export interface DelayDeps {
  timers: TimerStore;
  queues: QueueSender;
  clock: Clock;
}

/**
 * Sends `body` to `queue` at `dueAt`: through SQS alone when it can wait that long, else as a timer.
 * `waitS` is the wait it stands for when that is longer than `dueAt` says: the local cloud's
 * LOCAL_TIME_SCALE shortens a ladder rung's wall-clock wait, and the rung is parked as in AWS.
 */
export async function sendAt(deps: DelayDeps, queue: QueueName, body: string, dueAt: number, id: string, waitS = 0): Promise<'queued' | 'parked'> {
  const now = deps.clock.now();
  if (Math.max(waitS * 1000, dueAt - now) <= SQS_MAX_DELAY_S * 1000) {
    await deps.queues.send(queue, body, remainingDelaySeconds(dueAt, now));
    return 'queued';
  }
  await deps.timers.park({ id, queue, body, dueAt }, now);
  return 'parked';
}

export interface SweepResult {
  released: number;
  /** True when the batch limit stopped the sweep early; the state machine loops on it. */
  more: boolean;
}

/**
 * The cursor passes a minute's bucket only once that minute ended this long ago. A timer parked
 * while a sweep runs is then never behind the cursor (with clocks within a minute of each other),
 * so parking never has to move the cursor back: one write a run at most, none per timer.
 */
export const CURSOR_TRAIL_MS = MINUTE_MS;
/** SQS SendMessageBatch and DynamoDB BatchWriteItem both take this many; batches of a sweep go out a few at a time. */
const RELEASE_BATCH = 10;
const BATCHES_IN_FLIGHT = 4;

export type SweepDeps = Omit<DelayDeps, 'queues'> & { queues: QueueBatchSender };

/** Sends a batch of due timers onto their queues, then deletes them: a crash in between sends them again. */
async function release(deps: SweepDeps, timers: Timer[], now: number): Promise<void> {
  const byQueue = groupBy(timers, (timer) => timer.queue);
  await Promise.all(
    [...byQueue].map(([queue, batch]) =>
      deps.queues.sendBatch(
        queue,
        batch.map((timer) => ({ body: timer.body, delaySeconds: remainingDelaySeconds(timer.dueAt, now) })),
      ),
    ),
  );
  await deps.timers.removeAll(timers);
}

/** Releases every timer due before now + lookahead, oldest minute first, at most `limit` per call. */
export async function sweepTimers(deps: SweepDeps, limit = 500): Promise<SweepResult> {
  const now = deps.clock.now();
  const horizon = now + SWEEP_LOOKAHEAD_MS;
  const cursor = await deps.timers.readCursor();
  if (cursor === undefined) return { released: 0, more: false };

  let released = 0;
  let passed = cursor;
  for (let minute = cursor; minute <= minuteOf(horizon); minute += MINUTE_MS) {
    const due: Timer[] = await deps.timers.listDue(minute, horizon, limit - released);
    const batches = Array.from({ length: Math.ceil(due.length / RELEASE_BATCH) }, (_, i) => due.slice(i * RELEASE_BATCH, (i + 1) * RELEASE_BATCH));
    for (let i = 0; i < batches.length; i += BATCHES_IN_FLIGHT) {
      await Promise.all(batches.slice(i, i + BATCHES_IN_FLIGHT).map((batch) => release(deps, batch, now)));
    }
    released += due.length;
    if (released >= limit) break;
    // A bucket is drained once nothing in it is left before the horizon; the cursor passes it a minute later.
    if (minute + MINUTE_MS <= now - CURSOR_TRAIL_MS) passed = minute + MINUTE_MS;
  }
  if (passed > cursor) await deps.timers.advanceCursor(passed);
  return { released, more: released >= limit };
}
