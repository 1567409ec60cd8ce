/**
 * The composition root: AWS SDK clients and the ports built on them, created once per container on
 * first use. In the local cloud the same clients point at the in-process emulators through the
 * SDK's standard AWS_ENDPOINT_URL_* variables. Every client goes through `traced` (client-tracing.ts).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { BUCKETS, QUEUES, STATE_MACHINES, TABLES, type QueueName } from '../resources.ts';
import { dynamoAccountStore } from '../adapters/dynamodb-accounts.ts';
import { dynamoTimerStore } from '../adapters/dynamodb-timers.ts';
import { sqsDeadLetterQueues, sqsQueueSender } from '../adapters/sqs-queues.ts';
import { dynamoBreadthStore } from '../adapters/dynamodb-breadth.ts';
import { dynamoWebhookStores } from '../adapters/dynamodb-webhooks.ts';
import { dynamoCreditLedger } from '../adapters/dynamodb-usage.ts';
import { resolveAll } from '../adapters/dns-resolver.ts';
import { createHttpsSender } from '../adapters/https-sender.ts';
import { dynamoArchiveManifest } from '../adapters/dynamodb-manifest.ts';
import { dynamoIncidentStore, dynamoLatencyStore } from '../adapters/dynamodb-quality.ts';
import type { IncidentStore, LatencyStore } from '../ports/quality.ts';
import type { ArchiveManifest } from '../ports/archive.ts';
import { dynamoExportStore } from '../adapters/dynamodb-exports.ts';
import { s3ExportObjects } from '../adapters/s3-export-objects.ts';
import { sfnWorkflows } from '../adapters/sfn-workflows.ts';
import { dynamoReplayStore } from '../adapters/dynamodb-replays.ts';
import type { ReplayStore } from '../ports/replays.ts';
import { secretString } from '../adapters/secrets-manager.ts';
import { parseKeyRing, type CursorKeyRing } from '../core/cursor-seal.ts';
import type { ExportObjects, ExportStore, Workflows } from '../ports/exports.ts';
import type { CreditLedger } from '../core/billing/credits.ts';
import type { WebhookSender, WebhookStores } from '../ports/webhooks.ts';
import type { BreadthStore } from '../ports/breadth.ts';
import { systemClock } from '../ports/clock.ts';
import type { AccountStore } from '../ports/accounts.ts';
import type { TimerStore } from '../ports/timers.ts';
import type { DeadLetterQueues, QueueBatchSender } from '../ports/queues.ts';
import { ConfigError, config, requireSetting } from './config.ts';
import { traced } from './client-tracing.ts';
import type { Config } from '#schemas/config.ts';
import type { ExportExecutionInput, ReplayExecutionInput } from '#schemas/messages.ts';

/**
 * Built once per configuration: in Lambda that is once per container; the local cloud and tests
 * reset the configuration when they point the process at other emulators, which rebuilds these.
 */
export function once<T>(build: () => T): () => T {
  let built: { config: Config; value: T } | undefined;
  return () => {
    const current = config();
    if (built?.config !== current) built = { config: current, value: build() };
    return built.value;
  };
}

/**
 * The SDK's retries, per kind of function and service, in one place. Every client retries
 * throttling, 5xx answers and reset connections with jittered exponential backoff (the SDK's
 * `standard` mode: from 100 ms, from 500 ms after a throttle, doubling). S3 runs `adaptive`: after a
 * 503 `SlowDown` the client also slows its own sending, as S3 asks. Functions working off a queue,
 * a schedule or a state machine are patient (DynamoDB's throttles come in bursts; every write of
 * theirs is keyed or conditional, so retrying one that landed writes the same item again). A
 * function answering a request has API Gateway's 29 s: two retries (about 1.5 s of backoff when
 * throttled), then the client is told to come back (503 with `Retry-After`, store-errors.ts).
 */
export const RETRY_SETTINGS = {
  background: {
    dynamodb: { maxAttempts: 6, retryMode: 'standard' },
    s3: { maxAttempts: 5, retryMode: 'adaptive' },
    sqs: { maxAttempts: 5, retryMode: 'standard' },
    sfn: { maxAttempts: 4, retryMode: 'standard' },
    secrets: { maxAttempts: 3, retryMode: 'standard' },
  },
  request: {
    dynamodb: { maxAttempts: 3, retryMode: 'standard' },
    s3: { maxAttempts: 3, retryMode: 'adaptive' },
    sqs: { maxAttempts: 3, retryMode: 'standard' },
    sfn: { maxAttempts: 3, retryMode: 'standard' },
    secrets: { maxAttempts: 3, retryMode: 'standard' },
  },
} as const;

let retryProfile: keyof typeof RETRY_SETTINGS = 'background';

/** The HTTP shell (http.ts) declares its function one that answers requests, before it builds a client. */
export function answeringRequests(): void {
  retryProfile = 'request';
}

const retry = (service: keyof (typeof RETRY_SETTINGS)['background']) => RETRY_SETTINGS[retryProfile][service];

export const dynamoDocumentClient = once(() =>
  DynamoDBDocumentClient.from(traced(new DynamoDBClient({ region: config().AWS_REGION, ...retry('dynamodb') })), {
    marshallOptions: { removeUndefinedValues: true },
  }),
);

// The configured endpoint, not the queue URL's host: locally the URLs name the emulator behind
// the SQS journal, and every message must pass the journal (functions/local/sqs-journal.ts).
export const sqsClient = once(() => traced(new SQSClient({ region: config().AWS_REGION, useQueueUrlAsEndpoint: false, ...retry('sqs') })));

