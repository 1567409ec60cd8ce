/**
 * Long delays. SQS can hide a message for at most 15 minutes, and the retry ladder waits an hour and
 * more. Such messages are parked as timers in DynamoDB, bucketed by the minute they fall due, and a
 * sweep (a Step Functions loop started every minute) moves each onto its queue shortly before it is
 * due, with the remaining seconds as SQS DelaySeconds. Cost is one small execution per minute
 * whatever the number of waiting messages, instead of one workflow per waiting message.
 *
 * Delivery is at least once: a timer is deleted only after its message is sent, so a crash in
 * between sends it again; consumers dedupe.
 */
import type { QueueName } from '../resources.ts';
import type { Clock } from '../ports/clock.ts';
import type { QueueSender } from '../ports/queues.ts';
import type { Timer, TimerStore } from '../ports/timers.ts';

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

/** Sends `body` to `queue` at `dueAt`: through SQS alone when it can wait that long, else as a timer. */
export async function sendAt(deps: DelayDeps, queue: QueueName, body: string, dueAt: number, id: string): Promise<'queued' | 'parked'> {
  const now = deps.clock.now();
  if (dueAt - now <= SQS_MAX_DELAY_S * 1000) {
    await deps.queues.send(queue, body, remainingDelaySeconds(dueAt, now));
    return 'queued';
  }
  await deps.timers.park({ id, queue, body, dueAt });
  return 'parked';
}

export interface SweepResult {
  released: number;
  /** True when the batch limit stopped the sweep early; the state machine loops on it. */
  more: boolean;
}

/** Releases every timer due before now + lookahead, oldest minute first, at most `limit` per call. */
export async function sweepTimers(deps: DelayDeps, limit = 500): Promise<SweepResult> {
  const now = deps.clock.now();
  const horizon = now + SWEEP_LOOKAHEAD_MS;
  const cursor = await deps.timers.readCursor();
  if (cursor === undefined) return { released: 0, more: false };

  let released = 0;
  for (let minute = cursor; minute <= minuteOf(horizon); minute += MINUTE_MS) {
    const due: Timer[] = await deps.timers.listDue(minute, horizon, limit - released);
    for (const timer of due) {
      await deps.queues.send(timer.queue, timer.body, remainingDelaySeconds(timer.dueAt, now));
      await deps.timers.remove(timer);
      released += 1;
    }
    if (released >= limit) return { released, more: true };
    // A bucket is drained once nothing in it is left before the horizon; only past minutes can be.
    if (minute + MINUTE_MS <= horizon) await deps.timers.advanceCursor(minute + MINUTE_MS);
  }
  return { released, more: false };
}
