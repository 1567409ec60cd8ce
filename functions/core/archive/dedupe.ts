/**
 * How reads and compaction keep one row per identity of a dataset: the first row (by time) of each
 * unique key, and, for a dataset whose ids may be derived from content (`derivedIds` in the
 * registry: node_trades' trade ids), not a derived-id row when a row with a venue id is equal to it
 * on `sameAs` (the same trade carried by a fills format). Every reader and the compaction merge
 * take their QUALIFY clause from here, so they agree on what a duplicate is.
 */
import { DATASETS, type Dataset, type DatasetDef } from '#schemas/datasets.ts';

const quoted = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(', ');

/**
 * The QUALIFY clause over rows of `dataset`; `scope` columns lead every partition (compaction
 * merges a family's rows: `family`).
 */
export function dedupeClause(dataset: Dataset, scope: readonly string[] = []): string {
  const def: DatasetDef = DATASETS[dataset];
  const first = `row_number() OVER (PARTITION BY ${quoted([...scope, ...def.uniqueBy])} ORDER BY ts) = 1`;
  if (!def.derivedIds) return `QUALIFY ${first}`;
  const id = `"${def.uniqueBy[0]}"`;
  // Every row sharing `sameAs` with a derived-id row, the derived one included: when the smallest id
  // among them is a venue's, the derived row is the venue row's twin. An integer literal: the
  // bound is a constant of the registry, and a parameter cannot be named in every caller's SQL.
  const from = Math.trunc(def.derivedIds.from);
  return `QUALIFY ${first} AND (${id} < ${from} OR min(${id}) OVER (PARTITION BY ${quoted([...scope, ...def.derivedIds.sameAs])}) >= ${from})`;
}
