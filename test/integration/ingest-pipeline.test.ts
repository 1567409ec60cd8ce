import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { SQSBatchResponse } from 'aws-lambda';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';
import { invoke } from '#local/invoke.ts';
import { toSqsEvent } from '#local/poller.ts';
import { readWindow } from '#core/archive/read-pages.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { startTestCloud } from '../helpers/local-cloud.ts';
import { eventually } from '../helpers/api.ts';
import { jsonl, T0, trade, trades } from '../helpers/records.ts';

let cloud: Awaited<ReturnType<typeof startTestCloud>>;
let s3: S3Client;
beforeAll(async () => {
  cloud = await startTestCloud();
  s3 = new S3Client({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: cloud.emulators.endpoints.s3, forcePathStyle: true });
});
afterAll(async () => {
  s3?.destroy();
  await cloud?.stop();
});

describe('the ingest pipeline in the local cloud', () => {
  it('ingests an object dropped under landing/ through the S3 notification, the queue and the ingest function', async () => {
    // Act
    await s3.send(
      new PutObjectCommand({
        Bucket: cloud.emulators.names.buckets.archive,
        Key: 'landing/normalized/2026-11-18/batch-1.jsonl',
        Body: jsonl(trades(7, T0, 1, 'HYPE')),
      }),
    );
    // Assess
    const read = () => readWindow(archiveDeps(), { dataset: 'trades', family: 'perpx', symbol: 'HYPE', from: T0, to: T0 + 60_000, limit: 100 });
    const { rows } = await eventually(read, (r) => r.rows.length === 7);
    expect(rows.map((r) => r.trade_id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('fails the record of a malformed batch so the queue retries it, parks an unknown message in the DLQ with its reason, and keeps the other records', async () => {
    // Prepare
    const bucket = cloud.emulators.names.buckets.archive;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'landing/normalized/2026-11-18/bad.jsonl', Body: '{"dataset":"trades"}\n' }));
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'landing/normalized/2026-11-18/good.jsonl', Body: jsonl([trade({ ts: T0, trade_id: 42, symbol: 'OP' })]) }),
    );
    const message = (key: string) => ({ MessageId: key, ReceiptHandle: key, Body: JSON.stringify({ type: 'ingest.batch.v1', format: 'normalized', key }) });
    // Act
    const response = (await invoke(
      'ingest',
      toSqsEvent(
        [
          message('landing/normalized/2026-11-18/bad.jsonl'),
          message('landing/normalized/2026-11-18/good.jsonl'),
          { MessageId: 'unknown', ReceiptHandle: 'x', Body: '{"type":"something.else"}' },
        ],
        'arn:aws:sqs:us-east-1:000000000000:ingest',
      ),
    )) as SQSBatchResponse;
    // Assess
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['landing/normalized/2026-11-18/bad.jsonl']);
    const parked = await cloud.sqs.send(new ReceiveMessageCommand({ QueueUrl: cloud.emulators.names.dlqUrls.ingest, MessageAttributeNames: ['All'] }));
    expect(parked.Messages?.map((m) => [m.Body, m.MessageAttributes?.failure_reason?.StringValue])).toEqual([
      ['{"type":"something.else"}', expect.stringMatching(/^invalid message/)],
    ]);
    const { rows } = await readWindow(archiveDeps(), { dataset: 'trades', family: 'perpx', symbol: 'OP', from: T0, to: T0 + 1000, limit: 10 });
    expect(rows.map((r) => r.trade_id)).toEqual([42]);
  });
});
