/** Tasks `Finish` and `Fail` of the export state machine: the job completes or fails as a whole, and says so. */
import { finishExport } from '../core/exports/finish.ts';
import { announce } from '../core/detect/user-events.ts';
import { JobFinishTask } from '#schemas/messages.ts';
import { clock, exportObjects, exportStore, queueSender } from '../shared/deps.ts';
import { logger } from '../shared/powertools.ts';
import { workflowTask } from '../shared/workflow.ts';

/**
 * The failed partition's own message (ExportPartitionError), never a stack trace or an internal
 * detail. Lambda hands Step Functions the error as JSON in `Cause`; a runner that calls the
 * handler in process passes the message itself, with the error's name in `Error`.
 */
function errorMessage(error: JobFinishTask['error']): string | undefined {
  if (!error) return undefined;
  const cause = typeof error.Cause === 'string' ? error.Cause : '';
  try {
    const parsed: unknown = JSON.parse(cause);
    if (
      parsed
      && typeof parsed === 'object'
      && 'errorType' in parsed
      && parsed.errorType === 'ExportPartitionError'
      && 'errorMessage' in parsed
      && typeof parsed.errorMessage === 'string'
      && parsed.errorMessage
    )
      return parsed.errorMessage;
  } catch {
    if (error.Error === 'ExportPartitionError' && cause) return cause;
  }
  return error.Error === 'States.Timeout' ? 'The export ran out of time.' : 'A partition could not be exported.';
}

export const handler = workflowTask('export-finish', JobFinishTask, async (task) => {
  const result = await finishExport(
    { exports: exportStore(), exportObjects: exportObjects(), clock, announce: (e) => announce(queueSender(), e) },
    { account_id: task.account_id, job_id: task.job_id, outcome: task.outcome, error_message: errorMessage(task.error) },
  );
  logger.info('export finished', { job_id: task.job_id, ...result });
  return result;
});
