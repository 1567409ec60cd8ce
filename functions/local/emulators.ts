/**
 * Starts DynamoDB (dynalite), SQS (local-aws-sqs) and S3 (s3rver) in this process and creates the
 * tables, queues (each with its DLQ) and buckets of the resource catalogue in them. DynamoDB and S3
 * keep their data under the data directory; local-aws-sqs keeps queues in memory only, behind a
 * journal (sqs-journal.ts) that sends again, at the next start, every message not yet consumed.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { createSqsServer } from 'local-aws-sqs';
import { IDLE_SOCKET_MS, startSqsJournal, type QueueArrivals, type SqsJournal } from './sqs-journal.ts';
import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  type GlobalSecondaryIndex,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { BUCKETS, QUEUES, TABLES, type QueueName, type TableName, type BucketName } from '../resources.ts';

export const LOCAL_REGION = 'us-east-1';
/** s3rver accepts only this key pair; dynalite and local-aws-sqs accept any. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface Endpoints {
  dynamodb: string;
  sqs: string;
  s3: string;
}

export interface ProvisionedNames {
  tables: Record<TableName, string>;
  queueUrls: Record<QueueName, string>;
  dlqUrls: Record<QueueName, string>;
  buckets: Record<BucketName, string>;
}

export interface Emulators {
  endpoints: Endpoints;
  names: ProvisionedNames;
  /** The messages sent to a queue (by URL), as they pass the journal in this process. */
  arrivals(queueUrl: string): QueueArrivals;
  stop(): Promise<void>;
}

function listen(server: Server, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });
}

/** Physical names: the catalogue name with a prefix, as CDK would give them a stack-derived name. */
export function physicalNames(prefix: string): Omit<ProvisionedNames, 'queueUrls' | 'dlqUrls'> & { queues: Record<QueueName, string> } {
  const map = <K extends string>(keys: K[]) => Object.fromEntries(keys.map((k) => [k, `${prefix}-${k}`])) as Record<K, string>;
  return {
    tables: map(Object.keys(TABLES) as TableName[]),
    queues: map(Object.keys(QUEUES) as QueueName[]),
    buckets: map(Object.keys(BUCKETS) as BucketName[]),
  };
}

async function createTables(client: DynamoDBClient, names: Record<TableName, string>): Promise<void> {
  for (const [name, def] of Object.entries(TABLES) as [TableName, (typeof TABLES)[TableName]][]) {
    const TableName = names[name];
    const keyAttributes = new Set([def.partitionKey, def.sortKey, ...def.globalIndexes.flatMap((g) => [g.partitionKey, g.sortKey])]);
    const indexes: GlobalSecondaryIndex[] = def.globalIndexes.map((g) => ({
      IndexName: g.name,
      KeySchema: [
        { AttributeName: g.partitionKey, KeyType: 'HASH' },
        { AttributeName: g.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: g.projection === 'keys' ? 'KEYS_ONLY' : 'ALL' },
    }));
    let existing: Set<string> | undefined;
    try {
      const { Table } = await client.send(new DescribeTableCommand({ TableName }));
      existing = new Set((Table?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName!));
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
    if (existing) {
      // A data directory from before an index was added: add it (dynalite asks for throughput even on demand).
      for (const index of indexes.filter((g) => !existing.has(g.IndexName!))) {
        await client.send(
          new UpdateTableCommand({
            TableName,
            AttributeDefinitions: [...keyAttributes].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
            GlobalSecondaryIndexUpdates: [{ Create: { ...index, ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } } }],
          }),
        );
      }
      continue;
    }
    await client.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...keyAttributes].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: def.partitionKey, KeyType: 'HASH' },
          { AttributeName: def.sortKey, KeyType: 'RANGE' },
        ],
        ...(indexes.length > 0 && { GlobalSecondaryIndexes: indexes }),
      }),
    );
  }
}

