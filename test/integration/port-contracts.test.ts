/**
 * The port contracts (test/contracts/*.ts) on the real adapters over one set of emulators (dynalite,
 * s3rver, the SQS emulator), and on the in-memory doubles the unit tests use. The webhook stores'
 * contracts run in webhook-stores.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import {
  accountStore,
  archiveManifest,
  breadthStore,
  creditLedger,
  deadLetterQueues,
  exportObjects,
  exportStore,
  incidentStore,
  latencyStore,
  queueSender,
  replayStore,
  s3Client,
  timerStore,
  dynamoDocumentClient,
} from '#shared/deps.ts';
import { s3ObjectStore } from '#adapters/s3-objects.ts';
import { fileCache } from '#adapters/file-cache.ts';
import type { QueueName } from '#functions/resources.ts';
import type { LocalFiles } from '#ports/sql.ts';
import { archiveManifestContract, objectStoreContract } from '../contracts/archive.ts';
import { localFilesContract } from '../contracts/local-files.ts';
import { accountStoreContract, creditLedgerContract } from '../contracts/accounts.ts';
import { breadthStoreContract } from '../contracts/breadth.ts';
import { exportObjectsContract, exportStoreContract } from '../contracts/exports.ts';
import { incidentStoreContract, latencyStoreContract } from '../contracts/quality.ts';
import { deadLetterQueuesContract, queueSenderContract, type Received } from '../contracts/queues.ts';
import { replayStoreContract } from '../contracts/replays.ts';
import { timerStoreContract } from '../contracts/timers.ts';
import { memoryTimers } from '../helpers/memory-timers.ts';
import { answersLost } from '../helpers/answers-lost.ts';
import { dynamoCreditLedger } from '#adapters/dynamodb-usage.ts';
import { config, requireSetting } from '#shared/config.ts';
import { TABLES } from '#functions/resources.ts';

let env: ScratchEmulators;
let cacheDir: string;
beforeAll(async () => {
  env = await startScratchEmulators();
  cacheDir = mkdtempSync(join(tmpdir(), 'contract-cache-'));
});
afterAll(async () => {
  await env?.stop();
  rmSync(cacheDir, { recursive: true, force: true });
});

const CACHE_BYTES = 30_000;
const archiveObjects = () => s3ObjectStore(s3Client(), env.emulators.names.buckets.archive);
/** One cache for the suite, as a container keeps one. */
let cache: LocalFiles | undefined;
const localFiles = () => (cache ??= fileCache(archiveObjects(), cacheDir, CACHE_BYTES));

/** Every message visible now on the queue, each deleted once read. */
async function drain(queueUrl: string): Promise<Received[]> {
  const out: Received[] = [];
  for (;;) {
    const { Messages = [] } = await env.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageAttributeNames: ['All'] }),
    );
    if (Messages.length === 0) return out;
    for (const m of Messages) {
      const attributes = m.MessageAttributes ?? {};
      out.push({
        body: m.Body ?? '',
        ...(attributes.failure_reason?.StringValue !== undefined && { reason: attributes.failure_reason.StringValue }),
        ...(attributes.source_queue?.StringValue !== undefined && { sourceQueue: attributes.source_queue.StringValue }),
      });
      await env.sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
    }
  }
}

describe('on the AWS adapters, over the emulators', () => {
  archiveManifestContract(() => archiveManifest());
  objectStoreContract(archiveObjects);
  localFilesContract(localFiles, archiveObjects, CACHE_BYTES);
  queueSenderContract(
    () => queueSender(),
    (queue: QueueName) => drain(env.emulators.names.queueUrls[queue]),
  );
  deadLetterQueuesContract(
    () => deadLetterQueues(),
    (queue: QueueName) => drain(env.emulators.names.dlqUrls[queue]),
  );
  timerStoreContract(() => timerStore());
  breadthStoreContract(() => breadthStore());
  incidentStoreContract(() => incidentStore());
  latencyStoreContract(() => latencyStore());
  exportStoreContract(() => exportStore());
  exportObjectsContract(() => exportObjects());
  replayStoreContract(() => replayStore());
  accountStoreContract(() => accountStore());
  creditLedgerContract(
    () => creditLedger(),
    () => dynamoCreditLedger(answersLost(dynamoDocumentClient()), requireSetting(config(), TABLES.usage.envVar)),
  );
});

describe('on the in-memory doubles', () => {
  const timers = memoryTimers();
  timerStoreContract(() => timers);
});
