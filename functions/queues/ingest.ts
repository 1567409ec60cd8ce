/** SQS consumer of the ingest queue: each message names raw batches under landing/ (see schemas/messages.ts). */
import { gunzipSync } from 'node:zlib';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { ingestBatch } from '../core/archive/ingest.ts';
import { landingAtOf } from '../core/archive/layout.ts';
import { BATCH_FORMATS, IngestQueueMessage, type BatchFormat } from '#schemas/messages.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { accountStore, clock, once, queueSender, webhookStores } from '../shared/deps.ts';
import { createRuleBook } from '../core/detect/dispatch.ts';
import { detectInBatch } from '../core/detect/batch-run.ts';
import { archiveReferences } from '../core/detect/archive-references.ts';
import { logger, metrics } from '../shared/powertools.ts';
import { sqsConsumer } from '../shared/queue.ts';

/** Rules are re-read every 10 s: a new or changed rule takes effect within that. */
const RULES_TTL_MS = 10_000;

const detectDeps = once(() => ({
  store: webhookStores(),
  queues: queueSender(),
  clock,
  rules: createRuleBook({ store: webhookStores(), accounts: accountStore(), clock, ttlMs: RULES_TTL_MS }),
  references: archiveReferences(archiveDeps()),
}));

/** landing/<format>/<day>/[at=<ms>/]<name>: the format is the second segment. */
function formatOfKey(key: string): BatchFormat | undefined {
  const format = key.split('/')[1];
  return (BATCH_FORMATS as readonly string[]).includes(format ?? '') ? (format as BatchFormat) : undefined;
}

async function ingestKey(key: string, format: BatchFormat | undefined): Promise<void> {
  if (!format) throw new Error(`Cannot tell the batch format of ${key}: expected landing/<${BATCH_FORMATS.join('|')}>/…`);
  const deps = archiveDeps();
  const stored = await deps.objects.getBytes(key);
  // Raw batches may be gzipped (`.gz`); the batch id is taken over the decompressed bytes.
  const bytes = key.endsWith('.gz') ? gunzipSync(stored) : stored;
  let newest = -Infinity;
  const result = await ingestBatch(
    deps,
    format,
    bytes,
    async (records) => {
      for (const record of records) newest = Math.max(newest, record.ts);
      const counts = await detectInBatch(detectDeps(), records);
      if (counts.matched > 0) logger.info('occurrences dispatched', { key, ...counts });
      metrics.addMetric('OccurrencesMatched', MetricUnit.Count, counts.matched);
    },
    { at: landingAtOf(key) },
  );
  if (result.status === 'rejected') {
    logger.error('batch rejected', { key, batch_id: result.batchId, reason: result.reason });
    metrics.addMetric('BatchesRejected', MetricUnit.Count, 1);
    // Failing the record keeps it on the queue; on its last receive it is parked in the DLQ with this reason.
    throw new Error(`Batch ${key} rejected: ${result.reason}`);
  }
  if (result.status === 'ingested') {
    metrics.addMetric('RecordsIngested', MetricUnit.Count, result.records);
    // Event time of the batch's newest record to readable (its deltas and manifest entries written).
    if (newest > -Infinity) metrics.addMetric('IngestLag', MetricUnit.Milliseconds, Math.max(0, clock.now() - newest));
  }
  logger.info('batch processed', { key, ...result });
}

export const handler = sqsConsumer('ingest', IngestQueueMessage, async (message) => {
  if ('Event' in message) return; // S3's test event when the notification is created
  if ('type' in message) return ingestKey(message.key, message.format);
  for (const entry of message.Records) {
    // S3 notifications URL-encode keys (spaces as '+').
    const key = decodeURIComponent(entry.s3.object.key.replace(/\+/g, ' '));
    await ingestKey(key, formatOfKey(key));
  }
});