async function createQueues(client: SQSClient, names: Record<QueueName, string>) {
  const queueUrls = {} as Record<QueueName, string>;
  const dlqUrls = {} as Record<QueueName, string>;
  for (const [name, def] of Object.entries(QUEUES) as [QueueName, (typeof QUEUES)[QueueName]][]) {
    const dlq = await client.send(new CreateQueueCommand({ QueueName: `${names[name]}-dlq`, Attributes: { MessageRetentionPeriod: String(14 * 86400) } }));
    const dlqArn = (await client.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn;
    const queue = await client.send(
      new CreateQueueCommand({
        QueueName: names[name],
        Attributes: {
          VisibilityTimeout: String(def.visibilityTimeoutS),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: def.maxReceiveCount }),
        },
      }),
    );
    queueUrls[name] = queue.QueueUrl!;
    dlqUrls[name] = dlq.QueueUrl!;
  }
  return { queueUrls, dlqUrls };
}

async function createBuckets(client: S3Client, names: Record<BucketName, string>): Promise<void> {
  for (const bucket of Object.values(names)) {
    try {
      await client.send(new HeadBucketCommand({ Bucket: bucket }));
    } catch {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    }
  }
}

interface S3EventRecord {
  eventName: string;
  s3: { bucket: { name: string }; object: { key: string } };
}

/** Sends again what the last run left in its queues, with what is left of each message's delay. */
async function resendLeftOver(client: SQSClient, journal: SqsJournal, queueUrls: readonly string[]): Promise<void> {
  const byName = new Map(queueUrls.map((url) => [url.split('/').pop()!, url]));
  for (const message of journal.leftOver) {
    const QueueUrl = byName.get(message.queue);
    if (!QueueUrl) continue; // a queue the catalogue no longer has
    const DelaySeconds = Math.min(900, Math.max(0, Math.ceil((message.visibleAt - Date.now()) / 1000)));
    await client.send(new SendMessageCommand({ QueueUrl, MessageBody: message.body, DelaySeconds, MessageAttributes: message.attributes as never }));
  }
  journal.replayed();
}

/** What `writeObjectsSafely` replaces in s3rver's file store (3.7.1, lib/stores/filesystem.js). */
interface FilesystemStore {
  getResourcePath(bucket: string, key: string, resource: 'object'): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(object: { bucket: string; key: string; metadata: unknown; content: Buffer | Readable }): Promise<{ size: number; md5: string }>;
}

/**
 * s3rver writes an object in place through a write stream it gives no 'error' listener: when a
 * concurrent delete of the directory's last object removes the (empty) directory between its mkdir
 * and the open, the ENOENT is an uncaught exception that ends the process (an export cancelled
 * while its partitions upload did it), and a GET while the same key is written again reads a
 * truncated (even empty) object, which the archive's file cache then kept under the object's ETag.
 * The same write through `pipeline`, whose errors reject (s3rver answers a 500 and the SDK sends
 * the object again), into a file renamed into place.
 */
function writeObjectsSafely(store: FilesystemStore): void {
  store.putObject = async (object) => {
    const path = store.getResourcePath(object.bucket, object.key, 'object');
    const md5 = createHash('md5');
    let size = 0;
    await mkdir(dirname(path), { recursive: true });
    // Written beside and renamed into place: a reader of an object being written again (a retried
    // ingest re-puts the same key) sees the old bytes or the new, as on S3, never a truncated file.
    const partial = `${path}.${randomUUID()}.part`;
    try {
      await pipeline(
        Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content,
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            md5.update(chunk);
            size += chunk.length;
            done(null, chunk);
          },
        }),
        createWriteStream(partial),
      );
      await rename(partial, path);
    } finally {
      await rm(partial, { force: true });
    }
    const digest = md5.digest('hex');
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  };
}

