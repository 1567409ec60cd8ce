/**
 * Where a type's estimate reads instead of replaying its window (core/detect/rollups.ts reads
 * them): a rollup of its occurrences, or its detector's input kept reduced.
 */
import type { ArchiveDeps } from '#ports/archive.ts';
import type { SqlValue } from '#ports/sql.ts';
import type { IngestedDataset } from '#schemas/datasets.ts';
import type { ReductionDataset, RollupDataset } from '#core/archive/sql.ts';
import type { Candidate } from './candidate.ts';

/** The rollup an event type's estimate reads (a key of ROLLUPS). */
export type RollupSource = RollupDataset;

/** A relation over the archive as SQL text with its bound parameters. */
export interface Relation {
  sql: string;
  params: Record<string, SqlValue>;
}

/**
 * What a param-free minute type's estimate reads instead of replaying day by day: its detector's
 * input over the whole lookback in one pass, from a reduction (`{ reduction }`) or, when the
 * source's rows are the events already (one row each, few), from the source itself (`{ source }`).
 */
export interface ReducedSource {
  rows: { reduction: ReductionDataset } | { source: IngestedDataset };
  /** Whether the rule's `symbols` name the rows' symbols (not, for instance, a payment token). */
  bySymbol: boolean;
  /** Where the detector's input starts for a window starting at `from` (its lookback). */
  since: (from: number) => number;
  /**
   * The type's own detector over the rows read (oldest first, each with `family`): occurrences of
   * [from, to), for each of the param sets (a param-gated type's rule, then its lowest threshold).
   */
  detect: (
    rows: readonly Record<string, unknown>[],
    from: number,
    to: number,
    archive: ArchiveDeps,
    paramSets: readonly Record<string, unknown>[],
  ) => Promise<Candidate[]>;
  /**
   * The detector again in SQL, for types with many occurrences (a month of every market): over a
   * relation of the reduction's rows (`rows`), one row per occurrence of [$o_from, $o_to) for one
   * param set, with its time as `ts` and its estimate metric under the metric's name, and the
   * occurrence of each such row. The estimate then decodes occurrences, not rows, and for a rule
   * with no condition counts them in SQL. A property test holds it equal to `detect`.
   */
  occurrences?: {
    sql: (rows: string, params: Record<string, unknown>) => Relation;
    /** The occurrence of row `i` of the SQL's result columns (read by index: a month can hold 100,000 of them). */
    candidate: (columns: Record<string, unknown[]>, i: number, params: Record<string, unknown>) => Candidate;
  };
  /** What the basis note says beside (where the one pass differs from delivery). */
  note?: string;
  /** Whether the reduction answers a rule with these params (always, when absent); other rules are replayed. */
  answers?: (params: Record<string, unknown>) => boolean;
}
