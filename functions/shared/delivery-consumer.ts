/** The SQS consumer of a delivery lane: one attempt per job (see core/webhooks/engine.ts). */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { attemptDelivery, type DeliveryLane } from '../core/webhooks/engine.ts';
import { DeliveryJobMessage } from '#schemas/messages.ts';
import { config } from './config.ts';
import { clock, once, queueSender, timerStore, webhookSender, webhookStores } from './deps.ts';
import { logger, metrics } from './powertools.ts';
import { sqsConsumer } from './queue.ts';

const engineDeps = once(() => ({
  store: webhookStores(),
  queues: queueSender(),
  timers: timerStore(),
  clock,
  send: webhookSender(),
  timeScale: config().LOCAL_TIME_SCALE ?? 1,
}));

const OUTCOME_METRIC = { delivered: 'DeliveriesDelivered', retry_scheduled: 'DeliveryRetriesScheduled', exhausted: 'DeliveriesExhausted' } as const;

export const deliveryLaneConsumer = (lane: DeliveryLane) =>
  sqsConsumer(lane, DeliveryJobMessage, async (job) => {
    const result = await attemptDelivery({ ...engineDeps(), lane }, job);
    if (!('delivery' in result)) {
      logger.debug('job skipped', { delivery_id: job.delivery_id, outcome: result.outcome });
      return;
    }
    const { delivery } = result;
    metrics.addMetric(OUTCOME_METRIC[result.outcome], MetricUnit.Count, 1);
    if (delivery.lastLatencyMs !== null) metrics.addMetric('DeliveryLatency', MetricUnit.Milliseconds, delivery.lastLatencyMs);
    const fields = {
      delivery_id: delivery.id,
      event_id: delivery.eventId,
      endpoint_id: delivery.endpointId,
      attempt: delivery.attempts,
      status_code: delivery.lastStatusCode,
      error: delivery.lastError,
      latency_ms: delivery.lastLatencyMs,
      next_attempt_at: delivery.nextAttemptAt,
    };
    if (result.outcome === 'delivered') logger.info('delivered', fields);
    else logger.warn(result.outcome === 'exhausted' ? 'delivery exhausted' : 'attempt failed', fields);
    if (result.autoDisabled) {
      metrics.addMetric('EndpointsAutoDisabled', MetricUnit.Count, 1);
      logger.warn('endpoint auto-disabled', { endpoint_id: delivery.endpointId, account_id: delivery.accountId });
    }
  });
