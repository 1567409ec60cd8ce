/**
 * Scheduled every minute: compacts recent deltas in tiers and deletes objects past their grace period
 * (the archive's, and export files no job keeps: core/exports/object-life.ts).
 * Invoked with `{ rederive: { from, to, datasets? } }` (UTC days, derived dataset names) it derives
 * those datasets again for the closed days of the span instead (`npm run derive:backfill` locally).
 */
import type { Context } from 'aws-lambda';
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { SCHEDULED_FOLD_BUDGET_MS, compactArchive } from '../core/archive/compact.ts';
import { rederiveDays } from '../core/archive/compact-derived.ts';
import type { CompactionReport } from '../core/archive/compact-slot.ts';
import { DERIVED_DATASETS, type DerivedDataset } from '#schemas/datasets.ts';
import { collectExportObjects } from '../core/exports/object-life.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { clock, exportObjects, exportStore } from '../shared/deps.ts';
import { logger, metrics, publishMetrics } from '../shared/powertools.ts';

type CompactEvent = { rederive?: { from: string; to: string; datasets?: string[] } };
const UTC_DAY = /^\d{4}-\d{2}-\d{2}$/;

async function compact(event: CompactEvent | undefined, context: Context): Promise<CompactionReport> {
  if (event?.rederive) {
    const { from, to, datasets = DERIVED_DATASETS } = event.rederive;
    if (!UTC_DAY.test(from) || !UTC_DAY.test(to) || datasets.some((d) => !DERIVED_DATASETS.includes(d as DerivedDataset))) {
      throw new Error(`rederive takes { from, to } UTC days (YYYY-MM-DD) and datasets among ${DERIVED_DATASETS.join(', ')}`);
    }
    return rederiveDays(archiveDeps(), { datasets: datasets as DerivedDataset[], from, to });
  }
  // Half the run's time for starting partitions, half for finishing the last one started.
  const report = await compactArchive(archiveDeps(), { foldBudgetMs: SCHEDULED_FOLD_BUDGET_MS, runBudgetMs: context.getRemainingTimeInMillis() / 2 });
  metrics.addMetric('CompactedRows', MetricUnit.Count, report.rowsWritten);
  if (report.filesWritten > 0) logger.info('compaction', { ...report });
  // Export objects are collected here too: the one minute schedule that deletes what nothing keeps.
  const exportObjectsDeleted = await collectExportObjects({ exports: exportStore(), exportObjects: exportObjects(), clock });
  if (exportObjectsDeleted > 0) logger.info('export objects collected', { exportObjectsDeleted });
  return report;
}

export const handler = middy(compact)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics());
