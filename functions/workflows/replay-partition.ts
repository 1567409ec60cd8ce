/** Task `ReplayPartition` of the replay state machine: one UTC day of a rule replay job. */
import { runReplayPartition } from '../core/detect/replays.ts';
import { archiveReferences } from '../core/detect/archive-references.ts';
import { ReplayPartitionTask } from '#schemas/messages.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { accountStore, breadthStore, clock, queueSender, replayStore, webhookStores } from '../shared/deps.ts';
import { logger } from '../shared/powertools.ts';
import { workflowTask } from '../shared/workflow.ts';

export const handler = workflowTask('replay-partition', ReplayPartitionTask, async (task) => {
  logger.appendKeys({ job_id: task.job.jobId, partition: task.partition.i });
  const archive = archiveDeps();
  const outcome = await runReplayPartition(
    {
      archive,
      clock,
      breadth: breadthStore(),
      references: archiveReferences(archive),
      replays: replayStore(),
      store: webhookStores(),
      delivery: { store: webhookStores(), queues: queueSender(), clock },
      planOf: async (accountId) => (await accountStore().getAccount(accountId))?.plan,
    },
    task.job,
    task.partition,
  );
  logger.info('replay partition', { ...outcome });
  return outcome;
});
