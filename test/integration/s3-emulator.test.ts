/**
 * The local S3 (s3rver) survives a write it cannot open: its own store opened the object's write
 * stream without an error listener, so a failed open (a concurrent delete removing the directory)
 * was an uncaught exception that ended the process. Here the failed write is a rejected request,
 * and an object written again is replaced whole (it was truncated in place while readers read it).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmulators, type Emulators } from '#local/emulators.ts';

let dataDir: string;
let emulators: Emulators;
let s3: S3Client;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'archive-s3-'));
  emulators = await startEmulators({ dataDir });
  s3 = new S3Client({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: emulators.endpoints.s3, forcePathStyle: true, maxAttempts: 1 });
});
afterAll(async () => {
  s3?.destroy();
  await emulators?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the local S3', () => {
  it('answers an error for an object it cannot write, and goes on serving', async () => {
    // Prepare: where the object's file would go is a directory, so opening it for writing fails.
    const bucket = emulators.names.buckets.exports;
    mkdirSync(join(dataDir, 's3', bucket, 'jobs', 'blocked._S3rver_object'), { recursive: true });
    // Act
    const blocked = s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'jobs/blocked', Body: 'x' }));
    // Assess
    await expect(blocked).rejects.toThrow();
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'jobs/fine', Body: 'still here' }));
    const read = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'jobs/fine' }));
    expect(await read.Body!.transformToString()).toBe('still here');
  });

  it('serves an object written again whole, never truncated, as S3 does', async () => {
    // Prepare: a 4 MB object, then the same key put again while it is read (a retried ingest does this).
    const bucket = emulators.names.buckets.archive;
    const body = Buffer.alloc(4 * 1024 * 1024, 7);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'again/object', Body: body }));
    // Act
    const sizes: number[] = [];
    for (let round = 0; round < 10; round++) {
      const reads = Array.from(
        { length: 4 },
        async () => (await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'again/object' }))).Body!.transformToByteArray()).length,
      );
      const [, ...read] = await Promise.all([s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'again/object', Body: body })), ...reads]);
      sizes.push(...read);
    }
    // Assess
    expect(new Set(sizes)).toEqual(new Set([body.length]));
  });
});
