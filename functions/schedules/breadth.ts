/**
 * Scheduled every minute: the breadth snapshot of each family at the minute that just closed. The
 * cutoff comes from the schedule's event time, so a retried invocation rewrites the same minute.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { ScheduledEvent } from 'aws-lambda';
import { BREADTH_FAMILIES, type BreadthSnapshot } from '../core/breadth/compute.ts';
import { snapshotMinute } from '../core/breadth/session.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { breadthStore, clock } from '../shared/deps.ts';
import { logger, publishMetrics } from '../shared/powertools.ts';

async function run(event: Partial<ScheduledEvent> | undefined): Promise<BreadthSnapshot[]> {
  const at = event?.time ? Date.parse(event.time) : clock.now();
  const cutoff = at - (at % 60_000);
  const deps = { ...archiveDeps(), breadth: breadthStore() };
  const snapshots: BreadthSnapshot[] = [];
  for (const family of BREADTH_FAMILIES) snapshots.push(await snapshotMinute(deps, family, cutoff));
  logger.debug('breadth', { cutoff: new Date(cutoff).toISOString(), values: snapshots.map((s) => s.value_pct) });
  return snapshots;
}

export const handler = middy(run).use(injectLambdaContext(logger, { resetKeys: true })).use(publishMetrics());
