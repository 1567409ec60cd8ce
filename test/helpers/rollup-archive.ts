/**
 * The archive the rollup and reduction properties run on (issue 23): the real archive (dynalite
 * manifest, s3rver objects, DuckDB) of scratch emulators, its clock mid-afternoon of day two (day
 * one in day files, day two's closed hours in hour files, the open hour in deltas). Shared by the
 * `webhook-rollups-*` files, which are split so their properties run in parallel workers; each file
 * has an archive of its own, and each run of a property ingests under symbols of its own.
 */
import fc from 'fast-check';
import { afterAll, beforeAll } from 'vitest';
import { ingestBatch } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { archiveReferences } from '#core/detect/archive-references.ts';
import type { PreviewDeps } from '#core/detect/scan.ts';
import { HOUR_MS } from '#core/detect/rollups.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { breadthStore, webhookStores } from '#shared/deps.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';

export const DAY = 86_400_000;
export const T0 = Date.parse('2026-09-01T00:00:00Z');
/** Day one closed (day files), day two open: hours before 13:00 folded into hour files, 13:xx still deltas. */
export const NOW = T0 + DAY + 13 * HOUR_MS + 20 * 60_000;
const GRID_MS = Math.floor((NOW - T0) / 160 / 60_000) * 60_000;
export const USERS = Array.from({ length: 4 }, (_, i) => `0x${String(i + 1).padStart(40, 'b')}`);
/** The wallets an estimate asks about: not all of them, so the per-wallet filter is checked too. */
export const WATCHED = USERS.slice(0, 2);

export const rowArb = fc.record({
  // Instants on a coarse grid (160 of them over the 37 hours), so several rows of one wallet share an instant and collapse into one event.
  offset: fc.integer({ min: 0, max: 159 }).map((i) => i * GRID_MS),
  user: fc.integer({ min: 0, max: USERS.length - 1 }),
  dollars: fc.integer({ min: 1, max: 200_000 }),
  cents: fc.integer({ min: 0, max: 99 }),
  lots: fc.integer({ min: 1, max: 4_000 }),
  side: fc.constantFrom<'A' | 'B'>('A', 'B'),
});
export type Row = { offset: number; user: number; dollars: number; cents: number; lots: number; side: 'A' | 'B' };

/**
 * Starts the file's emulators before its tests (stopped after them) and answers the archive on
 * them, read with the clock at `NOW`, with a counter for symbols and callers no other run has used.
 */
export function rollupArchive() {
  let env: ScratchEmulators | undefined;
  let deps: ArchiveDeps | undefined;
  let runs = 0;
  let accounts = 0;
  beforeAll(async () => {
    env = await startScratchEmulators();
    deps = { ...archiveDeps(), clock: { now: () => NOW } };
  });
  afterAll(async () => {
    await env?.stop();
  });
  const archive = () => deps!;
  /** Ingests records in two batches, as two deliveries of the ingest queue would, leaving them in deltas. */
  async function ingestUncompacted(records: readonly NormalizedRecord[]): Promise<void> {
    const half = Math.ceil(records.length / 2);
    for (const part of [records.slice(0, half), records.slice(half)]) {
      if (part.length) await ingestBatch(archive(), 'normalized', part.map((r) => JSON.stringify(r)).join('\n'));
    }
  }
  /** Compacts a dataset's family as the clock says (deltas into hour and day files, and their rollups). */
  async function compact(dataset: NormalizedRecord['dataset'], family: NormalizedRecord['family']): Promise<void> {
    await compactArchive(archive(), { datasets: [dataset], families: [family] });
  }
  return {
    archive,
    /** A number no other run of this file has had (symbols and trade ids are made from it). */
    nextRun: () => runs++,
    /** Ingests records in two batches and compacts the dataset's family as the clock says. */
    async ingestRecords(records: readonly NormalizedRecord[], dataset: NormalizedRecord['dataset'], family: NormalizedRecord['family']): Promise<void> {
      await ingestUncompacted(records);
      await compact(dataset, family);
    },
    ingestUncompacted,
    compact,
    /**
     * A property whose `cases` cases share one compaction: fast-check draws them together, `ingest`
     * ingests each (under symbols of its own, left in deltas), the family is compacted once, and
     * `check` checks each case on its own symbols. A compaction per case (each writes the family's
     * rollup and reduction hours again) cost as much as the case's checks; the cases and their
     * checks are the ones a run per case had. A failure reports the cases as drawn, not shrunk:
     * each shrinking step would ingest and compact every case again.
     */
    async assertCases<T, P>(
      arbitrary: fc.Arbitrary<T>,
      cases: number,
      target: { dataset: NormalizedRecord['dataset']; family: NormalizedRecord['family'] },
      ingest: (value: T) => Promise<P>,
      check: (ingested: P) => Promise<void>,
    ): Promise<void> {
      await fc.assert(
        fc.asyncProperty(fc.array(arbitrary, { minLength: cases, maxLength: cases }), async (values) => {
          const ingested: P[] = [];
          for (const value of values) ingested.push(await ingest(value));
          await compact(target.dataset, target.family);
          for (const one of ingested) await check(one);
        }),
        { numRuns: 1, endOnFailure: true },
      );
    },
    previewDeps(): PreviewDeps {
      return { store: webhookStores(), clock: { now: () => NOW }, archive: archive(), breadth: breadthStore(), references: archiveReferences(archive()) };
    },
    /** A caller watching WATCHED. */
    async caller() {
      const id = `acct-rollup-${accounts++}`;
      for (const address of WATCHED) await webhookStores().rules.addAddress(id, { address, label: '', createdAt: new Date(NOW).toISOString() });
      return { id, plan: 'free' as const };
    },
  };
}

export type RollupArchive = ReturnType<typeof rollupArchive>;
