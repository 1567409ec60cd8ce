/**
 * Starts the emulators in a temporary directory (or in `keepIn`, kept after stop so a benchmark can
 * reuse what it seeded) and points this process's handlers at them (tests and benchmarks).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmulators, type Emulators } from './emulators.ts';
import { exportEnvironment } from './cloud.ts';

export interface ScratchEmulators {
  emulators: Emulators;
  sqs: SQSClient;
  dynamo: DynamoDBDocumentClient;
  stop(): Promise<void>;
}

export async function startScratchEmulators(scratch: { keepIn?: string } = {}): Promise<ScratchEmulators> {
  const dataDir = scratch.keepIn ?? mkdtempSync(join(tmpdir(), 'archive-test-'));
  const emulators = await startEmulators({ dataDir });
  exportEnvironment(emulators, dataDir, 'ERROR');
  const options = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const sqs = new SQSClient({ ...options, endpoint: emulators.endpoints.sqs, useQueueUrlAsEndpoint: false });
  const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({ ...options, endpoint: emulators.endpoints.dynamodb }));
  return {
    emulators,
    sqs,
    dynamo,
    async stop() {
      sqs.destroy();
      dynamo.destroy();
      await emulators.stop();
      if (!scratch.keepIn) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
