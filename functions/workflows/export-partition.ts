/** Task `ExportPartition` of the export state machine: one symbol-day of a job, written as Parquet. */
import * as v from 'valibot';
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { exportPartition } from '../core/exports/partition.ts';
import { EXPORT_SCHEMAS } from '../../schemas/exports.ts';
import { FAMILIES } from '../../schemas/venues.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { exportObjects, exportStore } from '../shared/deps.ts';
import { logger, publishMetrics } from '../shared/powertools.ts';

const PartitionTask = v.object({
  job: v.object({
    accountId: v.string(), jobId: v.string(), schema: v.picklist(EXPORT_SCHEMAS), family: v.picklist(FAMILIES),
    from: v.pipe(v.number(), v.integer()), to: v.pipe(v.number(), v.integer()),
  }),
  partition: v.object({ i: v.pipe(v.number(), v.integer(), v.minValue(0)), s: v.string(), d: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/)) }),
});

/**
 * A partition that cannot be written fails with a message its owner may read (it becomes the job's
 * error_message); the underlying error is logged, not attached, so no internal detail reaches the job.
 */
export class ExportPartitionError extends Error {
  override readonly name = 'ExportPartitionError';
}

async function run(event: unknown) {
  const task = v.parse(PartitionTask, event);
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
}

export const handler = middy(run).use(injectLambdaContext(logger, { resetKeys: true })).use(publishMetrics());
