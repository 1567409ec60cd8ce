/**
 * What a compaction step works on: a slot (an hour or a day of one partition) and its time range,
 * the run's report, and the timings every step keeps (the lease, the grace before deletion).
 */
import { DAY_MS } from './layout.ts';

/** Replaced objects stay readable this long after they leave the manifest. */
export const DELETION_GRACE_MS = 10 * 60_000;

export const LEASE_MS = 5 * 60_000;

export const HOUR_MS = 3_600_000;

export interface CompactionReport {
  partitions: number;
  filesWritten: number;
  /** Ingested rows rewritten by compaction (into delta compactions, hour files and day files). */
  rowsWritten: number;
  /** Rows of derived datasets written (1-minute candles). */
  derivedRowsWritten: number;
  deltasRetired: number;
  objectsDeleted: number;
  skippedLeased: number;
  /** Hour or day folds left for a later run, the fold budget being spent. */
  foldsDeferred: number;
  /** Partitions with work left for the next run, the run budget being spent. */
  partitionsDeferred: number;
}

/** Where a compaction writes: a symbol-hour of the open day, or a symbol-day. */
export type Slot = { tier: 'hour'; hour: number } | { tier: 'day' };

export const quoted = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(', ');

export const hourOf = (ts: number) => Math.floor((ts % DAY_MS) / HOUR_MS);

export const dayStart = (day: string) => Date.parse(`${day}T00:00:00Z`);

export const slotRange = (day: string, slot: Slot): [number, number] =>
  slot.tier === 'day' ? [dayStart(day), dayStart(day) + DAY_MS - 1] : [dayStart(day) + slot.hour * HOUR_MS, dayStart(day) + (slot.hour + 1) * HOUR_MS - 1];

export const emptyReport = (): CompactionReport => ({
  partitions: 0,
  filesWritten: 0,
  rowsWritten: 0,
  derivedRowsWritten: 0,
  deltasRetired: 0,
  objectsDeleted: 0,
  skippedLeased: 0,
  foldsDeferred: 0,
  partitionsDeferred: 0,
});
