/** Task `ExportPartition` of the export state machine: one symbol-day of a job, written as Parquet. */
import { exportPartition } from '../core/exports/partition.ts';
import { ExportPartitionTask } from '#schemas/messages.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { exportObjects, exportStore } from '../shared/deps.ts';
import { logger } from '../shared/powertools.ts';
import { workflowTask } from '../shared/workflow.ts';

/**
 * A partition that cannot be written fails with a message its owner may read (it becomes the job's
 * error_message); the underlying error is logged, not attached, so no internal detail reaches the job.
 */
export class ExportPartitionError extends Error {
  override readonly name = 'ExportPartitionError';
}

export const handler = workflowTask('export-partition', ExportPartitionTask, async (task) => {
  logger.appendKeys({ job_id: task.job.jobId, partition: task.partition.i });
  try {
    const outcome = await exportPartition({ ...archiveDeps(), exports: exportStore(), exportObjects: exportObjects() }, task.job, task.partition);
    logger.info('export partition', { ...outcome });
    return outcome;
  } catch (error) {
    logger.error('export partition failed', { error });
    const reason = error instanceof Error ? error.name : 'Error';
    throw new ExportPartitionError(`Partition ${task.partition.i} (${task.partition.s}, ${task.partition.d}) could not be exported: ${reason}.`);
  }
});
