/**
 * The day-at-a-time breadth backfill (one registry read and one candle query per UTC day) writes,
 * at every minute cutoff, exactly the snapshot the minute job computes there, across a session
 * boundary and for both families.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotMinute, snapshotRange } from '#core/breadth/session.ts';
import { ingestBatch } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { createDemoMarket } from '#local/demo/market.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { breadthStore } from '#shared/deps.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import type { BreadthSnapshot } from '#core/breadth/compute.ts';
import type { BreadthStore } from '#ports/breadth.ts';

const MIN = 60_000;
// Five minutes either side of a session boundary (midnight UTC): each cutoff costs the minute path a query.
const START = Date.parse('2026-11-01T23:55:00Z');
const END = Date.parse('2026-11-02T00:05:00Z');
let env: ScratchEmulators;
beforeAll(async () => {
  env = await startScratchEmulators();
  const deps = archiveDeps();
  const market = createDemoMarket({ seed: 11, startMs: START - 20 * MIN, intensity: 0.4 });
  // Breadth reads the registry and the 1-minute candles (derived from trades): only those are written.
  const batch = (until: number) =>
    market
      .advance(until)
      .filter((r) => r.dataset === 'trades' || r.dataset === 'instruments')
      .map((r) => JSON.stringify(r))
      .join('\n');
  // Two batches, the first compacted, so the candles come from candle files and from trade deltas.
  await ingestBatch(deps, 'normalized', batch(START + 5 * MIN));
  await compactArchive(deps, { families: ['perpx', 'hip3'], datasets: ['trades'] });
  await ingestBatch(deps, 'normalized', batch(END + MIN));
});
afterAll(async () => {
  await env?.stop();
});

/** A store that keeps what it is given, so the two paths' snapshots can be compared. */
function keeping(): BreadthStore & { kept: BreadthSnapshot[] } {
  const kept: BreadthSnapshot[] = [];
  const real = breadthStore();
  return {
    ...real,
    kept,
    put: async (s) => {
      kept.push(s);
    },
    putMany: async (list) => {
      kept.push(...list);
    },
  };
}

describe('breadth backfill', () => {
  it.each(['perpx', 'hip3'] as const)("writes the minute job's snapshot at every cutoff (%s)", async (family) => {
    // Act
    const ranged = keeping();
    const days: number[] = [];
    const written = await snapshotRange({ ...archiveDeps(), breadth: ranged }, family, START, END, ({ day }) => days.push(day));
    const minute = keeping();
    for (let cutoff = START; cutoff <= END; cutoff += MIN) await snapshotMinute({ ...archiveDeps(), breadth: minute }, family, cutoff);
    // Assess
    expect(written).toBe((END - START) / MIN + 1);
    expect(days).toEqual([Date.parse('2026-11-01T00:00:00Z'), Date.parse('2026-11-02T00:00:00Z')]);
    expect(ranged.kept).toEqual(minute.kept);
    expect(ranged.kept.some((s) => s.counts.eligible > 0)).toBe(true);
    // The session restarts at midnight: nothing has closed at its first instant.
    expect(ranged.kept.find((s) => s.calculated_at === '2026-11-02T00:00:00.000Z')!.counts.eligible).toBe(0);
  });

  it('stores a backfilled range in the breadth table, readable as history', async () => {
    const deps = { ...archiveDeps(), breadth: breadthStore() };
    await snapshotRange(deps, 'perpx', START, START + 9 * MIN);
    const { snapshots, more } = await deps.breadth.range('perpx', START, START + 9 * MIN, 100);
    expect(snapshots.map((s) => s.calculated_at)).toEqual(Array.from({ length: 10 }, (_, i) => new Date(START + i * MIN).toISOString()));
    expect(more).toBe(false);
  });
});
