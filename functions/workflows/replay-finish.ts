/** Tasks `FinishReplay` and `FailReplay` of the replay state machine: the job completes or fails as a whole, billed for the rows it read. */
import { finishReplay } from '../core/detect/replays.ts';
import { chargeRequest } from '../core/billing/credits.ts';
import { announce } from '../core/detect/user-events.ts';
import { JobFinishTask } from '#schemas/messages.ts';
import { accountStore, clock, creditLedger, queueSender, replayStore } from '../shared/deps.ts';
import { logger } from '../shared/powertools.ts';
import { workflowTask } from '../shared/workflow.ts';

export const handler = workflowTask('replay-finish', JobFinishTask, async (task) => {
  const result = await finishReplay(
    {
      replays: replayStore(),
      clock,
      async charge(accountId, rows) {
        const account = await accountStore().getAccount(accountId);
        if (!account) return;
        await chargeRequest(
          { ledger: creditLedger(), clock, announce: (e) => announce(queueSender(), e) },
          { id: accountId, plan: account.plan, monthlyCredits: account.monthlyCredits },
          rows,
        );
      },
    },
    { account_id: task.account_id, job_id: task.job_id, outcome: task.outcome, ...(task.error && { error_message: 'A day could not be replayed.' }) },
  );
  logger.info('replay finished', { job_id: task.job_id, ...result });
  return result;
});
