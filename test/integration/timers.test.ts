import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { sendAt } from '#core/timers.ts';
import { queueSender, timerStore } from '#shared/deps.ts';
import { localStateMachines, type LocalStateMachines } from '#local/state-machines.ts';
import { sharedTemplate } from '../helpers/local-cloud.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';

let env: ScratchEmulators;
let machines: LocalStateMachines;
beforeAll(async () => {
  env = await startScratchEmulators();
  machines = localStateMachines(await sharedTemplate());
});
afterAll(async () => {
  await env?.stop();
});

async function receiveAll(queueUrl: string): Promise<string[]> {
  const out = await env.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
  return (out.Messages ?? []).map((m) => m.Body ?? '');
}

describe('long delays through the synthesized timer-sweep state machine', () => {
  it('parks a message due in two hours and leaves the queue empty', async () => {
    const clock = { now: () => Date.now() };
    await expect(sendAt({ timers: timerStore(), queues: queueSender(), clock }, 'delivery', 'in-two-hours', Date.now() + 7_200_000, 'late-1')).resolves.toBe(
      'parked',
    );
    await expect(machines.run('timer-sweep', {})).resolves.toEqual({ released: 0, more: false });
    await expect(receiveAll(env.emulators.names.queueUrls.delivery)).resolves.toEqual([]);
  });

  it('moves due timers onto their queues and deletes them', async () => {
    // Prepare: two timers already due (as after an outage of the sweep), one on each queue.
    const now = Date.now();
    await timerStore().park({ id: 'due-1', queue: 'delivery', body: 'deliver-me', dueAt: now - 90_000 }, now);
    await timerStore().park({ id: 'due-2', queue: 'ingest', body: 'ingest-me', dueAt: now - 1_000 }, now);
    // Act
    const output = await machines.run('timer-sweep', {});
    // Assess
    expect(output).toEqual({ released: 2, more: false });
    await expect(receiveAll(env.emulators.names.queueUrls.delivery)).resolves.toEqual(['deliver-me']);
    await expect(receiveAll(env.emulators.names.queueUrls.ingest)).resolves.toEqual(['ingest-me']);
    await expect(machines.run('timer-sweep', {})).resolves.toEqual({ released: 0, more: false });
  });

  it('hides a timer released early for its remaining seconds with SQS DelaySeconds', async () => {
    await timerStore().park({ id: 'soon', queue: 'ingest', body: 'soon', dueAt: Date.now() + 30_000 }, Date.now());
    await machines.run('timer-sweep', {});
    const attributes = await env.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: env.emulators.names.queueUrls.ingest,
        AttributeNames: ['ApproximateNumberOfMessagesDelayed'],
      }),
    );
    expect(attributes.Attributes?.ApproximateNumberOfMessagesDelayed).toBe('1');
  });
});
