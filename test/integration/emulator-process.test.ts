/**
 * The emulators in a process of their own (scratch-emulators.ts `ownProcess`, what the market
 * bench measures reads against): this process's handlers reach S3, DynamoDB and SQS there, what
 * they store is under the data directory, and stopping ends the child.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';

let dataDir: string;
let env: ScratchEmulators;
let s3: S3Client;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'emulator-process-'));
  env = await startScratchEmulators({ keepIn: dataDir, ownProcess: true });
  s3 = new S3Client({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: env.emulators.endpoints.s3, forcePathStyle: true });
});
afterAll(async () => {
  s3?.destroy();
  await env?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the emulators in their own process', () => {
  it('serve S3, DynamoDB and SQS to this process, stored under the data directory', async () => {
    // Prepare
    const { buckets, tables, queueUrls } = env.emulators.names;
    const table = tables.accounts;

    // Act
    await s3.send(new PutObjectCommand({ Bucket: buckets.archive, Key: 'probe/one', Body: 'across processes' }));
    const read = await s3.send(new GetObjectCommand({ Bucket: buckets.archive, Key: 'probe/one' }));
    await env.dynamo.send(new PutCommand({ TableName: table, Item: { pk: 'probe', sk: 'probe', value: 7 } }));
    const item = await env.dynamo.send(new GetCommand({ TableName: table, Key: { pk: 'probe', sk: 'probe' } }));
    await env.sqs.send(new SendMessageCommand({ QueueUrl: queueUrls.delivery, MessageBody: 'probe' }));
    const received = await env.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrls.delivery, WaitTimeSeconds: 0 }));

    // Assess
    expect(await read.Body!.transformToString()).toBe('across processes');
    expect(item.Item?.value).toBe(7);
    expect(received.Messages?.map((m) => m.Body)).toEqual(['probe']);
    expect(readdirSync(join(dataDir, 's3'))).toContain(buckets.archive);
    expect(() => env.emulators.arrivals(queueUrls.delivery)).toThrow(/own process/);
  });

  it('ends the child on stop, its data kept where asked', async () => {
    // Act
    await env.stop();

    // Assess: nothing answers any more; the data directory stays (keepIn).
    await expect(s3.send(new GetObjectCommand({ Bucket: env.emulators.names.buckets.archive, Key: 'probe/one' }))).rejects.toThrow();
    expect(existsSync(join(dataDir, 's3'))).toBe(true);
  });
});
