import type { ExportQuote, ExportSchemaName, ExportState } from '#schemas/exports.ts';
import type { ExportPartition } from '#schemas/messages.ts';
import type { ExportFileRecord } from '#schemas/stored.ts';
import type { Family } from '../core/venues.ts';

export type { ExportFileRecord, ExportPartition };

export interface ExportJobRecord {
  accountId: string;
  jobId: string;
  state: ExportState;
  schema: ExportSchemaName;
  family: Family;
  /** The symbols the job covers (resolved from the manifest when the request named none). */
  symbols: string[];
  /** `[from, to)`, epoch ms. */
  from: number;
  to: number;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  expiresAt?: number;
  quote: ExportQuote;
  partitionsTotal: number;
  partitionsDone: number;
  rowsWritten: number;
  bytesWritten: number;
  priceUsd?: number;
  errorMessage?: string;
}

export interface IdempotencyClaim {
  jobId: string;
  /** Hash of the request the key was first used with. */
  fingerprint: string;
  claimedAt: number;
}

export type RecordOutcome = 'recorded' | 'already_recorded' | 'not_running';

export interface ExportStore {
  /**
   * Claims an idempotency key for `jobId`. Answers undefined when the claim is new, or the job
   * (and request fingerprint) an earlier request with the same key claimed.
   */
  claimIdempotencyKey(accountId: string, keyHash: string, claim: IdempotencyClaim, expiresAt: number): Promise<IdempotencyClaim | undefined>;
  /**
   * Stores the job's partition list, then the job (so a job never exists without its plan); false
   * when a job with that id exists already (a concurrent request with the same Idempotency-Key).
   */
  createJob(job: ExportJobRecord, partitions: readonly ExportPartition[]): Promise<boolean>;
  partitions(jobId: string): Promise<ExportPartition[] | undefined>;
  getJob(accountId: string, jobId: string): Promise<ExportJobRecord | undefined>;
  /** Newest first; `after` is the last job id of the previous page. */
  listJobs(accountId: string, limit: number, after?: string): Promise<{ jobs: ExportJobRecord[]; more: boolean }>;
  /**
   * Moves a job from one of `from` to `to` with `fields` set; false when the job is in none of
   * them (another writer moved it first).
   */
  transition(
    accountId: string,
    jobId: string,
    from: readonly ExportState[],
    to: ExportState,
    fields?: Partial<Pick<ExportJobRecord, 'startedAt' | 'finishedAt' | 'expiresAt' | 'priceUsd' | 'errorMessage'>>,
  ): Promise<boolean>;
  /**
   * Stores a partition's file and adds it to the job's progress exactly once, while the job is
   * queued or running: a retried partition overwrites its file entry and is not counted twice.
   */
  recordFile(accountId: string, jobId: string, file: ExportFileRecord): Promise<RecordOutcome>;
  file(jobId: string, index: number): Promise<ExportFileRecord | undefined>;
  /** Every file entry of a job, in partition order. */
  files(jobId: string): Promise<ExportFileRecord[]>;
  /** Drops a job's file entries (after its objects are deleted: a canceled or failed job lists none). */
  forgetFiles(jobId: string, indexes: readonly number[]): Promise<void>;
  /**
   * A partition's object is to be checked after `after` (core/exports/object-life.ts): kept if its
   * job completed listing it, looked at again later while the job runs, deleted otherwise.
   */
  scheduleCheck(check: Omit<ObjectCheck, 'id'>, after: number): Promise<void>;
  /** Checks due before `now`, oldest first. */
  dueChecks(now: number, limit: number): Promise<ObjectCheck[]>;
  forgetCheck(id: string): Promise<void>;
}

/** An export object to look at once due: a partition's file of a job, by key. */
export interface ObjectCheck {
  id: string;
  accountId: string;
  jobId: string;
  index: number;
  key: string;
}

/** Where export files live, and the links that let their owner download them. */
export interface ExportObjects {
  putFile(key: string, path: string): Promise<{ bytes: number }>;
  delete(keys: readonly string[]): Promise<void>;
  /** A pre-signed GET link valid for `ttlS` seconds. */
  downloadLink(key: string, ttlS: number, fileName: string): Promise<string>;
}

/**
 * Starts and stops executions of one state machine (Step Functions; the local cloud's own server
 * speaks its protocol), whose input is `Input` (schemas/messages.ts).
 */
export interface Workflows<Input> {
  /** Idempotent by execution name: the same name and input start one execution. */
  start(executionName: string, input: Input): Promise<void>;
  stop(executionName: string, cause: string): Promise<void>;
}
