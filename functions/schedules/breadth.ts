/**
 * Scheduled every minute: the breadth snapshot of each family at the minute that just closed. The
 * cutoff comes from the schedule's event time, so a retried invocation rewrites the same minute.
 * Invoked with `{ backfill: { from, to } }` (epoch ms) it writes every minute of that span for core
 * perps instead, a UTC day per query, as the minute job would have (hip3 history is live only):
 * the local cloud runs it over the days it seeds.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { ScheduledEvent } from 'aws-lambda';
import { BREADTH_FAMILIES, type BreadthSnapshot } from '../core/breadth/compute.ts';
import { snapshotMinute, snapshotRange } from '../core/breadth/session.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { breadthStore, clock } from '../shared/deps.ts';
import { logger, publishMetrics } from '../shared/powertools.ts';

const MINUTE = 60_000;

type BreadthEvent = Partial<ScheduledEvent> & { backfill?: { from: number; to: number } };

async function run(event: BreadthEvent | undefined): Promise<BreadthSnapshot[] | { backfilled: number }> {
  const deps = { ...archiveDeps(), breadth: breadthStore() };
  if (event?.backfill) {
    const { from, to } = event.backfill;
    return { backfilled: await snapshotRange(deps, 'perpx', Math.ceil(from / MINUTE) * MINUTE, Math.floor(to / MINUTE) * MINUTE) };
  }
  const at = event?.time ? Date.parse(event.time) : clock.now();
  const cutoff = at - (at % MINUTE);
  const snapshots: BreadthSnapshot[] = [];
  for (const family of BREADTH_FAMILIES) snapshots.push(await snapshotMinute(deps, family, cutoff));
  logger.debug('breadth', { cutoff: new Date(cutoff).toISOString(), values: snapshots.map((s) => s.value_pct) });
  return snapshots;
}

export const handler = middy(run)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics());
