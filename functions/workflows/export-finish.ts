/** Tasks `Finish` and `Fail` of the export state machine: the job completes or fails as a whole, and says so. */
import * as v from 'valibot';
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { finishExport } from '../core/exports/jobs.ts';
import { announce } from '../core/detect/user-events.ts';
import { clock, exportObjects, exportStore, queueSender } from '../shared/deps.ts';
import { logger, publishMetrics } from '../shared/powertools.ts';

const FinishTask = v.object({
  account_id: v.string(),
  job_id: v.string(),
  outcome: v.picklist(['completed', 'failed']),
  /** Step Functions' caught error: `Cause` is the failed task's error as JSON. */
  error: v.optional(v.object({ Error: v.optional(v.string()), Cause: v.optional(v.unknown()) })),
});

/**
 * The failed partition's own message (ExportPartitionError), never a stack trace or an internal
 * detail. Lambda hands Step Functions the error as JSON in `Cause`; a runner that calls the
 * handler in process passes the message itself, with the error's name in `Error`.
 */
function errorMessage(error: v.InferOutput<typeof FinishTask>['error']): string | undefined {
  if (!error) return undefined;
  const cause = typeof error.Cause === 'string' ? error.Cause : '';
  try {
    const parsed = JSON.parse(cause) as { errorType?: string; errorMessage?: string };
    if (parsed.errorType === 'ExportPartitionError' && parsed.errorMessage) return parsed.errorMessage;
  } catch {
    if (error.Error === 'ExportPartitionError' && cause) return cause;
  }
  return error.Error === 'States.Timeout' ? 'The export ran out of time.' : 'A partition could not be exported.';
}

async function run(event: unknown) {
  const task = v.parse(FinishTask, event);
  const result = await finishExport(
    { exports: exportStore(), exportObjects: exportObjects(), clock, announce: (e) => announce(queueSender(), e) },
    { account_id: task.account_id, job_id: task.job_id, outcome: task.outcome, error_message: errorMessage(task.error) },
  );
  logger.info('export finished', { job_id: task.job_id, ...result });
  return result;
}

export const handler = middy(run).use(injectLambdaContext(logger, { resetKeys: true })).use(publishMetrics());
