/** Tasks `FinishReplay` and `FailReplay` of the replay state machine: the job completes or fails as a whole, billed for the rows it read. */
import * as v from 'valibot';
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { finishReplay } from '../core/detect/replays.ts';
import { chargeRequest } from '../core/billing/credits.ts';
import { announce } from '../core/detect/user-events.ts';
import { accountStore, clock, creditLedger, queueSender, replayStore } from '../shared/deps.ts';
import { logger, publishMetrics } from '../shared/powertools.ts';

const FinishTask = v.object({
  account_id: v.string(),
  job_id: v.string(),
  outcome: v.picklist(['completed', 'failed']),
  error: v.optional(v.object({ Error: v.optional(v.string()), Cause: v.optional(v.unknown()) })),
});

async function run(event: unknown) {
  const task = v.parse(FinishTask, event);
  const result = await finishReplay({
    replays: replayStore(), clock,
    async charge(accountId, rows) {
      const account = await accountStore().getAccount(accountId);
      if (!account) return;
      await chargeRequest({ ledger: creditLedger(), clock, announce: (e) => announce(queueSender(), e) }, { id: accountId, plan: account.plan, monthlyCredits: account.monthlyCredits }, rows);
    },
  }, { account_id: task.account_id, job_id: task.job_id, outcome: task.outcome, ...(task.error && { error_message: 'A day could not be replayed.' }) });
  logger.info('replay finished', { job_id: task.job_id, ...result });
  return result;
}

export const handler = middy(run).use(injectLambdaContext(logger, { resetKeys: true })).use(publishMetrics());
