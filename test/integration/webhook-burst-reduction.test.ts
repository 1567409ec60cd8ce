/**
 * market.liquidation_burst's estimate reads liquidation_minutes_1h (issue 23): the minute sums kept
 * at compaction, read back across day files, hour files and the open hour's deltas, give the
 * detector the events it finds in the raw fills, for every window and threshold; the estimate
 * counts those per day exactly and replays the percent modes, which the reduction cannot answer.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestBatch } from '../../functions/core/archive/ingest.ts';
import { compactArchive } from '../../functions/core/archive/compact.ts';
import { liquidationBursts, type BurstParams } from '../../functions/core/detect/minute-detectors.ts';
import liquidationBurst from '../../functions/core/events/market.liquidation_burst.ts';
import { archiveReferences } from '../../functions/core/detect/archive-references.ts';
import { estimateWithCost, type PreviewDeps } from '../../functions/core/detect/preview.ts';
import { readDetectorInput, HOUR_MS } from '../../functions/core/detect/rollups.ts';
import type { Candidate } from '../../functions/core/detect/candidate.ts';
import { startScratchEmulators, type ScratchEmulators } from '../../functions/local/scratch-emulators.ts';
import { archiveDeps } from '../../functions/shared/archive-deps.ts';
import { breadthStore, webhookStores } from '../../functions/shared/deps.ts';
import type { ArchiveDeps } from '../../functions/ports/archive.ts';
import type { LiquidationRecord } from '../../schemas/datasets.ts';

let env: ScratchEmulators;
let archive: ArchiveDeps;
const DAY = 86_400_000;
const T0 = Date.parse('2026-09-01T00:00:00Z');
/** Day one closed (day files), day two open: hours before 13:00 folded into hour files, 13:xx still deltas. */
const NOW = T0 + DAY + 13 * HOUR_MS + 20 * 60_000;
const USD = (window_s: number, threshold_usd: number): BurstParams => ({ window_s, threshold_mode: 'usd', threshold_usd, threshold_pct: 1 });

beforeAll(async () => {
  env = await startScratchEmulators();
  archive = { ...archiveDeps(), clock: { now: () => NOW } };
});
afterAll(async () => { await env?.stop(); });

// Fills cluster around a few instants (so windows fill and empty), some on minute and hour edges; whole dollars, so sums are exact.
const fillsArb = fc.array(fc.record({
  center: fc.constantFrom(0, 1, 23.99, 24, 25.5, 36, 37.2).map((h) => Math.round(h * HOUR_MS)),
  offset: fc.oneof(fc.integer({ min: -1_800, max: 1_800 }).map((s) => s * 1_000), fc.constantFrom(0, 60_000, -60_000, 1)),
  dollars: fc.integer({ min: 1, max: 900 }).map((d) => d * 1_000),
  lots: fc.integer({ min: 1, max: 3 }),
}), { minLength: 10, maxLength: 120 });

let run = 0;
async function ingest(fills: readonly { center: number; offset: number; dollars: number; lots: number }[]): Promise<{ symbol: string; records: LiquidationRecord[] }> {
  const symbol = `LB${run}`;
  const first = run++ * 10_000;
  const records = fills
    .map((f, i) => ({
      dataset: 'liquidations', family: 'perpx', symbol, ts: Math.min(NOW - 1, Math.max(T0, T0 + f.center + f.offset)), trade_id: first + i,
      liquidated_user: `0x${String(i % 3 + 1).padStart(40, 'c')}`, price: String(f.dollars), size: String(f.lots), side: 'A',
    }) as LiquidationRecord);
  const half = Math.ceil(records.length / 2);
  for (const part of [records.slice(0, half), records.slice(half)]) {
    if (part.length) await ingestBatch(archive, 'normalized', part.map((r) => JSON.stringify(r)).join('\n'));
  }
  await compactArchive(archive, { datasets: ['liquidations'], families: ['perpx'] });
  return { symbol, records };
}

const reduced = liquidationBurst.preview.estimate.reduced;
const shape = (found: readonly Candidate[]) => found.map((c) => `${c.key}|${String(c.metrics.notional_usd)}|${String(c.metrics.liquidation_count)}`).sort();

function previewDeps(): PreviewDeps {
  return { store: webhookStores(), clock: { now: () => NOW }, archive, breadth: breadthStore(), references: archiveReferences(archive) };
}
const caller = { id: 'acct-burst', plan: 'pro' as const };

describe('the liquidation minutes reduction', () => {
  // First, while the archive is empty: a replay judges every minute of every market against its references.
  it('does not answer the percent modes, which are replayed', async () => {
    const pct = await estimateWithCost(previewDeps(), caller, { event_type: 'market.liquidation_burst', config: { params: { threshold_mode: 'pct_oi', threshold_pct: 1 } }, lookback_days: 1 });
    expect(pct.basis.mode).toBe('replayed');
    const usd = await estimateWithCost(previewDeps(), caller, { event_type: 'market.liquidation_burst', config: { params: { threshold_usd: 50_000 } }, lookback_days: 1 });
    expect(usd.basis.mode).toBe('exact');
  });

  it('gives market.liquidation_burst the events it finds in the raw fills, for every window and threshold, reading a row a market-minute', async () => {
    await fc.assert(fc.asyncProperty(fillsArb, async (fills) => {
      const { symbol, records } = await ingest(fills);
      const read = await readDetectorInput(archive, reduced, ['perpx'], [symbol], reduced.since(T0), NOW);
      expect(read.coveredHours).toBeGreaterThan(0);
      expect(read.rows.length).toBeLessThanOrEqual(records.length);
      const params = [60, 300, 900, 3600].flatMap((w) => [USD(w, 1_000), USD(w, 1_000_000), USD(w, 2_500_000)]);
      expect(shape(await reduced.detect(read.rows, T0, NOW, archive, params))).toEqual(shape(liquidationBursts(records, T0, NOW, params, () => undefined)));
    }), { numRuns: 8 });
  });

  it('gives the estimate the per-day counts of the raw replay, exact', async () => {
    const { symbol, records } = await ingest(fc.sample(fillsArb, { numRuns: 1, seed: 11 })[0]!);
    const raw = liquidationBursts(records, T0, NOW, [USD(300, 1_000_000)], () => undefined);
    const answer = await estimateWithCost(previewDeps(), caller, { event_type: 'market.liquidation_burst', config: { symbols: [symbol], params: { window_s: 300, threshold_usd: 1_000_000 } }, lookback_days: 2 });
    expect(answer.per_day.map((d) => d.count)).toEqual([0, 1].map((d) => raw.filter((c) => Math.floor((c.occurredAt - T0) / DAY) === d).length));
    expect(answer.basis.mode).toBe('exact');
    expect(answer.basis.note).toMatch(/hourly reduction/);
    expect(answer.rowsScanned).toBeLessThanOrEqual(records.length);
  });
});
