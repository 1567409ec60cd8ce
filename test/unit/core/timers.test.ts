import { describe, expect, it } from 'vitest';
import { CURSOR_TRAIL_MS, minuteOf, remainingDelaySeconds, sendAt, sweepTimers, type SweepDeps } from '#core/timers.ts';
import { memoryTimers } from '#test/helpers/memory-timers.ts';
import type { QueueName } from '#functions/resources.ts';

function harness(start: number) {
  const sent: { queue: QueueName; body: string; delay: number }[] = [];
  const batches: number[] = [];
  const clock = {
    value: start,
    now() {
      return this.value;
    },
  };
  const timers = memoryTimers();
  const deps: SweepDeps = {
    timers,
    clock,
    queues: {
      send: async (queue, body, delay = 0) => {
        sent.push({ queue, body, delay });
      },
      sendBatch: async (queue, messages) => {
        batches.push(messages.length);
        for (const m of messages) sent.push({ queue, body: m.body, delay: m.delaySeconds });
      },
    },
  };
  return { deps, sent, clock, timers, batches };
}

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);

describe('sendAt', () => {
  it('uses SQS alone for delays up to 15 minutes', async () => {
    const { deps, sent, timers } = harness(T0);
    await expect(sendAt(deps, 'delivery', 'a', T0 + 900_000, 't1')).resolves.toBe('queued');
    expect(sent).toEqual([{ queue: 'delivery', body: 'a', delay: 900 }]);
    expect(timers.parked.size).toBe(0);
  });

  it('parks a message due in an hour as a timer', async () => {
    const { deps, sent, timers } = harness(T0);
    await expect(sendAt(deps, 'delivery', 'b', T0 + 3_600_000, 't2')).resolves.toBe('parked');
    expect(sent).toEqual([]);
    expect(timers.parked.get('t2')?.dueAt).toBe(T0 + 3_600_000);
  });
});

describe('sendAt under the local time scale', () => {
  it('parks a wait that stands for an hour of service time though it is due in a second, and queues a short one', async () => {
    const { deps, sent, timers } = harness(T0);
    await expect(sendAt(deps, 'delivery', 'hourly', T0 + 1_000, 'h', 3_600)).resolves.toBe('parked');
    await expect(sendAt(deps, 'delivery', 'ten-minutes', T0 + 1_000, 's', 600)).resolves.toBe('queued');
    expect(timers.parked.has('h')).toBe(true);
    expect(sent).toEqual([{ queue: 'delivery', body: 'ten-minutes', delay: 1 }]);
  });
});

describe('sweepTimers', () => {
  it('releases nothing before the due minute comes within the lookahead', async () => {
    const { deps, sent, clock } = harness(T0);
    await sendAt(deps, 'delivery', 'later', T0 + 3_600_000, 't');
    clock.value = T0 + 3_600_000 - 120_000;
    await expect(sweepTimers(deps)).resolves.toEqual({ released: 0, more: false });
    expect(sent).toEqual([]);
  });

  it('releases a due timer with the remaining seconds as SQS delay, then deletes it', async () => {
    const { deps, sent, clock, timers } = harness(T0);
    await sendAt(deps, 'ingest', 'job', T0 + 3_600_000 + 30_000, 't');
    clock.value = T0 + 3_600_000;
    await expect(sweepTimers(deps)).resolves.toEqual({ released: 1, more: false });
    expect(sent).toEqual([{ queue: 'ingest', body: 'job', delay: 30 }]);
    expect(timers.parked.size).toBe(0);
  });

  it('catches up on timers whose minute passed while no sweep ran', async () => {
    const { deps, sent, clock } = harness(T0);
    await sendAt(deps, 'delivery', 'old', T0 + 1_800_000, 't');
    clock.value = T0 + 5 * 3_600_000;
    await sweepTimers(deps);
    expect(sent).toEqual([{ queue: 'delivery', body: 'old', delay: 0 }]);
  });

  it('stops at the batch limit and reports more, then finishes on the next call', async () => {
    const { deps, sent, clock } = harness(T0);
    for (let i = 0; i < 5; i++) await sendAt(deps, 'delivery', `m${i}`, T0 + 3_600_000 + i, `t${i}`);
    clock.value = T0 + 3_600_000;
    await expect(sweepTimers(deps, 3)).resolves.toEqual({ released: 3, more: true });
    await expect(sweepTimers(deps, 3)).resolves.toEqual({ released: 2, more: false });
    expect(sent.map((s) => s.body)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
  });

  it('advances the cursor only past minutes that ended a minute ago, so a timer parked during a sweep is never behind it', async () => {
    const { deps, clock, timers } = harness(T0);
    await sendAt(deps, 'delivery', 'x', T0 + 3_600_000, 't');
    clock.value = T0 + 3_600_000 + 10_000;
    await sweepTimers(deps);
    expect(timers.cursor).toBe(minuteOf(clock.value) - CURSOR_TRAIL_MS);
    // Parked at this instant, due within the lookahead (the scaled local ladder does this): the next sweep finds it.
    await timers.park({ id: 'soon', queue: 'delivery', body: 'soon', dueAt: clock.value + 1_000 }, clock.value);
    await expect(sweepTimers(deps)).resolves.toEqual({ released: 1, more: false });
  });

  it('sends and deletes the due timers ten at a time', async () => {
    const { deps, clock, timers, batches } = harness(T0);
    for (let i = 0; i < 25; i++) await sendAt(deps, 'delivery', `m${i}`, T0 + 3_600_000 + i, `t${i}`);
    clock.value = T0 + 3_600_000;
    await expect(sweepTimers(deps)).resolves.toEqual({ released: 25, more: false });
    expect(batches).toEqual([10, 10, 5]);
    expect(timers.parked.size).toBe(0);
  });
});

describe('remainingDelaySeconds', () => {
  it('rounds up, never goes negative and never exceeds the SQS maximum', () => {
    expect(remainingDelaySeconds(1_500, 0)).toBe(2);
    expect(remainingDelaySeconds(0, 10_000)).toBe(0);
    expect(remainingDelaySeconds(10_000_000, 0)).toBe(900);
  });
});
