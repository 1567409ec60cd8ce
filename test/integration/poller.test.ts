import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateQueueCommand, GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { pollOnce } from '../../functions/local/poller.ts';
import { startScratchEmulators, type ScratchEmulators } from '../../functions/local/scratch-emulators.ts';

let env: ScratchEmulators;
let queueUrl: string;
let queues = 0;
beforeAll(async () => { env = await startScratchEmulators(); });
afterAll(async () => { await env?.stop(); });

async function counts() {
  const { Attributes } = await env.sqs.send(new GetQueueAttributesCommand({
    QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
  }));
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
    await pollOnce(env.sqs, 'delivery', queueUrl, async () => { throw new Error('consumer crashed'); });
    await expect(counts()).resolves.toEqual({ left: 3, inFlight: 3 });
  });

  it('deletes the whole batch when the consumer reports no failures', async () => {
    await sendThree();
    await pollOnce(env.sqs, 'delivery', queueUrl, async () => ({ batchItemFailures: [] }));
    await expect(counts()).resolves.toEqual({ left: 0, inFlight: 0 });
  });
});
