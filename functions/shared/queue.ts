/**
 * The shared shell of SQS consumers: Powertools batch processing with partial batch failures (one
 * bad message fails alone; the rest of the batch is deleted), typed messages, and poison handling.
 *
 * A message that does not parse against the queue's schema will never succeed, so it goes to the
 * queue's DLQ at once. A message whose handling keeps failing goes there on its last receive. Either
 * way the consumer parks it itself, with the reason as message attributes, instead of leaving it to
 * SQS's redrive (which moves messages without saying why); the redrive stays as the fallback when
 * parking fails.
 */
import middy from '@middy/core';
import * as v from 'valibot';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { QUEUES, type QueueName } from '../resources.ts';
import { deadLetterQueues } from './deps.ts';
import { logger, metrics, publishMetrics } from './powertools.ts';

function parseBody<S extends v.GenericSchema>(schema: S, body: string): { ok: true; message: v.InferOutput<S> } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'invalid message: the body is not JSON' };
  }
  const parsed = v.safeParse(schema, json);
  if (parsed.success) return { ok: true, message: parsed.output };
  return { ok: false, reason: `invalid message: ${parsed.issues.map((i) => `${v.getDotPath(i) ?? '(message)'} ${i.message}`).join('; ')}` };
}

async function park(queue: QueueName, record: SQSRecord, reason: string): Promise<void> {
  await deadLetterQueues().park(queue, {
    body: record.body,
    reason,
    messageId: record.messageId,
    receiveCount: record.attributes.ApproximateReceiveCount ?? '1',
  });
  logger.error('message parked in the dead-letter queue', { queue, message_id: record.messageId, reason });
  metrics.addMetric('MessagesDeadLettered', MetricUnit.Count, 1);
}

export function sqsConsumer<S extends v.GenericSchema>(
  queue: QueueName,
  schema: S,
  handleMessage: (message: v.InferOutput<S>, record: SQSRecord) => Promise<void>,
) {
  const handleRecord = async (record: SQSRecord): Promise<void> => {
    const parsed = parseBody(schema, record.body);
    if (!parsed.ok) return park(queue, record, parsed.reason);
    try {
      await handleMessage(parsed.message, record);
    } catch (error) {
      const lastReceive = Number(record.attributes.ApproximateReceiveCount ?? '1') >= QUEUES[queue].maxReceiveCount;
      if (!lastReceive) throw error;
      await park(queue, record, `failed ${QUEUES[queue].maxReceiveCount} times; last error: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  // A processor per invocation: it keeps the batch's failures as state, and the local cloud may run
  // two invocations of one handler module at once (Lambda never does within a container).
  const handle = (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processPartialResponse(event, handleRecord, new BatchProcessor(EventType.SQS), { context, processInParallel: true });
  return middy(handle)
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(publishMetrics());
}
