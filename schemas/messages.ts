/**
 * The message catalogue. Every message a queue consumer accepts is listed here; anything else is a
 * batch-item failure (and so ends in the DLQ), never silently dropped. So is every state machine's
 * execution input and every payload its tasks receive: the code that starts an execution is typed
 * by the first, each task parses the second at its entry (functions/shared/workflow.ts).
 */
import * as v from 'valibot';
import { EXPORT_SCHEMAS } from './exports.ts';
import { FAMILIES } from './venues.ts';

/**
 * Raw batch formats: the second segment of a `landing/` key, parsed by core/archive/parse.ts. The
 * node's own output (`node_*`: fills, book diffs, order statuses, by block or streamed, trades, the
 * info server's L4 snapshot), the venue's public archive (`asset_ctxs` daily CSV, `l2_book` hourly
 * `market_data` files) and its spot metadata (`spot_meta`, which names the `@N` spot pairs).
 */
export const BATCH_FORMATS = [
  'normalized',
  'node_fills_by_block',
  'node_raw_book_diffs_by_block',
  'node_order_statuses_by_block',
  'node_fills',
  'node_fills_streaming',
  'node_raw_book_diffs_streaming',
  'node_order_statuses_streaming',
  'node_trades',
  'node_l4_snapshot',
  'asset_ctxs',
  'l2_book',
  'spot_meta',
  // Recordings of the altx venue's API, one format per family (core/archive/altx-api.ts).
  'altx_api',
  'altx_rh_api',
] as const;
export type BatchFormat = (typeof BATCH_FORMATS)[number];

/** An explicit request to ingest a raw batch stored in the archive bucket. */
export const IngestBatchMessage = v.object({
  type: v.literal('ingest.batch.v1'),
  format: v.picklist(BATCH_FORMATS),
  key: v.pipe(v.string(), v.startsWith('landing/', 'must be under landing/')),
});

/** S3's object-created notification for landing/ (the bucket's SQS destination). */
export const S3Notification = v.object({
  Records: v.array(
    v.object({
      eventSource: v.literal('aws:s3'),
      eventName: v.string(),
      s3: v.object({ object: v.object({ key: v.string() }) }),
    }),
  ),
});

/** The test event S3 sends once when a notification is configured. */
export const S3TestEvent = v.object({ Event: v.literal('s3:TestEvent') });

export const IngestQueueMessage = v.union([IngestBatchMessage, S3Notification, S3TestEvent]);

/**
 * One attempt of a delivery: the record says what and where. `run` and `attempt` (attempts made
 * before this one) let the engine recognise a duplicate or stale job and ignore it.
 */
export const DeliveryJobMessage = v.object({
  type: v.literal('deliver.v1'),
  account_id: v.pipe(v.string(), v.minLength(1)),
  delivery_id: v.pipe(v.string(), v.minLength(1)),
  run: v.pipe(v.number(), v.integer(), v.minValue(0)),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** The delivery's endpoint, so the attempt reads it alongside the delivery (absent from jobs queued before it was added). */
  endpoint_id: v.optional(v.pipe(v.string(), v.minLength(1))),
});
export type DeliveryJobMessage = v.InferOutput<typeof DeliveryJobMessage>;

/** A credit level reached (core/billing/credits.ts). */
export const CreditLowEvent = v.object({
  type: v.literal('billing.credit_low.v1'),
  account_id: v.pipe(v.string(), v.minLength(1)),
  month: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}$/)),
  level_pct: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100)),
  credits_remaining: v.number(),
  credits_limit: v.number(),
  at: v.number(),
});

/** A bulk export job finished or failed (announced by the export jobs). */
export const ExportJobEvent = v.object({
  type: v.literal('export.job.v1'),
  account_id: v.pipe(v.string(), v.minLength(1)),
  job_id: v.pipe(v.string(), v.minLength(1)),
  status: v.picklist(['completed', 'failed']),
  error_message: v.optional(v.string()),
  /** REST path of the job, where its files are listed with normal authentication. */
  api_url: v.pipe(v.string(), v.startsWith('/v1/')),
  at: v.number(),
});

