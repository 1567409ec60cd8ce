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

/** How long a loop waits after finding its queue empty: the first loop of a queue stays quick; the others poll each second, and a full batch wakes them at once. */
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
export async function pollOnce(
  sqs: SQSClient, queue: QueueName, queueUrl: string, consumer: SqsConsumer,
  /** Told how many messages the receive returned, before the consumer runs. */
  onReceived: (count: number) => void = () => undefined,
): Promise<number> {
  const received = await sqs.send(new ReceiveMessageCommand({
    QueueUrl: queueUrl,
    MaxNumberOfMessages: QUEUES[queue].batchSize,
    WaitTimeSeconds: 0,
    // local-aws-sqs returns system attributes only for the legacy parameter.
    AttributeNames: ['All'],
    MessageAttributeNames: ['All'],
  }));
  const messages = received.Messages ?? [];
  onReceived(messages.length);
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

/**
 * One queue's event source: `loops` poll loops, as Lambda runs that many batches of a queue at once.
 * The first loop polls every `idleWaitMs.first` while the queue is empty, the others every
 * `idleWaitMs.others`; a receive that fills a whole batch means a backlog, so it wakes every idle
 * loop at once (Lambda's event source adds concurrent batches while messages keep coming), instead
 * of leaving a burst to one loop until the others' next poll.
 */
export function startEventSource(
  sqs: SQSClient, queue: QueueName, queueUrl: string, consumer: SqsConsumer, loops: number, idleWaitMs: { first: number; others: number } = IDLE_WAIT_MS,
): Poller {
  let running = true;
  const sleepers = new Set<() => void>();
  const wakeAll = () => { for (const wake of [...sleepers]) wake(); };
  const idle = (ms: number) => new Promise<void>((resolve) => {
    const wake = () => { clearTimeout(timer); sleepers.delete(wake); resolve(); };
    const timer = setTimeout(wake, ms);
    sleepers.add(wake);
  });
  const onReceived = (count: number) => { if (count >= QUEUES[queue].batchSize) wakeAll(); };
  const loop = async (idleMs: number) => {
    while (running) {
      try {
        const handled = await pollOnce(sqs, queue, queueUrl, consumer, onReceived);
        if (handled === 0 && running) await idle(idleMs);
      } catch (error) {
        if (running) console.error(`[poller] ${queue}:`, error);
        if (running) await idle(1000);
      }
    }
  };
  const all = Array.from({ length: loops }, (_, i) => loop(i === 0 ? idleWaitMs.first : idleWaitMs.others));
  return {
    async stop() {
      running = false;
      wakeAll();
      await Promise.all(all);
    },
  };
}
