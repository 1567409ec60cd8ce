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
import { groupBy } from '../group.ts';

/**
 * The candidates of the given types (default: every batch-detected type) that a batch of records
 * holds. At the venue's rate almost every row is an unwatched account's (12,300 order statuses a
 * second for BTC): an account type's rows are cut to the watched addresses' by one set lookup
 * each before its detector runs, and a type with nothing watched is not run at all.
 */
export function batchCandidates(records: readonly NormalizedRecord[], watched: ReadonlySet<string>, types?: ReadonlySet<string>): Candidate[] {
  const byDataset = groupBy(records, (r) => r.dataset) as Map<IngestedDataset, NormalizedRecord[]>;
  return BATCH_DETECTORS.flatMap(({ type, detection }) => {
    const rows = byDataset.get(detection.reads);
    if (!rows || (types && !types.has(type))) return [];
    const column = detection.addressColumn;
    if (EVENT_DEFINITION_BY_TYPE.get(type)?.declaration.scope !== 'addresses' || !column) return detection.detect(rows, watched);
    if (watched.size === 0) return [];
    const mine = rows.filter((row: Readonly<Record<string, unknown>>) => {
      const address = row[column];
      return typeof address === 'string' && watched.has(address);
    });
    return mine.length > 0 ? detection.detect(mine, watched) : [];
  });
}

/** The detectors that run on one ingested batch: detect (types some rule uses only), enrich, match, queue. */
export async function detectInBatch(deps: DetectDeps, records: readonly NormalizedRecord[]): Promise<DispatchCounts> {
  const ruled = new Set<string>();
  for (const { type } of BATCH_DETECTORS) if ((await deps.rules.rules(type)).length > 0) ruled.add(type);
  if (ruled.size === 0) return { candidates: 0, matched: 0 };
  const watched = await watchedBy(
    deps.rules,
    [...ruled].filter((t) => EVENT_DEFINITION_BY_TYPE.get(t)?.declaration.scope === 'addresses'),
  );
  // Only candidates some rule could take are worth their reference lookups.
  return dispatch(deps, await withReferences(batchCandidates(records, watched, ruled), deps.references));
}
