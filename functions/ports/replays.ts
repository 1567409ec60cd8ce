import type { ReplayState } from '#schemas/replays.ts';
import type { ReplayPartition } from '#schemas/messages.ts';
import type { ReplayOccurrence, StoredConfig } from '#schemas/stored.ts';

export type { ReplayOccurrence, ReplayPartition };

export interface ReplayJobRecord {
  accountId: string;
  jobId: string;
  state: ReplayState;
  eventType: string;
  /** The normalized config the job matches with (the subscription's, or the request's). */
  config: StoredConfig;
  subscriptionId?: string;
  deliver: boolean;
  from: number;
  to: number;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  partitionsTotal: number;
  partitionsDone: number;
  rowsScanned: number;
  matched: number;
  delivered: number;
  errorMessage?: string;
}

export interface PartitionResult {
  rowsScanned: number;
  delivered: number;
  occurrences: readonly ReplayOccurrence[];
}

export interface ReplayStore {
  createJob(job: ReplayJobRecord): Promise<void>;
  getJob(accountId: string, jobId: string): Promise<ReplayJobRecord | undefined>;
  transition(
    accountId: string,
    jobId: string,
    from: readonly ReplayState[],
    to: ReplayState,
    fields?: Partial<Pick<ReplayJobRecord, 'startedAt' | 'finishedAt' | 'errorMessage'>>,
  ): Promise<boolean>;
  /**
   * Stores a partition's occurrences and adds it to the job's progress exactly once, while the job
   * is queued or running: a retried partition overwrites its occurrences and is not counted twice.
   */
  recordPartition(accountId: string, jobId: string, index: number, result: PartitionResult): Promise<'recorded' | 'already_recorded' | 'not_running'>;
  /** Occurrences oldest first (partition order), from the position `after` (opaque, from a previous page). */
  occurrences(jobId: string, limit: number, after?: string): Promise<{ occurrences: ReplayOccurrence[]; next?: string }>;
}
