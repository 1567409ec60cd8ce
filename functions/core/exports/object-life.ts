/**
 * How an export file's object lives and dies, so that none outlives its job's use by more than
 * an hour or two, whatever step was killed where:
 *
 * - written: before a partition puts its object, a check of it is scheduled (CHECK_AFTER_MS out,
 *   past the partition's 15-minute timeout). The key is fixed by job and partition, so a retried
 *   partition overwrites the same object and a retried Finish finds every file in place.
 * - discarded: a failed or canceled job deletes every object its plan could have written, listed
 *   or not (a partition killed after its put left one no entry names).
 * - checked: a due check keeps the object of a completed job that lists it (the bucket's lifecycle
 *   deletes it after EXPORT_RETENTION_DAYS), looks again later while the job is queued or running,
 *   and otherwise deletes the object and any entry naming it: a partition that wrote after its job
 *   ended, or a cancel killed halfway through its deletions, leaves nothing for long.
 */
import type { Clock } from '#ports/clock.ts';
import type { ExportJobRecord, ExportObjects, ExportPartition, ExportStore } from '#ports/exports.ts';

/** `part-00017-2026-11-20-xyz-TSLA.parquet`: unique by its index, readable by its day and symbol. */
export function exportFileName(partition: ExportPartition): string {
  return `part-${String(partition.i).padStart(5, '0')}-${partition.d}-${partition.s.replace(/[^0-9A-Za-z._-]+/g, '-')}.parquet`;
}

/** Fixed by job and partition: a retried partition overwrites its own object, and a failed job knows every object it could have. */
export function exportFileKey(job: Pick<ExportJobRecord, 'accountId' | 'jobId'>, name: string): string {
  return `exports/${job.accountId}/${job.jobId}/${name}`;
}

/** How long after a partition's put its object is checked (a running job's again as long after). */
export const CHECK_AFTER_MS = 60 * 60_000;

export interface ExportObjectLifeDeps {
  exports: ExportStore;
  exportObjects: ExportObjects;
  clock: Clock;
}

/** Checks the export objects whose check is due; answers how many were deleted. */
export async function collectExportObjects(deps: ExportObjectLifeDeps): Promise<number> {
  let deleted = 0;
  for (;;) {
    const now = deps.clock.now();
    const due = await deps.exports.dueChecks(now, 200);
    if (due.length === 0) return deleted;
    for (const check of due) {
      const job = await deps.exports.getJob(check.accountId, check.jobId);
      if (job && (job.state === 'queued' || job.state === 'running')) {
        await deps.exports.scheduleCheck(check, now + CHECK_AFTER_MS);
      } else if (!(job?.state === 'completed' && (await deps.exports.file(check.jobId, check.index))?.key === check.key)) {
        // The object first, then its entry: killed between, the entry of a job that lists no files stays, harmless.
        await deps.exportObjects.delete([check.key]);
        await deps.exports.forgetFiles(check.jobId, [check.index]);
        deleted += 1;
      }
      await deps.exports.forgetCheck(check.id);
    }
  }
}

/**
 * Removes a job's files and their entries, so nothing of it stays listed or downloadable: every
 * object its plan could have written, listed or not (a partition killed after its put left one
 * that no entry names). The objects go first, so a retry still finds the entries.
 */
export async function discardJobFiles(
  deps: Pick<ExportObjectLifeDeps, 'exports' | 'exportObjects'>,
  job: Pick<ExportJobRecord, 'accountId' | 'jobId'>,
): Promise<void> {
  const [files, partitions] = await Promise.all([deps.exports.files(job.jobId), deps.exports.partitions(job.jobId)]);
  const keys = new Set([...files.map((f) => f.key), ...(partitions ?? []).map((p) => exportFileKey(job, exportFileName(p)))]);
  if (keys.size === 0) return;
  await deps.exportObjects.delete([...keys]);
  if (files.length > 0)
    await deps.exports.forgetFiles(
      job.jobId,
      files.map((f) => f.index),
    );
}
