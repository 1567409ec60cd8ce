import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { sqsConsumer } from '#shared/queue.ts';
import { toSqsEvent } from '#local/poller.ts';
import { DeliveryJobMessage } from '#schemas/messages.ts';
import { lambdaContext } from '../helpers/events.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';

const QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:delivery';

let env: ScratchEmulators;
let dlqUrl: string;
let messages = 0;

beforeAll(async () => {
  env = await startScratchEmulators();
  dlqUrl = env.emulators.names.dlqUrls.delivery;
});
afterAll(async () => {
  await env?.stop();
});
beforeEach(async () => {
  await drainDlq();
});

/** Receives and deletes everything in the delivery DLQ, returning what it held. */
async function drainDlq(): Promise<Message[]> {
  const drained: Message[] = [];
  for (;;) {
    const { Messages = [] } = await env.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: dlqUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) return drained;
    drained.push(...Messages);
    await env.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: dlqUrl,
        Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
      }),
    );
  }
}

function message(body: string, receiveCount = 1): Message {
  messages += 1;
  return {
    MessageId: `msg-${messages}`,
    ReceiptHandle: `receipt-${messages}`,
    Body: body,
    Attributes: { ApproximateReceiveCount: String(receiveCount) },
  };
}

function job(deliveryId: string): string {
  return JSON.stringify({ type: 'deliver.v1', account_id: 'acct-1', delivery_id: deliveryId, run: 1, attempt: 0 });
}

function attribute(m: Message, name: string): string | undefined {
  return m.MessageAttributes?.[name]?.StringValue;
}

describe('sqsConsumer', () => {
  it('returns no batch item failures and parks nothing when a valid message is handled', async () => {
    // Prepare
    const handled: DeliveryJobMessage[] = [];
    const handler = sqsConsumer('delivery', DeliveryJobMessage, async (m) => {
      handled.push(m);
    });
    const event = toSqsEvent([message(job('d-ok'))], QUEUE_ARN);
    // Act
    const response = await handler(event, lambdaContext);
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(handled).toEqual([{ type: 'deliver.v1', account_id: 'acct-1', delivery_id: 'd-ok', run: 1, attempt: 0 }]);
    await expect(drainDlq()).resolves.toEqual([]);
  });

  it('parks a body that is not JSON in the DLQ with the reason and reports it as a success', async () => {
    // Prepare
    let calls = 0;
    const handler = sqsConsumer('delivery', DeliveryJobMessage, async () => {
      calls += 1;
    });
    const body = 'not json {';
    const record = message(body);
    // Act
    const response = await handler(toSqsEvent([record], QUEUE_ARN), lambdaContext);
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(calls).toBe(0);
    const parked = await drainDlq();
    expect(parked).toHaveLength(1);
    expect(parked[0]!.Body).toBe(body);
    expect(attribute(parked[0]!, 'failure_reason')).toContain('invalid message');
    expect(attribute(parked[0]!, 'failure_reason')).toContain('not JSON');
    expect(attribute(parked[0]!, 'source_queue')).toBe('delivery');
    expect(attribute(parked[0]!, 'source_message_id')).toBe(record.MessageId);
  });

  it('parks a JSON body failing the schema in the DLQ naming the failing field and reports it as a success', async () => {
    // Prepare
    let calls = 0;
    const handler = sqsConsumer('delivery', DeliveryJobMessage, async () => {
      calls += 1;
    });
    const body = JSON.stringify({ type: 'deliver.v1', account_id: 'acct-1', delivery_id: 'd-bad', run: 'one', attempt: 0 });
    // Act
    const response = await handler(toSqsEvent([message(body)], QUEUE_ARN), lambdaContext);
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(calls).toBe(0);
    const parked = await drainDlq();
    expect(parked).toHaveLength(1);
    expect(parked[0]!.Body).toBe(body);
    expect(attribute(parked[0]!, 'failure_reason')).toMatch(/^invalid message: run /);
    expect(attribute(parked[0]!, 'source_queue')).toBe('delivery');
  });

  it('returns only the failing record in batchItemFailures and parks nothing when the handler throws on the first receive', async () => {
    // Prepare
    const handled: string[] = [];
    const handler = sqsConsumer('delivery', DeliveryJobMessage, async (m) => {
      if (m.delivery_id === 'd-fail') throw new Error('receiver returned 503');
      handled.push(m.delivery_id);
    });
    const failing = message(job('d-fail'), 1);
    const records = [message(job('d-a')), failing, message(job('d-b'))];
    // Act
    const response = await handler(toSqsEvent(records, QUEUE_ARN), lambdaContext);
    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: failing.MessageId }]);
    expect(handled.sort()).toEqual(['d-a', 'd-b']);
    await expect(drainDlq()).resolves.toEqual([]);
  });

  it('parks a message in the DLQ and reports it as a success when the handler throws on the last receive', async () => {
    // Prepare
    const seen: SQSRecord[] = [];
    const handler = sqsConsumer('delivery', DeliveryJobMessage, async (_m, record) => {
      seen.push(record);
      throw new Error('receiver returned 503');
    });
    const body = job('d-last');
    const record = message(body, 5);
    // Act
    const response = await handler(toSqsEvent([record], QUEUE_ARN), lambdaContext);
    // Assess
    expect(seen).toHaveLength(1);
    expect(response.batchItemFailures).toEqual([]);
    const parked = await drainDlq();
    expect(parked).toHaveLength(1);
    expect(parked[0]!.Body).toBe(body);
    expect(attribute(parked[0]!, 'failure_reason')).toContain('failed 5 times');
    expect(attribute(parked[0]!, 'failure_reason')).toContain('receiver returned 503');
    expect(attribute(parked[0]!, 'source_queue')).toBe('delivery');
    expect(attribute(parked[0]!, 'receive_count')).toBe('5');
  });
});