/** Events about one account, turned into deliveries by the notify function. */
export const UserEventMessage = v.variant('type', [CreditLowEvent, ExportJobEvent]);
export type UserEventMessage = v.InferOutput<typeof UserEventMessage>;

// ---------------------------------------------------------------------------------------------
// State machines (lib/constructs/state-machines.ts): execution inputs and task payloads

const ID = v.pipe(v.string(), v.minLength(1));
const EPOCH_MS = v.pipe(v.number(), v.integer());
const INDEX = v.pipe(v.number(), v.integer(), v.minValue(0));

/**
 * One symbol-day of an export job: the unit a Map iteration of the `export` state machine exports.
 * Kept short: the list travels in the execution input (256 KB).
 */
export const ExportPartition = v.object({
  /** Position in the job's partition list; names the file and counts it once. */
  i: INDEX,
  /** Symbol. */
  s: ID,
  /** UTC day, YYYY-MM-DD. */
  d: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day YYYY-MM-DD')),
});
export type ExportPartition = v.InferOutput<typeof ExportPartition>;

/** What an export partition task knows of its job without reading it (the execution input carries it). */
export const ExportPartitionJob = v.object({
  accountId: ID,
  jobId: ID,
  schema: v.picklist(EXPORT_SCHEMAS),
  family: v.picklist(FAMILIES),
  /** `[from, to)`, epoch ms. */
  from: EPOCH_MS,
  to: EPOCH_MS,
});
export type ExportPartitionJob = v.InferOutput<typeof ExportPartitionJob>;

/** What a job's state machine receives: the job (what every task gets) and its partitions, the Map's items. */
const executionInput = <J extends v.GenericSchema, P extends v.GenericSchema>(job: J, partition: P) =>
  v.object({ account_id: ID, job_id: ID, job, partitions: v.array(partition) });
/** A Map iteration's task: the job beside one partition. */
const partitionTask = <J extends v.GenericSchema, P extends v.GenericSchema>(job: J, partition: P) => v.object({ job, partition });

/** What the `export` state machine receives. */
export const ExportExecutionInput = executionInput(ExportPartitionJob, ExportPartition);
export type ExportExecutionInput = v.InferOutput<typeof ExportExecutionInput>;

/** Task `ExportPartition`. */
export const ExportPartitionTask = partitionTask(ExportPartitionJob, ExportPartition);
export type ExportPartitionTask = v.InferOutput<typeof ExportPartitionTask>;

/** One UTC day of a replay's window: the unit a Map iteration of the `replay` state machine replays. */
export const ReplayPartition = v.object({
  /** Position in the job's partition list. */
  i: INDEX,
  /** `[from, to)`, epoch ms. */
  from: EPOCH_MS,
  to: EPOCH_MS,
});
export type ReplayPartition = v.InferOutput<typeof ReplayPartition>;

/** A replay job's key: a partition task reads the job itself. */
export const ReplayJobKey = v.object({ accountId: ID, jobId: ID });

/** What the `replay` state machine receives: the job's key and its days. */
export const ReplayExecutionInput = executionInput(ReplayJobKey, ReplayPartition);
export type ReplayExecutionInput = v.InferOutput<typeof ReplayExecutionInput>;

/** Task `ReplayPartition`: the job's key beside one day. */
export const ReplayPartitionTask = partitionTask(ReplayJobKey, ReplayPartition);
export type ReplayPartitionTask = v.InferOutput<typeof ReplayPartitionTask>;

/**
 * Tasks `Finish` and `Fail` (export), `FinishReplay` and `FailReplay` (replay): the job completes
 * or fails as a whole. `error` is what Step Functions caught from the Map: `Cause` is the failed
 * task's error as JSON (or, from a runner that calls the handler in process, its message).
 */
export const JobFinishTask = v.object({
  account_id: ID,
  job_id: ID,
  outcome: v.picklist(['completed', 'failed']),
  error: v.optional(v.object({ Error: v.optional(v.string()), Cause: v.optional(v.unknown()) })),
});
export type JobFinishTask = v.InferOutput<typeof JobFinishTask>;
