/**
 * The queue message catalogue. Every message a consumer accepts is listed here; anything else is a
 * batch-item failure (and so ends in the DLQ), never silently dropped.
 */
import * as v from 'valibot';
import { BATCH_FORMATS } from '../functions/core/archive/parse.ts';

/** An explicit request to ingest a raw batch stored in the archive bucket. */
export const IngestBatchMessage = v.object({
  type: v.literal('ingest.batch.v1'),
  format: v.picklist(BATCH_FORMATS),
  key: v.pipe(v.string(), v.startsWith('landing/', 'must be under landing/')),
});

/** S3's object-created notification for landing/ (the bucket's SQS destination). */
export const S3Notification = v.object({
  Records: v.array(v.object({
    eventSource: v.literal('aws:s3'),
    eventName: v.string(),
    s3: v.object({ object: v.object({ key: v.string() }) }),
  })),
});

/** The test event S3 sends once when a notification is configured. */
export const S3TestEvent = v.object({ Event: v.literal('s3:TestEvent') });

export const IngestQueueMessage = v.union([IngestBatchMessage, S3Notification, S3TestEvent]);

/**
 * One attempt of a delivery: the record says what and where. `run` and `attempt` (attempts made
 * before this one) let the engine recognise a duplicate or stale job and ignore it.
 */
export const DeliveryJobMessage = v.object({
  type: v.literal('deliver.v1'),
  account_id: v.pipe(v.string(), v.minLength(1)),
  delivery_id: v.pipe(v.string(), v.minLength(1)),
  run: v.pipe(v.number(), v.integer(), v.minValue(0)),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
export type DeliveryJobMessage = v.InferOutput<typeof DeliveryJobMessage>;
