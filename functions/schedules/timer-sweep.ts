/** Step Functions task: releases due timers onto their queues (see core/timers.ts). */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { sweepTimers, type SweepResult } from '../core/timers.ts';
import { clock, queueSender, timerStore } from '../shared/deps.ts';
import { logger, metrics, publishMetrics } from '../shared/powertools.ts';

async function sweep(): Promise<SweepResult> {
  const result = await sweepTimers({ timers: timerStore(), queues: queueSender(), clock });
  metrics.addMetric('TimersReleased', MetricUnit.Count, result.released);
  if (result.released > 0) logger.info('timers released', { ...result });
  return result;
}

export const handler = middy(sweep)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics());
