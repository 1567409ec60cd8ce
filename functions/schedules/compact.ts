/** Scheduled every minute: compacts recent deltas in tiers and deletes objects past their grace period. */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { SCHEDULED_FOLD_BUDGET_MS, compactArchive, type CompactionReport } from '../core/archive/compact.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { logger, metrics, publishMetrics } from '../shared/powertools.ts';

async function compact(): Promise<CompactionReport> {
  const report = await compactArchive(archiveDeps(), { foldBudgetMs: SCHEDULED_FOLD_BUDGET_MS });
  metrics.addMetric('CompactedRows', MetricUnit.Count, report.rowsWritten);
  if (report.filesWritten > 0) logger.info('compaction', { ...report });
  return report;
}

export const handler = middy(compact).use(injectLambdaContext(logger, { resetKeys: true })).use(publishMetrics());
