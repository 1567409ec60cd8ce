/**
 * The resource catalogue: every table, queue, bucket, function, schedule and state machine the
 * service owns, as plain data. The CDK app (lib/) and the local cloud (functions/local/) both build
 * from this one list, so what runs locally is what deploys. No CDK or SDK imports here.
 */

export type TableName = 'accounts' | 'usage' | 'webhooks' | 'timers' | 'manifest' | 'breadth' | 'export-jobs' | 'quality';
export const QUEUE_NAMES = ['delivery', 'delivery-slow', 'ingest', 'events'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];
export type BucketName = 'archive' | 'exports';

export interface TableDef {
  /** Environment variable that carries the physical table name to the functions bound to it. */
  envVar: string;
  partitionKey: string;
  sortKey: string;
  /** Attribute holding an epoch-seconds expiry; DynamoDB TTL deletes the item after it. */
  ttlAttribute: string;
  /** `keys`: the index holds only the table's and its own keys (readers fetch the item); default all attributes. */
  globalIndexes: readonly { name: string; partitionKey: string; sortKey: string; projection?: 'keys' }[];
}

export const TABLES: Readonly<Record<TableName, TableDef>> = {
  // API keys (stored as SHA-256 hashes) and the accounts they resolve to.
  accounts: { envVar: 'TABLE_ACCOUNTS', partitionKey: 'pk', sortKey: 'sk', ttlAttribute: 'expires_at', globalIndexes: [] },
  // Credits used per account and month; kept apart so data routes can debit without touching keys.
  usage: { envVar: 'TABLE_USAGE', partitionKey: 'pk', sortKey: 'sk', ttlAttribute: 'expires_at', globalIndexes: [] },
  // Webhook endpoints, subscriptions, watched addresses and the delivery log; gsi2 lists the
  // deliveries still owed an attempt by when it is due (sparse, keys only), for the overdue sweep.
  webhooks: {
    envVar: 'TABLE_WEBHOOKS',
    partitionKey: 'pk',
    sortKey: 'sk',
    ttlAttribute: 'expires_at',
    globalIndexes: [
      { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
      { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'keys' },
    ],
  },
  // Messages waiting longer than SQS can delay them (over 15 minutes), bucketed by due minute.
  timers: { envVar: 'TABLE_TIMERS', partitionKey: 'pk', sortKey: 'sk', ttlAttribute: 'expires_at', globalIndexes: [] },
  // Breadth snapshots, one item per family and minute.
  breadth: { envVar: 'TABLE_BREADTH', partitionKey: 'pk', sortKey: 'sk', ttlAttribute: 'expires_at', globalIndexes: [] },
  // The archive manifest: every Parquet object with its time range, rows, size and ETag.
  manifest: {
    envVar: 'TABLE_MANIFEST',
    partitionKey: 'pk',
    sortKey: 'sk',
    ttlAttribute: 'expires_at',
    globalIndexes: [{ name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
  },
  // Bulk export jobs, their partition lists, written files and Idempotency-Key claims.
  'export-jobs': { envVar: 'TABLE_EXPORT_JOBS', partitionKey: 'pk', sortKey: 'sk', ttlAttribute: 'expires_at', globalIndexes: [] },
  // Data-quality incidents (opened and resolved by the minute detectors) and per-minute REST latency histograms.
  quality: {
    envVar: 'TABLE_QUALITY',
    partitionKey: 'pk',
    sortKey: 'sk',
    ttlAttribute: 'expires_at',
    globalIndexes: [{ name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
  },
};

export interface QueueDef {
  envVar: string;
  /** Carries the dead-letter queue's URL to the consumer, which parks poison messages there with a reason. */
  dlqEnvVar: string;
  /** Must exceed the consumer's timeout so a message is not redelivered while still in flight. */
  visibilityTimeoutS: number;
  /** Receives before a message is moved to the queue's dead-letter queue. */
  maxReceiveCount: number;
  batchSize: number;
  /** Most batches the consumer works on at once (the event source's maximum concurrency; locally, as many poll loops). */
  maxConcurrency: number;
}

export const QUEUES: Readonly<Record<QueueName, QueueDef>> = {
  delivery: {
    envVar: 'QUEUE_DELIVERY_URL',
    dlqEnvVar: 'QUEUE_DELIVERY_DLQ_URL',
    visibilityTimeoutS: 90,
    maxReceiveCount: 5,
    batchSize: 10,
    maxConcurrency: 50,
  },
  // The slow lane: attempts to endpoints that hung or answered slowly, so they never hold up the others'.
  'delivery-slow': {
    envVar: 'QUEUE_DELIVERY_SLOW_URL',
    dlqEnvVar: 'QUEUE_DELIVERY_SLOW_DLQ_URL',
    visibilityTimeoutS: 90,
    maxReceiveCount: 5,
    batchSize: 10,
    maxConcurrency: 20,
  },
  // Events about one account (credit levels reached, export jobs done), turned into deliveries by `notify`.
  events: { envVar: 'QUEUE_EVENTS_URL', dlqEnvVar: 'QUEUE_EVENTS_DLQ_URL', visibilityTimeoutS: 60, maxReceiveCount: 5, batchSize: 10, maxConcurrency: 2 },
  ingest: { envVar: 'QUEUE_INGEST_URL', dlqEnvVar: 'QUEUE_INGEST_DLQ_URL', visibilityTimeoutS: 360, maxReceiveCount: 3, batchSize: 1, maxConcurrency: 2 },
};

export interface BucketDef {
  envVar: string;
  /** Object-created notifications under `prefix` go to `queue` (S3 -> SQS). */
  notifications: readonly { prefix: string; queue: QueueName }[];
  /** Objects are deleted this many days after they are written (a lifecycle rule). */
  expireAfterDays?: number;
}

export const BUCKETS: Readonly<Record<BucketName, BucketDef>> = {
  // Raw batches dropped under landing/ are ingested; archive/ holds the Parquet datasets.
  archive: { envVar: 'BUCKET_ARCHIVE', notifications: [{ prefix: 'landing/', queue: 'ingest' }] },
  // Bulk export files, downloadable through pre-signed links until they expire (EXPORT_RETENTION_DAYS).
  exports: { envVar: 'BUCKET_EXPORTS', notifications: [], expireAfterDays: 7 },
};

export type Access = 'read' | 'write' | 'readwrite';

/**
 * The flow a function belongs to (ARCHITECTURE.md, "The flows"); each flow deploys as a stack of its
 * own, with the state machines its functions are tasks of and the schedules that start them.
 */
export type Flow = 'query' | 'ingest' | 'deliver' | 'jobs';

export interface FunctionDef {
  /** Source file, relative to the repository root, exporting `handler`. */
  entry: string;
  flow: Flow;
  description: string;
  memoryMb: number;
  timeoutS: number;
  /** Bundles the DuckDB native module for the target architecture. */
  duckdb?: boolean;
  /** Installed packages whose files the function reads at run time (copied beside the bundle from node_modules). */
  assets?: readonly string[];
  tables?: Partial<Record<TableName, Access>>;
  /** `send` lets the function enqueue; a queue's consumer is declared in `consumes`. */
  queues?: Partial<Record<QueueName, 'send'>>;
  buckets?: Partial<Record<BucketName, Access>>;
  /** The queue whose messages invoke this function (SQS event source, partial batch failures). */
  consumes?: QueueName;
  /** State machines whose executions this function starts and stops. */
  stateMachines?: Partial<Record<StateMachineName, 'start'>>;
}

export type FunctionName =
  | 'authorizer'
  | 'system'
  | 'market'
  | 'derivatives'
  | 'orderbook'
  | 'breadth-api'
  | 'webhooks'
  | 'webhook-preview'
  | 'breadth'
  | 'timer-sweep'
  | 'ingest'
  | 'compact'
  | 'deliver'
  | 'detect'
  | 'notify'
  | 'positions'
  | 'positions-build'
  | 'exports'
  | 'export-partition'
  | 'export-finish'
  | 'delivery-sweep'
  | 'deliver-slow'
  | 'data-quality'
  | 'replay-partition'
  | 'replay-finish';

/** The API reference page's renderer (an installed file the system function serves). */
export const REDOC_BUNDLE = 'redoc/bundles/redoc.standalone.js';

/** A route group answering from the archive with DuckDB, debiting credits as it answers. */
const ARCHIVE_READER = {
  flow: 'query',
  // 1,769 MB is one full vCPU; DuckDB and the file cache want both memory and CPU.
  memoryMb: 1769,
  timeoutS: 29,
  duckdb: true,
  tables: { manifest: 'read', usage: 'readwrite', quality: 'write' },
  queues: { events: 'send' },
  buckets: { archive: 'read' },
} satisfies Omit<FunctionDef, 'entry' | 'description'>;

/** A consumer of a delivery lane; either lane may move a job to the other. */
const DELIVERY_LANE = {
  flow: 'deliver',
  memoryMb: 512,
  // A batch of 10 is sent concurrently, each within the 10 s budget.
  timeoutS: 30,
  tables: { webhooks: 'readwrite', timers: 'readwrite' },
  queues: { delivery: 'send', 'delivery-slow': 'send' },
} satisfies Omit<FunctionDef, 'entry' | 'description'>;

export const FUNCTIONS: Readonly<Record<FunctionName, FunctionDef>> = {
  authorizer: {
    entry: 'functions/http/authorizer.ts',
    flow: 'query',
    description: 'Resolves X-API-Key to an account and plan (REQUEST authorizer)',
    memoryMb: 256,
    timeoutS: 5,
    tables: { accounts: 'read' },
  },
  system: {
    entry: 'functions/http/system.ts',
    flow: 'query',
    description: 'Health, the OpenAPI document, the API reference page and the public catalogue (capabilities, symbols, stats, coverage status)',
    // The public catalogue builds the same 30-day coverage as the data-quality routes (a manifest
    // query per family, dataset and day when its 5-minute cache is cold): the same memory and budget.
    memoryMb: 1024,
    timeoutS: 29,
    // The catalogue reads the manifest and the open incidents; every HTTP function writes its latency minutes to the quality table.
    tables: { manifest: 'read', quality: 'readwrite' },
    assets: [REDOC_BUNDLE],
  },
  market: {
    entry: 'functions/http/market.ts',
    description: 'Trades, candles, trigger orders, order flow and instruments over the archive',
    ...ARCHIVE_READER,
  },
  derivatives: {
    entry: 'functions/http/derivatives.ts',
    description: 'Open interest and funding over the archive: history, bucketed samples and the current value',
    ...ARCHIVE_READER,
  },
  orderbook: {
    entry: 'functions/http/orderbook.ts',
    description: 'Order books over the archive: native snapshots, order-level (L4) books rebuilt from checkpoints and diffs, full-depth L2',
    ...ARCHIVE_READER,
  },
  positions: {
    entry: 'functions/http/positions.ts',
    description: 'Account and market positions: as-of wallet reads, change log, hourly history, market and bulk snapshots (JSON or Arrow)',
    ...ARCHIVE_READER,
  },
  'breadth-api': {
    entry: 'functions/http/breadth.ts',
    flow: 'query',
    description: 'Breadth above session VWAP: latest snapshot and minute history',
    memoryMb: 512,
    timeoutS: 10,
    tables: { breadth: 'read', usage: 'readwrite', quality: 'write' },
    queues: { events: 'send' },
  },
  webhooks: {
    entry: 'functions/http/webhooks.ts',
    flow: 'query',
    description: 'Webhook management: event types, limits, endpoints, subscriptions, watched addresses',
    memoryMb: 512,
    timeoutS: 10,
    tables: { webhooks: 'readwrite', quality: 'write' },
    queues: { delivery: 'send' },
  },
  'webhook-preview': {
    entry: 'functions/http/webhook-preview.ts',
    flow: 'query',
    description: 'Webhook estimate, dry-run and rule replay jobs: replays the archive through the live detectors and matcher',
    memoryMb: 1769,
    timeoutS: 29,
    duckdb: true,
    tables: { webhooks: 'readwrite', manifest: 'read', breadth: 'read', quality: 'write' },
    buckets: { archive: 'read' },
    stateMachines: { replay: 'start' },
  },
  breadth: {
    entry: 'functions/schedules/breadth.ts',
    flow: 'ingest',
    description: 'Computes the breadth snapshot of each family at every minute cutoff',
    memoryMb: 1769,
    timeoutS: 55,
    duckdb: true,
    tables: { breadth: 'readwrite', manifest: 'read' },
    buckets: { archive: 'read' },
  },
  'timer-sweep': {
    entry: 'functions/schedules/timer-sweep.ts',
    flow: 'deliver',
    description: 'Releases due long-delay timers onto their SQS queues',
    memoryMb: 256,
    timeoutS: 60,
    tables: { timers: 'readwrite' },
    queues: { delivery: 'send', 'delivery-slow': 'send', ingest: 'send' },
  },
  ingest: {
    entry: 'functions/queues/ingest.ts',
    flow: 'ingest',
    description: 'Turns raw batches into Parquet deltas and manifest entries, then detects seconds-class webhook events in them',
    memoryMb: 2048,
    timeoutS: 300,
    duckdb: true,
    tables: { manifest: 'readwrite', webhooks: 'readwrite', accounts: 'read' },
    queues: { delivery: 'send' },
    buckets: { archive: 'readwrite' },
    consumes: 'ingest',
  },
  deliver: {
    entry: 'functions/queues/deliver.ts',
    description: 'Signs and sends webhook deliveries, records outcomes, schedules retries, auto-disables endpoints',
    ...DELIVERY_LANE,
    consumes: 'delivery',
  },
  'deliver-slow': {
    entry: 'functions/queues/deliver-slow.ts',
    description: 'The slow lane of deliveries: attempts to endpoints that hung or answered slowly',
    ...DELIVERY_LANE,
    consumes: 'delivery-slow',
  },
  'delivery-sweep': {
    entry: 'functions/schedules/delivery-sweep.ts',
    flow: 'deliver',
    description: 'Re-enqueues every delivery whose attempt is overdue (a queue message lost between the record and the send, or a crashed worker)',
    memoryMb: 256,
    timeoutS: 55,
    tables: { webhooks: 'read' },
    queues: { delivery: 'send' },
  },
  notify: {
    entry: 'functions/queues/notify.ts',
    flow: 'deliver',
    description: "Turns account events (credit levels, export jobs) into webhook deliveries for the account's rules",
    memoryMb: 512,
    timeoutS: 30,
    tables: { webhooks: 'readwrite', accounts: 'read' },
    queues: { delivery: 'send' },
    consumes: 'events',
  },
  detect: {
    entry: 'functions/schedules/detect.ts',
    flow: 'ingest',
    description:
      'Minute-class webhook detectors (funding flips, listings, oracle jumps, OI deltas, liquidation bursts, breadth crosses) and the data-quality incidents of gaps and stalls',
    memoryMb: 1769,
    timeoutS: 55,
    duckdb: true,
    tables: { webhooks: 'readwrite', manifest: 'read', breadth: 'read', accounts: 'read', quality: 'readwrite' },
    queues: { delivery: 'send' },
    buckets: { archive: 'read' },
  },
  compact: {
    entry: 'functions/schedules/compact.ts',
    flow: 'ingest',
    description: 'Compacts deltas in tiers (hour compactions, symbol-hour and symbol-day files) and derives 1-minute candles',
    memoryMb: 3008,
    timeoutS: 600,
    duckdb: true,
    tables: { manifest: 'readwrite', 'export-jobs': 'readwrite' },
    buckets: { archive: 'readwrite', exports: 'write' },
  },
  exports: {
    entry: 'functions/http/exports.ts',
    flow: 'query',
    description: 'Bulk export jobs: quote from the manifest, start, progress, cancel, download links',
    memoryMb: 512,
    timeoutS: 10,
    tables: { 'export-jobs': 'readwrite', manifest: 'read', quality: 'write' },
    buckets: { exports: 'readwrite' },
    stateMachines: { export: 'start' },
  },
  'export-partition': {
    entry: 'functions/workflows/export-partition.ts',
    flow: 'jobs',
    description: 'Writes one symbol-day of an export job as ZSTD Parquet from the archive (a task of the export state machine)',
    memoryMb: 3008,
    timeoutS: 900,
    duckdb: true,
    tables: { 'export-jobs': 'readwrite', manifest: 'read' },
    buckets: { archive: 'read', exports: 'write' },
  },
  'export-finish': {
    entry: 'functions/workflows/export-finish.ts',
    flow: 'jobs',
    description: 'Completes or fails an export job as a whole and announces export.job.completed or export.job.failed',
    memoryMb: 256,
    timeoutS: 60,
    tables: { 'export-jobs': 'readwrite' },
    queues: { events: 'send' },
    buckets: { exports: 'write' },
  },
  'data-quality': {
    entry: 'functions/http/data-quality.ts',
    flow: 'query',
    description: 'Data quality: status, coverage and gaps from the manifest, incidents, ingest and REST latency, the monthly SLA',
    memoryMb: 1024,
    timeoutS: 29,
    tables: { manifest: 'read', quality: 'readwrite' },
  },
  'replay-partition': {
    entry: 'functions/workflows/replay-partition.ts',
    flow: 'jobs',
    description:
      'Replays one UTC day of a rule over the archive: its occurrences kept, and queued as late replay events when asked (a task of the replay state machine)',
    memoryMb: 3008,
    timeoutS: 900,
    duckdb: true,
    tables: { webhooks: 'readwrite', manifest: 'read', breadth: 'read', accounts: 'read' },
    queues: { delivery: 'send' },
    buckets: { archive: 'read' },
  },
  'replay-finish': {
    entry: 'functions/workflows/replay-finish.ts',
    flow: 'jobs',
    description: 'Completes or fails a replay job as a whole and bills the archive rows it read',
    memoryMb: 256,
    timeoutS: 60,
    tables: { webhooks: 'readwrite', accounts: 'read', usage: 'readwrite' },
    queues: { events: 'send' },
  },
  // Manifest write access is for the lease and the batches it ingests (its output goes through ingest).
  'positions-build': {
    entry: 'functions/schedules/positions.ts',
    flow: 'ingest',
    description: 'Builds the positions change log and hourly and live snapshots from archived fills',
    memoryMb: 3008,
    timeoutS: 600,
    duckdb: true,
    tables: { manifest: 'readwrite' },
    buckets: { archive: 'readwrite' },
  },
};

export interface ScheduleDef {
  /** EventBridge rate in minutes. */
  everyMinutes: number;
  /**
   * Locally, the rate is multiplied by LOCAL_TIME_SCALE (at most once a second): the sweeps keep pace
   * with the scaled ladder (releasing what it parks, sending again what it lost).
   */
  followsTimeScale?: true;
  target: { stateMachine: StateMachineName } | { function: FunctionName };
}

export type StateMachineName = 'timer-sweep' | 'export' | 'replay';

export interface StateMachineDef {
  description: string;
  /** Task state ids mapped to the functions they invoke; the local cloud binds the same handlers. */
  tasks: Record<string, FunctionName>;
  /** Carries the machine's ARN to the functions that start it. */
  envVar: string;
  timeoutMinutes: number;
}

export const STATE_MACHINES: Readonly<Record<StateMachineName, StateMachineDef>> = {
  'timer-sweep': {
    description: 'Drains due timers until none are left for this minute',
    tasks: { Sweep: 'timer-sweep' },
    envVar: 'STATE_MACHINE_TIMER_SWEEP_ARN',
    timeoutMinutes: 5,
  },
  // A Map over the job's symbol-days, then the job completes (Finish) or fails as a whole (Fail).
  export: {
    description: 'Runs an export job: every partition, then completes or fails it as a whole',
    tasks: { ExportPartition: 'export-partition', Finish: 'export-finish', Fail: 'export-finish' },
    envVar: 'STATE_MACHINE_EXPORT_ARN',
    timeoutMinutes: 180,
  },
  // The same shape over a replay's UTC days.
  replay: {
    description: 'Runs a rule replay job: every day of its window, then completes or fails it as a whole',
    tasks: { ReplayPartition: 'replay-partition', FinishReplay: 'replay-finish', FailReplay: 'replay-finish' },
    envVar: 'STATE_MACHINE_REPLAY_ARN',
    timeoutMinutes: 180,
  },
};

export const SCHEDULES: Readonly<Record<string, ScheduleDef>> = {
  'timer-sweep': { everyMinutes: 1, target: { stateMachine: 'timer-sweep' }, followsTimeScale: true },
  'delivery-sweep': { everyMinutes: 1, target: { function: 'delivery-sweep' }, followsTimeScale: true },
  compact: { everyMinutes: 1, target: { function: 'compact' } },
  breadth: { everyMinutes: 1, target: { function: 'breadth' } },
  detect: { everyMinutes: 1, target: { function: 'detect' } },
  positions: { everyMinutes: 1, target: { function: 'positions-build' } },
};