/** S3 -> SQS object-created notifications, as the catalogue declares them (s3rver emits the events). */
function forwardBucketNotifications(s3rver: S3rver, buckets: Record<BucketName, string>, queueUrls: Record<QueueName, string>, sqs: SQSClient): void {
  // S3rver is a Koa application (an EventEmitter); its typings leave that out.
  (s3rver as unknown as NodeJS.EventEmitter).on('event', (event: { Records: S3EventRecord[] }) => {
    for (const record of event.Records) {
      if (!record.eventName.startsWith('ObjectCreated')) continue;
      for (const [name, def] of Object.entries(BUCKETS) as [BucketName, (typeof BUCKETS)[BucketName]][]) {
        if (buckets[name] !== record.s3.bucket.name) continue;
        for (const { prefix, queue } of def.notifications) {
          if (!record.s3.object.key.startsWith(prefix)) continue;
          const body = JSON.stringify({ Records: [{ ...record, eventSource: 'aws:s3' }] });
          sqs
            .send(new SendMessageCommand({ QueueUrl: queueUrls[queue], MessageBody: body }))
            .catch((error: unknown) => console.error('[s3] notification to SQS failed:', error));
        }
      }
    }
  });
}

export interface EmulatorOptions {
  dataDir: string;
  /** 0 picks free ports (tests); fixed ports let CLI tools find a running local cloud. */
  ports?: Partial<Record<keyof Endpoints, number>>;
  prefix?: string;
}

export async function startEmulators(options: EmulatorOptions): Promise<Emulators> {
  const dynamoDir = join(options.dataDir, 'dynamodb');
  const s3Dir = join(options.dataDir, 's3');
  mkdirSync(dynamoDir, { recursive: true });
  mkdirSync(s3Dir, { recursive: true });

  const dynamoServer: Server = dynalite({ path: dynamoDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  // As the journal's: closing an idle keep-alive socket after Node's 5 s races a request the SDK
  // sends on it just then, which fails with ECONNRESET (seen killing a 30-day x 300-market bench).
  dynamoServer.keepAliveTimeout = IDLE_SOCKET_MS;
  const dynamodb = await listen(dynamoServer, options.ports?.dynamodb ?? 0);
  const sqsServer = await createSqsServer({ port: 0, hostname: '127.0.0.1', region: LOCAL_REGION, emulateQueueCreationLifecycle: false });
  // Everyone reaches SQS through the journal, so queued messages outlive a crash (sqs-journal.ts).
  const journal = await startSqsJournal(
    `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`,
    join(options.dataDir, 'sqs-journal.jsonl'),
    options.ports?.sqs,
  );
  const sqs = journal.endpoint;
  const s3rver = new S3rver({ port: options.ports?.s3 ?? 0, address: '127.0.0.1', silent: true, directory: s3Dir });
  writeObjectsSafely((s3rver as unknown as { store: FilesystemStore }).store);
  const s3Address = await s3rver.run();
  (s3rver as unknown as { httpServer: Server }).httpServer.keepAliveTimeout = IDLE_SOCKET_MS;
  const s3 = `http://127.0.0.1:${s3Address.port}`;

  const names = physicalNames(options.prefix ?? 'local');
  const clientOptions = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const dynamoClient = new DynamoDBClient({ ...clientOptions, endpoint: dynamodb });
  const sqsClient = new SQSClient({ ...clientOptions, endpoint: sqs, useQueueUrlAsEndpoint: false });
  const s3Client = new S3Client({ ...clientOptions, endpoint: s3, forcePathStyle: true });
  await createTables(dynamoClient, names.tables);
  const { queueUrls, dlqUrls } = await createQueues(sqsClient, names.queues);
  await resendLeftOver(sqsClient, journal, [...Object.values(queueUrls), ...Object.values(dlqUrls)]);
  await createBuckets(s3Client, names.buckets);
  for (const client of [dynamoClient, s3Client]) client.destroy();
  forwardBucketNotifications(s3rver, names.buckets, queueUrls, sqsClient);

  return {
    endpoints: { dynamodb, sqs, s3 },
    names: { tables: names.tables, queueUrls, dlqUrls, buckets: names.buckets },
    arrivals: journal.arrivals,
    async stop() {
      sqsClient.destroy();
      await journal.stop();
      await Promise.all([close(dynamoServer), close(sqsServer), s3rver.close()]);
    },
  };
}
