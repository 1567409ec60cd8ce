/**
 * Scheduled every minute: the `minutes` detectors over the minutes settled since the last run (see
 * core/detect/minute-run.ts). The run's time comes from the schedule's event, so a retried
 * invocation covers the same minutes.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { ScheduledEvent } from 'aws-lambda';
import { archiveReferences } from '../core/detect/archive-references.ts';
import { createRuleBook } from '../core/detect/dispatch.ts';
import { runMinuteDetection } from '../core/detect/minute-run.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { accountStore, breadthStore, clock, incidentStore, once, queueSender, webhookStores } from '../shared/deps.ts';
import { logger, metrics, publishMetrics } from '../shared/powertools.ts';

const deps = once(() => ({
  store: webhookStores(),
  queues: queueSender(),
  clock,
  archive: archiveDeps(),
  breadth: breadthStore(),
  incidents: incidentStore(),
  // Runs once a minute: rules are read fresh each time.
  rules: createRuleBook({ store: webhookStores(), accounts: accountStore(), clock, ttlMs: 0 }),
  references: archiveReferences(archiveDeps()),
}));

async function run(event: Partial<ScheduledEvent> | undefined) {
  const now = event?.time ? Date.parse(event.time) : clock.now();
  const result = await runMinuteDetection(deps(), now);
  metrics.addMetric('OccurrencesMatched', MetricUnit.Count, result.matched);
  if (result.matched > 0) logger.info('minute detection', { ...result, from: new Date(result.from).toISOString(), to: new Date(result.to).toISOString() });
  return result;
}

export const handler = middy(run)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics());
