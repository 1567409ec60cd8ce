/**
 * The SQS -> Lambda event source: receives up to `batchSize` messages, invokes the consumer with an
 * SQS event, deletes the messages it did not report in `batchItemFailures` and leaves the rest to
 * reappear after the visibility timeout (the queue's redrive policy then moves repeat failures to
 * the DLQ). A thrown handler fails the whole batch, as in Lambda.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { QueueName } from '../resources.ts';
import type { QueueArrivals } from './sqs-journal.ts';
import { QUEUES } from '../resources.ts';

export type SqsConsumer = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

/**
 * How long a loop waits after finding its queue empty, unless woken sooner: by a message sent to
 * the queue (or becoming visible after its delay), which the SQS journal tells the event source of
 * as a long poll would learn it, or by a receive that fills a whole batch. Only what the journal
 * does not see waits this long: a message back after its visibility timeout. An idle local cloud
 * receives about 11 times a second (4 first loops, 70 others) where it received 72 times (its 36
 * loops polling every 100 ms and every second).
 */
export const IDLE_WAIT_MS = { first: 1_000, others: 10_000 } as const;

/** Loops a receive that fills a whole batch wakes: a backlog is taken by 1, 3, 7, ... loops, as Lambda scales its batches up. */
const BACKLOG_WAKES = 2;

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
      messageAttributes: Object.fromEntries(
        Object.entries(m.MessageAttributes ?? {}).map(([k, a]) => [
          k,
          {
            stringValue: a.StringValue,
            binaryValue: a.BinaryValue ? Buffer.from(a.BinaryValue).toString('base64') : undefined,
            stringListValues: a.StringListValues ?? [],
            binaryListValues: [],
            dataType: a.DataType ?? 'String',
          },
        ]),
      ),
      md5OfBody: m.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: 'us-east-1',
    })),
  };
}

export interface Poller {
  stop(): Promise<void>;
}

/** Runs one poll: returns how many messages were handled. Exposed for tests. */
export async function pollOnce(
  sqs: SQSClient,
  queue: QueueName,
  queueUrl: string,
  consumer: SqsConsumer,
  /** Told how many messages the receive returned, before the consumer runs. */
  onReceived: (count: number) => void = () => undefined,
): Promise<number> {
  const received = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: QUEUES[queue].batchSize,
      WaitTimeSeconds: 0,
      // local-aws-sqs returns system attributes only for the legacy parameter.
      AttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
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
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
      }),
    );
  }
  return messages.length;
}

/**
 * One queue's event source: `loops` poll loops, as Lambda runs up to that many batches of a queue
 * at once. Lambda long-polls; local-aws-sqs answers a long poll only once a whole batch is there,
 * so the loops receive without waiting and sleep while the queue is empty (`idleWaitMs`, the first
 * loop less than the others). Sleepers are woken by what would end a long poll: messages sent
 * (told by `arrivals`: a loop a batch of them, at once or when their delay ends), and a receive
 * that fills a whole batch, a backlog, which wakes two more loops (each of which does the same:
 * Lambda's event source adds concurrent batches while messages keep coming).
 */
export function startEventSource(
  sqs: SQSClient,
  queue: QueueName,
  queueUrl: string,
  consumer: SqsConsumer,
  loops: number,
  { idleWaitMs = IDLE_WAIT_MS, arrivals }: { idleWaitMs?: { first: number; others: number }; arrivals?: QueueArrivals } = {},
): Poller {
  let running = true;
  const sleepers = new Set<() => void>();
  /**
   * Counts the wakes: a loop whose receive found nothing polls again, instead of sleeping, when a
   * wake came while it was receiving (the message may have been sent after the emulator looked).
   */
  let wakes = 0;
  const wake = (count: number) => {
    wakes += 1;
    for (const sleeper of [...sleepers].slice(0, count)) sleeper();
  };
  const idle = (ms: number) =>
    new Promise<void>((resolve) => {
      const sleeper = () => {
        clearTimeout(timer);
        sleepers.delete(sleeper);
        resolve();
      };
      const timer = setTimeout(sleeper, ms);
      sleepers.add(sleeper);
    });
  const onReceived = (count: number) => {
    if (count >= QUEUES[queue].batchSize) wake(BACKLOG_WAKES);
  };
  /** Messages not yet visible, by the tenth of a second they become so: one timer for each. */
  const delayed = new Map<number, { timer: NodeJS.Timeout; count: number }>();
  const loopsFor = (messages: number) => Math.ceil(messages / QUEUES[queue].batchSize);
  const onArrival = (count: number, visibleAt: number) => {
    if (visibleAt <= Date.now()) return wake(loopsFor(count));
    const at = Math.ceil(visibleAt / 100) * 100;
    const pending = delayed.get(at);
    if (pending) pending.count += count;
    else {
      const timer = setTimeout(() => {
        wake(loopsFor(delayed.get(at)!.count));
        delayed.delete(at);
      }, at - Date.now());
      delayed.set(at, { timer, count });
    }
  };
  const unsubscribe = arrivals?.(onArrival);
  const loop = async (idleMs: number) => {
    while (running) {
      const wakesBefore = wakes;
      try {
        const handled = await pollOnce(sqs, queue, queueUrl, consumer, onReceived);
        if (handled === 0 && running && wakes === wakesBefore) await idle(idleMs);
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
      unsubscribe?.();
      for (const { timer } of delayed.values()) clearTimeout(timer);
      wake(loops);
      await Promise.all(all);
    },
  };
}
