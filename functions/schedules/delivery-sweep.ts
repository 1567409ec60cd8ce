/** Every minute: deliveries whose attempt is overdue get their job again (see sweepOverdueDeliveries). */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { sweepOverdueDeliveries } from '../core/webhooks/overdue.ts';
import { clock, queueSender, webhookStores } from '../shared/deps.ts';
import { config } from '../shared/config.ts';
import { logger, metrics, publishMetrics } from '../shared/powertools.ts';

async function sweep(): Promise<{ requeued: number }> {
  const result = await sweepOverdueDeliveries({ store: webhookStores(), queues: queueSender(), clock, timeScale: config().LOCAL_TIME_SCALE ?? 1 });
  metrics.addMetric('OverdueDeliveriesRequeued', MetricUnit.Count, result.requeued);
  if (result.requeued > 0) logger.warn('overdue deliveries re-enqueued', { ...result });
  return result;
}

export const handler = middy(sweep)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics());