export const s3Client = once(() => traced(new S3Client({ region: config().AWS_REGION, forcePathStyle: config().S3_FORCE_PATH_STYLE, ...retry('s3') })));

export const accountStore = once((): AccountStore => dynamoAccountStore(dynamoDocumentClient(), requireSetting(config(), TABLES.accounts.envVar)));

export const timerStore = once((): TimerStore => dynamoTimerStore(dynamoDocumentClient(), requireSetting(config(), TABLES.timers.envVar)));

export const queueSender = once((): QueueBatchSender => sqsQueueSender(sqsClient(), (queue: QueueName) => requireSetting(config(), QUEUES[queue].envVar)));

export const deadLetterQueues = once(
  (): DeadLetterQueues => sqsDeadLetterQueues(sqsClient(), (queue: QueueName) => requireSetting(config(), QUEUES[queue].dlqEnvVar)),
);

export const breadthStore = once((): BreadthStore => dynamoBreadthStore(dynamoDocumentClient(), requireSetting(config(), TABLES.breadth.envVar)));

export const webhookStores = once((): WebhookStores => dynamoWebhookStores(dynamoDocumentClient(), requireSetting(config(), TABLES.webhooks.envVar)));

export const creditLedger = once((): CreditLedger => dynamoCreditLedger(dynamoDocumentClient(), requireSetting(config(), TABLES.usage.envVar)));

export const clock = systemClock;

/** How webhook destinations are resolved and which hosts skip the address checks (local receivers only). */
export const webhookDestinations = once(() => ({
  resolve: resolveAll,
  allowHosts: config().WEBHOOK_ALLOWED_TARGETS,
  // A developer pointing a webhook at a receiver on this machine learns which setting allows it.
  ...(config().DEPLOYMENT === 'local' && {
    allowHint: 'In the local cloud, set WEBHOOK_ALLOWED_TARGETS (e.g. 127.0.0.1) to allow a receiver on this machine.',
  }),
}));

export const webhookSender = once((): WebhookSender => {
  const timeoutS = config().WEBHOOK_ATTEMPT_TIMEOUT_S;
  return createHttpsSender({ ...webhookDestinations(), ...(timeoutS !== undefined && { timeoutMs: timeoutS * 1_000 }) });
});

export const exportStore = once((): ExportStore => dynamoExportStore(dynamoDocumentClient(), requireSetting(config(), TABLES['export-jobs'].envVar)));

export const exportObjects = once((): ExportObjects => s3ExportObjects(s3Client(), requireSetting(config(), BUCKETS.exports.envVar)));

/** Executions of the export state machine. */
export const exportWorkflows = once(
  (): Workflows<ExportExecutionInput> =>
    sfnWorkflows(traced(new SFNClient({ region: config().AWS_REGION, ...retry('sfn') })), requireSetting(config(), STATE_MACHINES.export.envVar)),
);

/** Replay jobs and their occurrences, in the webhooks table. */
export const replayStore = once((): ReplayStore => dynamoReplayStore(dynamoDocumentClient(), requireSetting(config(), TABLES.webhooks.envVar)));

/** Executions of the replay state machine. */
export const replayWorkflows = once(
  (): Workflows<ReplayExecutionInput> =>
    sfnWorkflows(traced(new SFNClient({ region: config().AWS_REGION, ...retry('sfn') })), requireSetting(config(), STATE_MACHINES.replay.envVar)),
);

/** The archive manifest alone (DynamoDB), for functions that plan from it without reading Parquet. */
export const archiveManifest = once((): ArchiveManifest => dynamoArchiveManifest(dynamoDocumentClient(), requireSetting(config(), TABLES.manifest.envVar)));

/** Data-quality incidents (written by the minute detection run, read by the data-quality routes). */
export const incidentStore = once((): IncidentStore => dynamoIncidentStore(dynamoDocumentClient(), requireSetting(config(), TABLES.quality.envVar)));

/** Per-minute REST latency histograms (written by the HTTP shell, read by the data-quality routes). */
export const latencyStore = once((): LatencyStore => dynamoLatencyStore(dynamoDocumentClient(), requireSetting(config(), TABLES.quality.envVar)));

/** A rotation reaches every container within this long (the secret is read again after it). */
const CURSOR_KEYS_REFRESH_MS = 5 * 60_000;
const secretsClient = once(() => traced(new SecretsManagerClient({ region: config().AWS_REGION, ...retry('secrets') })));
let cursorRing: { ring: Promise<CursorKeyRing>; readAt: number; config: Config } | undefined;

/** The cursor key ring: CURSOR_KEYS as configured, or the cursor-keys secret, read at most every 5 minutes. */
export function cursorKeys(): Promise<CursorKeyRing> {
  const cfg = config();
  const now = Date.now();
  if (cursorRing?.config === cfg && (cfg.CURSOR_KEYS !== undefined || now - cursorRing.readAt < CURSOR_KEYS_REFRESH_MS)) return cursorRing.ring;
  const ring =
    cfg.CURSOR_KEYS !== undefined
      ? Promise.resolve(parseKeyRing(cfg.CURSOR_KEYS))
      : cfg.CURSOR_KEYS_SECRET_ARN !== undefined
        ? secretString(secretsClient(), cfg.CURSOR_KEYS_SECRET_ARN).then(parseKeyRing)
        : Promise.reject(new ConfigError('Missing configuration: CURSOR_KEYS or CURSOR_KEYS_SECRET_ARN is not set for this function'));
  // A failed read is not kept: the next request reads again.
  ring.catch(() => {
    if (cursorRing?.ring === ring) cursorRing = undefined;
  });
  cursorRing = { ring, readAt: now, config: cfg };
  return ring;
}
