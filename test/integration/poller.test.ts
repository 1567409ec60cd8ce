import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateQueueCommand, GetQueueAttributesCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { pollOnce, startEventSource } from '#local/poller.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';

let env: ScratchEmulators;
let queueUrl: string;
let queues = 0;
beforeAll(async () => {
  env = await startScratchEmulators();
});
afterAll(async () => {
  await env?.stop();
});

async function counts() {
  const { Attributes } = await env.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  // local-aws-sqs counts in-flight messages in ApproximateNumberOfMessages too, so it reads as "left in the queue".
  return { left: Number(Attributes?.ApproximateNumberOfMessages), inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible) };
}

/** A fresh queue per test, so in-flight messages of one test cannot leak into the next. */
async function sendThree() {
  queueUrl = (await env.sqs.send(new CreateQueueCommand({ QueueName: `poller-test-${++queues}`, Attributes: { VisibilityTimeout: '60' } }))).QueueUrl!;
  for (const body of ['a', 'b', 'c']) await env.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
}

describe('the SQS event source', () => {
  it('passes a batch as an SQS event and deletes only the messages not reported as failures', async () => {
    // Prepare
    await sendThree();
    let seen: SQSEvent | undefined;
    // Act
    const handled = await pollOnce(env.sqs, 'delivery', queueUrl, async (event) => {
      seen = event;
      const failed = event.Records.find((r) => r.body === 'b')!;
      return { batchItemFailures: [{ itemIdentifier: failed.messageId }] };
    });
    // Assess
    expect(handled).toBe(3);
    expect(seen?.Records.map((r) => r.body).sort()).toEqual(['a', 'b', 'c']);
    expect(seen?.Records[0]).toMatchObject({ eventSource: 'aws:sqs', attributes: { ApproximateReceiveCount: '1' } });
    await expect(counts()).resolves.toEqual({ left: 1, inFlight: 1 });
  });

  it('keeps the whole batch when the consumer throws', async () => {
    await sendThree();
    await pollOnce(env.sqs, 'delivery', queueUrl, async () => {
      throw new Error('consumer crashed');
    });
    await expect(counts()).resolves.toEqual({ left: 3, inFlight: 3 });
  });

  it('deletes the whole batch when the consumer reports no failures', async () => {
    await sendThree();
    await pollOnce(env.sqs, 'delivery', queueUrl, async () => ({ batchItemFailures: [] }));
    await expect(counts()).resolves.toEqual({ left: 0, inFlight: 0 });
  });
});

describe('the event source of a queue with several loops', () => {
  it('wakes its idle loops when a receive fills a whole batch, so a burst is taken by every loop at once', async () => {
    // Prepare: three loops; the two others would sleep ten minutes between polls of an empty queue.
    queueUrl = (await env.sqs.send(new CreateQueueCommand({ QueueName: `poller-test-${++queues}`, Attributes: { VisibilityTimeout: '60' } }))).QueueUrl!;
    const sqs = new SQSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: env.emulators.endpoints.sqs, useQueueUrlAsEndpoint: false });
    let emptyReceives = 0;
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'ReceiveMessageCommand' && !(result.output as { Messages?: unknown[] }).Messages?.length) emptyReceives += 1;
        return result;
      },
      { step: 'initialize' },
    );
    let inFlight = 0;
    let release!: () => void;
    const allThreeHeld = new Promise<void>((resolve) => {
      release = resolve;
    });
    const source = startEventSource(
      sqs,
      'delivery',
      queueUrl,
      async () => {
        // Each batch is held until three are held at once: only the woken loops can get there.
        if (++inFlight === 3) release();
        await allThreeHeld;
        return { batchItemFailures: [] };
      },
      3,
      { idleWaitMs: { first: 50, others: 600_000 } },
    );
    try {
      // Every loop has found the queue empty and gone idle.
      while (emptyReceives < 3) await new Promise((r) => setTimeout(r, 10));
      // Act: a burst of three batches.
      for (let batch = 0; batch < 3; batch++) {
        await env.sqs.send(
          new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: Array.from({ length: 10 }, (_, i) => ({ Id: String(i), MessageBody: `${batch}-${i}` })) }),
        );
      }
      // Assess: three batches were held at once, so the loops asleep for ten minutes took two of them.
      await allThreeHeld;
      expect(inFlight).toBe(3);
    } finally {
      release();
      await source.stop();
      sqs.destroy();
    }
  });
});

describe('the event source told of arrivals by the SQS journal', () => {
  it('wakes a loop asleep for ten minutes for a message sent, and for a delayed one when its delay ends', { timeout: 120_000 }, async () => {
    // Prepare: one loop that sleeps ten minutes whenever it finds the queue empty.
    queueUrl = (await env.sqs.send(new CreateQueueCommand({ QueueName: `poller-test-${++queues}`, Attributes: { VisibilityTimeout: '60' } }))).QueueUrl!;
    let receives = 0;
    const sqs = new SQSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: env.emulators.endpoints.sqs, useQueueUrlAsEndpoint: false });
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ReceiveMessageCommand') receives += 1;
        return next(args);
      },
      { step: 'initialize' },
    );
    const bodies: string[] = [];
    let arrived = () => {};
    const source = startEventSource(
      sqs,
      'delivery',
      queueUrl,
      async (event) => {
        bodies.push(...event.Records.map((r) => r.body));
        arrived();
        return { batchItemFailures: [] };
      },
      1,
      { idleWaitMs: { first: 600_000, others: 600_000 }, arrivals: env.emulators.arrivals(queueUrl) },
    );
    const next = () =>
      new Promise<void>((resolve) => {
        arrived = resolve;
      });
    try {
      while (receives < 1) await new Promise((r) => setTimeout(r, 10));
      // Act / Assess: a message sent now is taken by the loop asleep for ten minutes.
      let taken = next();
      await env.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'now' }));
      await taken;
      expect(bodies).toEqual(['now']);
      // A delayed message wakes the loop when it becomes visible (woken before, the loop would find
      // nothing and sleep its ten minutes: the test would time out).
      taken = next();
      await env.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'later', DelaySeconds: 2 }));
      await taken;
      expect(bodies).toEqual(['now', 'later']);
    } finally {
      await source.stop();
      sqs.destroy();
    }
  });
});
