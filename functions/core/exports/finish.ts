/**
 * The end of an export job, the state machine's last step: the whole job completes, or fails with
 * nothing of it left, announced once as `export.job.v1` (a retried step announces again: the same
 * event, which notify keys on job and status).
 */
import { EXPORT_RETENTION_DAYS } from '#schemas/exports.ts';
import type { UserEventMessage } from '#schemas/messages.ts';
import type { Clock } from '#ports/clock.ts';
import type { ExportJobRecord, ExportObjects, ExportStore } from '#ports/exports.ts';
import { exportApiUrl } from './jobs.ts';
import { discardJobFiles } from './object-life.ts';
import { priceUsd } from './plan.ts';

const DAY_MS = 86_400_000;

export interface FinishExportDeps {
  exports: ExportStore;
  exportObjects: ExportObjects;
  clock: Clock;
  announce: (event: UserEventMessage) => Promise<void>;
}

/** `export.job.v1` for a job that has just completed or failed (the same event however often it is sent). */
function endEvent(job: ExportJobRecord, at: number): UserEventMessage {
  const status = job.state === 'completed' ? 'completed' : 'failed';
  return {
    type: 'export.job.v1',
    account_id: job.accountId,
    job_id: job.jobId,
    status,
    ...(status === 'failed' && { error_message: job.errorMessage ?? 'The export failed.' }),
    api_url: exportApiUrl(job.jobId),
    at,
  };
}

/** The state machine's last step: the whole job completes, or fails with nothing of it left. */
export async function finishExport(
  deps: FinishExportDeps,
  input: { account_id: string; job_id: string; outcome: 'completed' | 'failed'; error_message?: string },
): Promise<{ state: string }> {
  const { account_id: accountId, job_id: jobId } = input;
  const job = await deps.exports.getJob(accountId, jobId);
  if (job?.state === 'completed' || job?.state === 'failed') {
    // A retried task whose transition landed before it was killed: the announcement may not have
    // gone, so it goes again (the same event: notify keys it on job and status, once).
    if (job.state === 'failed') await discardJobFiles(deps, job);
    await deps.announce(endEvent(job, job.finishedAt ?? deps.clock.now()));
    return { state: job.state };
  }
  if (!job || (job.state !== 'queued' && job.state !== 'running')) return { state: job?.state ?? 'missing' };
  const now = deps.clock.now();
  let failure = input.outcome === 'failed' ? (input.error_message ?? 'The export failed.') : undefined;
  if (failure === undefined) {
    const files = await deps.exports.files(jobId);
    if (files.length === job.partitionsTotal) {
      const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
      const completed = await deps.exports.transition(accountId, jobId, ['queued', 'running'], 'completed', {
        finishedAt: now,
        expiresAt: now + EXPORT_RETENTION_DAYS * DAY_MS,
        priceUsd: priceUsd(job.schema, bytes),
      });
      if (completed) await deps.announce(endEvent({ ...job, state: 'completed' }, now));
      return { state: completed ? 'completed' : 'canceled' };
    }
    failure = `${files.length} of ${job.partitionsTotal} partitions were written.`;
  }
  await discardJobFiles(deps, job);
  const failed = await deps.exports.transition(accountId, jobId, ['queued', 'running'], 'failed', { finishedAt: now, errorMessage: failure });
  if (failed) await deps.announce(endEvent({ ...job, state: 'failed', errorMessage: failure }, now));
  return { state: failed ? 'failed' : 'canceled' };
}
