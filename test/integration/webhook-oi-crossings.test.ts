/**
 * market.oi_delta's estimate reads crossing histograms kept at compaction (oi_crossings, issue 23):
 * on generated open-interest series ingested in two batches and compacted as the schedule leaves
 * them mid-afternoon of day two (day one in a day file, day two's closed hours in hour files, the
 * open hour in deltas), the crossings the histograms give for every window, at powers of ten and
 * at another bucket edge, equal per day what the detector finds in the raw rows; the estimate's
 * per-day counts and ladder equal a raw replay's.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestBatch } from '../../functions/core/archive/ingest.ts';
import { compactArchive } from '../../functions/core/archive/compact.ts';
import { oiDeltas } from '../../functions/core/detect/minute-detectors.ts';
import { matches } from '../../functions/core/detect/match.ts';
import { archiveReferences } from '../../functions/core/detect/archive-references.ts';
import { estimateWithCost, type PreviewDeps } from '../../functions/core/detect/preview.ts';
import { bucketEdge, readOiCrossings, HOUR_MS } from '../../functions/core/detect/rollups.ts';
import { EVENT_TYPE_BY_NAME } from '../../functions/core/webhooks/catalog.ts';
import { normalizeConfig } from '../../functions/core/webhooks/filters.ts';
import { startScratchEmulators, type ScratchEmulators } from '../../functions/local/scratch-emulators.ts';
import { archiveDeps } from '../../functions/shared/archive-deps.ts';
import { breadthStore, webhookStores } from '../../functions/shared/deps.ts';
import type { ArchiveDeps } from '../../functions/ports/archive.ts';
import type { OpenInterestRecord } from '../../schemas/datasets.ts';

let env: ScratchEmulators;
let archive: ArchiveDeps;
const DAY = 86_400_000;
const T0 = Date.parse('2026-09-01T00:00:00Z');
/** Day one closed (a day file), day two open: hours before 13:00 folded into hour files, 13:xx still deltas. */
const NOW = T0 + DAY + 13 * HOUR_MS + 20 * 60_000;
const STEP = 60_000;
const WINDOWS = [300, 900, 3600];
const decl = EVENT_TYPE_BY_NAME.get('market.oi_delta')!;

beforeAll(async () => {
  env = await startScratchEmulators();
  archive = { ...archiveDeps(), clock: { now: () => NOW } };
});
afterAll(async () => { await env?.stop(); });

/**
 * A series a minute, as the venues publish open interest, with minutes skipped (never two in a row:
 * live detection reads its window plus five minutes, so it finds a base wherever the archive has
 * one): small moves, now and then a jump, wandering across the 100,000 USD floor.
 */
const seriesArb = fc.record({
  start: fc.integer({ min: 60_000, max: 3_000_000 }),
  moves: fc.array(fc.oneof({ weight: 8, arbitrary: fc.integer({ min: -12, max: 12 }) }, { weight: 1, arbitrary: fc.constantFrom(-150, -100, 100, 120, 300) }, { weight: 1, arbitrary: fc.constant(null) }),
    { minLength: (NOW - T0) / STEP, maxLength: (NOW - T0) / STEP }).map((moves) => moves.map((m, i) => (m === null && moves[i - 1] === null ? 0 : m))),
});

let run = 0;
async function ingest(series: { start: number; moves: (number | null)[] }): Promise<{ symbol: string; records: OpenInterestRecord[] }> {
  const symbol = `OI${run++}`;
  let oi = series.start;
  const records = series.moves.flatMap((move, i) => {
    if (move === null) return [];
    oi = Math.max(1, Math.round(oi * (1 + move / 1_000)));
    return [{ dataset: 'open_interest', family: 'perpx', symbol, ts: T0 + i * STEP, open_interest: String(oi), mark_price: '1', oracle_price: '1' } as OpenInterestRecord];
  });
  const half = Math.ceil(records.length / 2);
  for (const part of [records.slice(0, half), records.slice(half)]) {
    if (part.length) await ingestBatch(archive, 'normalized', part.map((r) => JSON.stringify(r)).join('\n'));
  }
  await compactArchive(archive, { datasets: ['open_interest'], families: ['perpx'] });
  return { symbol, records };
}

