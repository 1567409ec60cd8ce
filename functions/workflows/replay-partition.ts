/** Task `ReplayPartition` of the replay state machine: one UTC day of a rule replay job. */
import * as v from 'valibot';
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { runReplayPartition } from '../core/detect/replays.ts';
import { archiveReferences } from '../core/detect/archive-references.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { accountStore, breadthStore, clock, queueSender, replayStore, webhookStores } from '../shared/deps.ts';
import { logger, publishMetrics } from '../shared/powertools.ts';

const PartitionTask = v.object({
  job: v.object({ accountId: v.string(), jobId: v.string() }),
  partition: v.object({ i: v.pipe(v.number(), v.integer(), v.minValue(0)), from: v.pipe(v.number(), v.integer()), to: v.pipe(v.number(), v.integer()) }),
});

async function run(event: unknown) {
  const task = v.parse(PartitionTask, event);
  logger.appendKeys({ job_id: task.job.jobId, partition: task.partition.i });
  const archive = archiveDeps();
  const outcome = await runReplayPartition({
    archive, clock, breadth: breadthStore(), references: archiveReferences(archive), replays: replayStore(), store: webhookStores(),
    delivery: { store: webhookStores(), queues: queueSender(), clock },
    planOf: async (accountId) => (await accountStore().getAccount(accountId))?.plan,
  }, task.job, task.partition);
  logger.info('replay partition', { ...outcome });
  return outcome;
}

export const handler = middy(run).use(injectLambdaContext(logger, { resetKeys: true })).use(publishMetrics());
