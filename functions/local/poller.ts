/**
 * The SQS -> Lambda event source: receives up to `batchSize` messages, invokes the consumer with an
 * SQS event, deletes the messages it did not report in `batchItemFailures` and leaves the rest to
 * reappear after the visibility timeout (the queue's redrive policy then moves repeat failures to
 * the DLQ). A thrown handler fails the whole batch, as in Lambda.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { QueueName } from '../resources.ts';
import { QUEUES } from '../resources.ts';

export type SqsConsumer = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

/** How long a loop waits after finding its queue empty: the first loop of a queue stays quick, the others join a burst within a second. */
export const IDLE_WAIT_MS = { first: 100, others: 1_000 } as const;

export function toSqsEvent(messages: Message[], queueArn: string): SQSEvent {
  return {
    Records: messages.map((m) => ({
      messageId: m.MessageId!,
      receiptHandle: m.ReceiptHandle!,
      body: m.Body ?? '',
      attributes: {
        ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
        SentTimestamp: m.Attributes?.SentTimestamp ?? String(Date.now()),
        SenderId: m.Attributes?.SenderId ?? 'local',
        ApproximateFirstReceiveTimestamp: m.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      },
      messageAttributes: Object.fromEntries(Object.entries(m.MessageAttributes ?? {}).map(([k, a]) => [k, {
        stringValue: a.StringValue, binaryValue: a.BinaryValue ? Buffer.from(a.BinaryValue).toString('base64') : undefined,
        stringListValues: a.StringListValues ?? [], binaryListValues: [], dataType: a.DataType ?? 'String',
      }])),
      md5OfBody: m.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: 'us-east-1',
    })),
  };
}

export interface Poller { stop(): Promise<void> }

/** Runs one poll: returns how many messages were handled. Exposed for tests. */
export async function pollOnce(sqs: SQSClient, queue: QueueName, queueUrl: string, consumer: SqsConsumer): Promise<number> {
  const received = await sqs.send(new ReceiveMessageCommand({
    QueueUrl: queueUrl,
    MaxNumberOfMessages: QUEUES[queue].batchSize,
    WaitTimeSeconds: 0,
    // local-aws-sqs returns system attributes only for the legacy parameter.
    AttributeNames: ['All'],
    MessageAttributeNames: ['All'],
  }));
  const messages = received.Messages ?? [];
  if (messages.length === 0) return 0;
  let failed = new Set(messages.map((m) => m.MessageId!));
  try {
    const response = await consumer(toSqsEvent(messages, `arn:aws:sqs:us-east-1:000000000000:${queue}`));
    failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
  } catch (error) {
    console.error(`[poller] the consumer of ${queue} failed a batch:`, error);
  }
  const done = messages.filter((m) => !failed.has(m.MessageId!));
  if (done.length > 0) {
    await sqs.send(new DeleteMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
    }));
  }
  return messages.length;
}

export function startPoller(sqs: SQSClient, queue: QueueName, queueUrl: string, consumer: SqsConsumer, idleWaitMs: number = IDLE_WAIT_MS.first): Poller {
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const handled = await pollOnce(sqs, queue, queueUrl, consumer);
        if (handled === 0) await new Promise((r) => setTimeout(r, idleWaitMs));
      } catch (error) {
        if (running) console.error(`[poller] ${queue}:`, error);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}
