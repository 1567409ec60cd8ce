/** Scheduled every minute: extends each family's positions change log and snapshots from the archived fills. */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { buildPositions, type PositionsReport } from '../core/positions/build.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { logger, metrics, publishMetrics } from '../shared/powertools.ts';

/** A run starts no new hour step after this long; a backlog (a first run, an outage) is caught up over several runs. */
const BUDGET_MS = 45_000;

async function build(): Promise<PositionsReport> {
  const report = await buildPositions(archiveDeps(), { budgetMs: BUDGET_MS });
  metrics.addMetric('PositionLegs', MetricUnit.Count, report.legs);
  if (report.steps > 0) logger.info('positions', { ...report });
  return report;
}

export const handler = middy(build)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics());
