/**
 * Detection on one ingested batch: the registry's batch detectors (core/events/), each over the
 * batch's rows of the dataset it reads, then enrich, match and queue. Runs inside ingest after the
 * batch's files and manifest entries are written and before the batch is marked done, so a failure
 * retries the batch and its detection together.
 */
import type { IngestedDataset, NormalizedRecord } from '#schemas/datasets.ts';
import { BATCH_DETECTORS, EVENT_DEFINITION_BY_TYPE } from '../events/registry.ts';
import type { Candidate } from '../events/kit/candidate.ts';
import { dispatch, watchedBy, withReferences, type DetectDeps, type DispatchCounts } from './dispatch.ts';
import { groupBy } from '../events/kit/group.ts';

/** The candidates of the given types (default: every batch-detected type) that a batch of records holds. */
export function batchCandidates(records: readonly NormalizedRecord[], watched: ReadonlySet<string>, types?: ReadonlySet<string>): Candidate[] {
  const byDataset = groupBy(records, (r) => r.dataset) as Map<IngestedDataset, NormalizedRecord[]>;
  return BATCH_DETECTORS.flatMap(({ type, detection }) => {
    const rows = byDataset.get(detection.reads);
    return rows && (!types || types.has(type)) ? detection.detect(rows, watched) : [];
  });
}

/** The detectors that run on one ingested batch: detect (types some rule uses only), enrich, match, queue. */
export async function detectInBatch(deps: DetectDeps, records: readonly NormalizedRecord[]): Promise<DispatchCounts> {
  const ruled = new Set<string>();
  for (const { type } of BATCH_DETECTORS) if ((await deps.rules.rules(type)).length > 0) ruled.add(type);
  if (ruled.size === 0) return { candidates: 0, matched: 0 };
  const watched = await watchedBy(deps.rules, [...ruled].filter((t) => EVENT_DEFINITION_BY_TYPE.get(t)?.declaration.scope === 'addresses'));
  // Only candidates some rule could take are worth their reference lookups.
  return dispatch(deps, await withReferences(batchCandidates(records, watched, ruled), deps.references));
}
