/**
 * Starts the emulators in a temporary directory (or in `keepIn`, kept after stop so a benchmark can
 * reuse what it seeded) and points this process's handlers at them (tests and benchmarks);
 * `ownProcess` runs them in a child process (emulator-process.ts), as the services are to a
 * function: what a read bench measures beside DuckDB is then the handler's work alone.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmulators, type Emulators } from './emulators.ts';
import { exportEnvironment } from './environment.ts';
import type { EmulatorProcessMessage } from './emulator-process.ts';

export interface ScratchEmulators {
  emulators: Emulators;
  sqs: SQSClient;
  dynamo: DynamoDBDocumentClient;
  stop(): Promise<void>;
}

/** The emulators started in a child process; `arrivals` are seen only there, so asking for them throws. */
async function emulatorsInOwnProcess(dataDir: string): Promise<Emulators> {
  const child = fork(new URL('./emulator-process.ts', import.meta.url), [], { execArgv: ['--import', 'tsx'], serialization: 'advanced', stdio: 'inherit' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<Pick<Emulators, 'endpoints' | 'names'>>((resolve, reject) => {
    child.once('message', (message: EmulatorProcessMessage) =>
      'ready' in message ? resolve(message.ready) : reject(new Error(`the emulators' process failed: ${message.failed}`)),
    );
    child.once('exit', (code) => reject(new Error(`the emulators' process exited (${code}) before it was ready`)));
    child.send({ start: { dataDir } });
  });
  return {
    ...ready,
    arrivals() {
      throw new Error("queue arrivals are seen in the emulators' own process only (start them in this one to watch queues)");
    },
    async stop() {
      if (child.connected) child.send('stop');
      await exited;
    },
  };
}

export async function startScratchEmulators(scratch: { keepIn?: string; ownProcess?: boolean } = {}): Promise<ScratchEmulators> {
  const dataDir = scratch.keepIn ?? mkdtempSync(join(tmpdir(), 'archive-test-'));
  const emulators = scratch.ownProcess ? await emulatorsInOwnProcess(dataDir) : await startEmulators({ dataDir });
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