/** The detector's events over the raw rows that the matcher keeps (scope and the cost floor), per day. */
function rawPerDay(records: readonly OpenInterestRecord[], symbol: string, windowS: number, threshold: number, hours?: ReadonlySet<number>): number[] {
  const config = normalizeConfig(decl, { symbols: [symbol], params: { window_s: windowS, threshold_pct: threshold } }, new Set());
  const events = oiDeltas(records, T0, NOW, [{ window_s: windowS, threshold_pct: threshold }])
    .filter((c) => matches(decl, config, c, new Set()) && (!hours || hours.has(Math.floor(c.occurredAt / HOUR_MS) * HOUR_MS)));
  return [0, 1].map((d) => events.filter((c) => Math.floor((c.occurredAt - T0) / DAY) === d).length);
}

function previewDeps(): PreviewDeps {
  return { store: webhookStores(), clock: { now: () => NOW }, archive, breadth: breadthStore(), references: archiveReferences(archive) };
}
const caller = { id: 'acct-oi', plan: 'pro' as const };

describe('the oi_crossings rollup', () => {
  it('gives, for every window and threshold edge, the crossings per day the detector finds in the raw rows of the hours it covers', async () => {
    await fc.assert(fc.asyncProperty(seriesArb, async (series) => {
      const { symbol, records } = await ingest(series);
      for (const windowS of WINDOWS) {
        const read = await readOiCrossings(archive, ['perpx'], [symbol], windowS, T0, NOW);
        const covered = read.covered.get('perpx')!;
        // Every closed hour is covered; the open hour is not.
        expect(covered.has(T0 + DAY + 12 * HOUR_MS)).toBe(true);
        expect(covered.has(T0 + DAY + 13 * HOUR_MS)).toBe(false);
        // Thresholds at bucket edges, by bucket (an edge's own bucket is not always bucketOf(edge) in floating point).
        for (const bucket of [-16, 0, 6, 16, 17]) {
          const threshold = bucketEdge(bucket);
          const fromCells = [0, 1].map((d) => read.cells
            .filter((c) => Math.floor((c.ts - T0) / DAY) === d && c.bucket >= bucket)
            .reduce((n, c) => n + (c.kind === 'upper' ? c.events : c.kind === 'lower' ? -c.events : 0), 0));
          expect(fromCells, `window ${windowS}, threshold ${threshold}`).toEqual(rawPerDay(records, symbol, windowS, threshold, covered));
        }
      }
    }), { numRuns: 4, endOnFailure: true });
  });

  it('gives the estimate the raw replay\'s per-day counts and ladder (the open hour replayed), exact at a power of ten', async () => {
    const { symbol, records } = await ingest(fc.sample(seriesArb, { numRuns: 1, seed: 7 })[0]!);
    for (const [windowS, threshold] of [[900, 10], [300, 1]] as const) {
      const answer = await estimateWithCost(previewDeps(), caller, { event_type: 'market.oi_delta', config: { symbols: [symbol], params: { window_s: windowS, threshold_pct: threshold } }, lookback_days: 2 });
      expect(answer.per_day.map((d) => d.count)).toEqual(rawPerDay(records, symbol, windowS, threshold));
      expect(answer.basis.mode).toBe('exact');
      expect(answer.basis.note).toMatch(/crossings rollup/);
      expect(answer.rowsScanned).toBeLessThan(records.length);
      const days = (NOW - T0) / DAY;
      for (const rung of answer.ladder) {
        const edge = bucketEdge(Math.round(Math.log10(rung.value) * 16));
        expect(rung.per_day, `rung ${rung.value}`).toBe(Number((rawPerDay(records, symbol, windowS, edge).reduce((a, b) => a + b, 0) / days).toFixed(2)));
      }
    }
  });
});
