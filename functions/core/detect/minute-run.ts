/**
 * The minute detection run: every minute-detected type of the registry (core/events/) over the
 * settled minutes since the last run (at most an hour, so an outage is caught up on without one
 * giant run), then enrich, match and queue. Only types some rule uses are computed, and
 * param-dependent types only for the param sets in use; reads paired types share are made once.
 */
import type { ArchiveDeps } from '#ports/archive.ts';
import type { BreadthStore } from '#ports/breadth.ts';
import { INCIDENT_DETECTORS, MINUTE_DETECTORS } from '../events/registry.ts';
import type { Candidate } from '../events/kit/candidate.ts';
import { dispatch, withReferences, type ActiveRule, type DetectDeps, type DispatchCounts } from './dispatch.ts';
import { HOUR_MS, MINUTE_MS, minuteContext } from '../events/kit/reads.ts';
import type { IncidentStore } from '#ports/quality.ts';
import { recordIncidents } from '../quality/incidents.ts';

/** Data of a minute is complete about a minute after it ends (batches land every second; compaction runs each minute). */
export const SETTLE_MS = MINUTE_MS;
/** Longest window one run covers; a longer outage is caught up on over successive runs. */
export const MAX_WINDOW_MS = HOUR_MS;

export interface MinuteDeps extends DetectDeps {
  archive: ArchiveDeps;
  breadth: BreadthStore;
  /** Data-quality incidents, opened and resolved from the gap and stall occurrences of every run. */
  incidents: IncidentStore;
}

/** The distinct values of the given params among rules, as objects. */
export function paramSets(rules: readonly Pick<ActiveRule, 'subscription'>[], keys: readonly string[]): Record<string, unknown>[] {
  const seen = new Map<string, Record<string, unknown>>();
  for (const { subscription } of rules) {
    const params = (subscription.filters.params ?? {}) as Record<string, unknown>;
    const picked = Object.fromEntries(keys.map((k) => [k, params[k]]));
    seen.set(JSON.stringify(picked), picked);
  }
  return [...seen.values()];
}

/** One run at `now`: the settled minutes since the cursor, detected, matched and queued. */
export async function runMinuteDetection(deps: MinuteDeps, now: number): Promise<DispatchCounts & { from: number; to: number }> {
  const to = Math.floor((now - SETTLE_MS) / MINUTE_MS) * MINUTE_MS;
  const cursor = (await deps.store.detectionCursor.read()) ?? to - MINUTE_MS;
  const from = Math.max(cursor, to - MAX_WINDOW_MS);
  if (from >= to) return { candidates: 0, matched: 0, from, to };
  const candidates: Candidate[] = [];
  const ruled = await Promise.all(MINUTE_DETECTORS.map(async (d) => ({ ...d, rules: await deps.rules.rules(d.type) })));
  const run = minuteContext(deps, from, to);
  for (const { detection, rules } of ruled) {
    if (rules.length === 0) continue;
    const watched = new Set(rules.flatMap((r) => [...r.watched]));
    candidates.push(...(await detection.detect({ ...run, watched }, paramSets(rules, detection.params))));
  }
  // Incidents are the detectors' whether or not a rule listens: the same reads, shared with the rules' if any use them.
  for (const { detection, incident } of INCIDENT_DETECTORS) {
    await recordIncidents(deps.incidents, incident, await detection.detect({ ...run, watched: new Set() }, [incident.params]));
  }
  const counts = await dispatch(deps, await withReferences(candidates, deps.references));
  // Moved on only after every match is queued: a failed run is repeated whole, and ids dedupe it.
  await deps.store.detectionCursor.write(to);
  return { ...counts, from, to };
}
