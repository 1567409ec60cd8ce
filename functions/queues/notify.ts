/** SQS consumer of the events queue: account events become deliveries for that account's rules. */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { createRuleBook, dispatch } from '../core/detect/dispatch.ts';
import { userEventCandidate } from '../core/detect/user-events.ts';
import { UserEventMessage } from '#schemas/messages.ts';
import { accountStore, clock, once, queueSender, webhookStores } from '../shared/deps.ts';
import { logger, metrics } from '../shared/powertools.ts';
import { sqsConsumer } from '../shared/queue.ts';

const deps = once(() => ({
  store: webhookStores(),
  queues: queueSender(),
  clock,
  rules: createRuleBook({ store: webhookStores(), accounts: accountStore(), clock, ttlMs: 10_000 }),
}));

export const handler = sqsConsumer('events', UserEventMessage, async (event) => {
  const counts = await dispatch(deps(), [userEventCandidate(event)]);
  metrics.addMetric('OccurrencesMatched', MetricUnit.Count, counts.matched);
  if (counts.matched > 0) logger.info('account event dispatched', { type: event.type, account_id: event.account_id, ...counts });
});
