import type { BreadthFamily, BreadthSnapshot } from '../core/breadth/compute.ts';

export interface BreadthStore {
  /** Writes the snapshot of its family and minute; writing the same minute again replaces it. */
  put(snapshot: BreadthSnapshot): Promise<void>;
  /** Writes many snapshots (a backfilled day) in as few requests as the store allows. */
  putMany(snapshots: readonly BreadthSnapshot[]): Promise<void>;
  latest(family: BreadthFamily): Promise<BreadthSnapshot | undefined>;
  /** Snapshots with calculated_at in [from, to], oldest first, at most `limit`; `more` when others follow. */
  range(family: BreadthFamily, from: number, to: number, limit: number): Promise<{ snapshots: BreadthSnapshot[]; more: boolean }>;
  /** The first or the last snapshot with calculated_at in [from, to]. */
  edge(family: BreadthFamily, from: number, to: number, which: 'first' | 'last'): Promise<BreadthSnapshot | undefined>;
}
