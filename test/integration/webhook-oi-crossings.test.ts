/**
 * market.oi_delta's estimate reads crossing histograms kept at compaction (oi_crossings, issue 23):
 * on generated open-interest series ingested in two batches and compacted as the schedule leaves
 * them mid-afternoon of day two (day one in a day file, day two's closed hours in hour files, the
 * open hour in deltas), the crossings the histograms give for every window, at powers of ten and
 * at another bucket edge, equal per day what the detector finds in the raw rows; the estimate's
 * per-day counts and ladder equal a raw replay's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oiDeltas } from '#core/events/market.oi_delta.ts';
import { matches } from '#core/detect/match.ts';
import { estimateWithCost } from '#core/detect/preview.ts';
import { rederiveDays } from '#core/archive/compact-derived.ts';
import { bucketEdge, readOiCrossings, HOUR_MS } from '#core/detect/rollups.ts';
import { EVENT_TYPE_BY_NAME } from '#core/webhooks/catalog.ts';
import { normalizeConfig } from '#core/webhooks/filters.ts';
import type { OpenInterestRecord } from '#schemas/datasets.ts';
import { DAY, NOW, T0, rollupArchive } from '../helpers/rollup-archive.ts';

const { archive, nextRun, ingestRecords, ingestUncompacted, assertCases, previewDeps } = rollupArchive();
const STEP = 60_000;
const WINDOWS = [300, 900, 3600];
const decl = EVENT_TYPE_BY_NAME.get('market.oi_delta')!;

/**
 * A series a minute, as the venues publish open interest, with minutes skipped (never two in a row:
 * live detection reads its window plus five minutes, so it finds a base wherever the archive has
 * one): small moves, now and then a jump, wandering across the 100,000 USD floor.
 */
const seriesArb = fc.record({
  start: fc.integer({ min: 60_000, max: 3_000_000 }),
  moves: fc
    .array(
      fc.oneof(
        { weight: 8, arbitrary: fc.integer({ min: -12, max: 12 }) },
        { weight: 1, arbitrary: fc.constantFrom(-150, -100, 100, 120, 300) },
        { weight: 1, arbitrary: fc.constant(null) },
      ),
      { minLength: (NOW - T0) / STEP, maxLength: (NOW - T0) / STEP },
    )
    .map((moves) => moves.map((m, i) => (m === null && moves[i - 1] === null ? 0 : m))),
});

/** Ingests a series under a symbol of its own (and compacts, unless the caller compacts several series at once). */
async function ingest(
  series: { start: number; moves: (number | null)[] },
  { compact = true } = {},
): Promise<{ symbol: string; records: OpenInterestRecord[] }> {
  const symbol = `OI${nextRun()}`;
  let oi = series.start;
  const records = series.moves.flatMap((move, i) => {
    if (move === null) return [];
    oi = Math.max(1, Math.round(oi * (1 + move / 1_000)));
    return [
      {
        dataset: 'open_interest',
        family: 'perpx',
        symbol,
        ts: T0 + i * STEP,
        open_interest: String(oi),
        mark_price: '1',
        oracle_price: '1',
      } as OpenInterestRecord,
    ];
  });
  await (compact ? ingestRecords(records, 'open_interest', 'perpx') : ingestUncompacted(records));
  return { symbol, records };
}

/** The detector's events over the raw rows that the matcher keeps (scope and the cost floor), per day. */
function rawPerDay(records: readonly OpenInterestRecord[], symbol: string, windowS: number, threshold: number, hours?: ReadonlySet<number>): number[] {
  const config = normalizeConfig(decl, { symbols: [symbol], params: { window_s: windowS, threshold_pct: threshold } }, new Set());
  const events = oiDeltas(records, T0, NOW, [{ window_s: windowS, threshold_pct: threshold }]).filter(
    (c) => matches(decl, config, c, new Set()) && (!hours || hours.has(Math.floor(c.occurredAt / HOUR_MS) * HOUR_MS)),
  );
  return [0, 1].map((d) => events.filter((c) => Math.floor((c.occurredAt - T0) / DAY) === d).length);
}

const caller = { id: 'acct-oi', plan: 'pro' as const };

describe('the oi_crossings rollup', () => {
  it('gives, for every window and threshold edge, the crossings per day the detector finds in the raw rows of the hours it covers', async () => {
    // Four cases on one compaction (see assertCases), each checked on its own symbol.
    await assertCases(
      seriesArb,
      4,
      { dataset: 'open_interest', family: 'perpx' },
      (series) => ingest(series, { compact: false }),
      async ({ symbol, records }) => {
        for (const windowS of WINDOWS) {
          const read = await readOiCrossings(archive(), ['perpx'], [symbol], windowS, T0, NOW);
          const covered = read.covered.get('perpx')!;
          // Every closed hour is covered; the open hour is not.
          expect(covered.has(T0 + DAY + 12 * HOUR_MS)).toBe(true);
          expect(covered.has(T0 + DAY + 13 * HOUR_MS)).toBe(false);
          // Thresholds at bucket edges, by bucket (an edge's own bucket is not always bucketOf(edge) in floating point).
          for (const bucket of [-16, 0, 6, 16, 17]) {
            const threshold = bucketEdge(bucket);
            const fromCells = [0, 1].map((d) =>
              read.cells
                .filter((c) => Math.floor((c.ts - T0) / DAY) === d && c.bucket >= bucket)
                .reduce((n, c) => n + (c.kind === 'upper' ? c.events : c.kind === 'lower' ? -c.events : 0), 0),
            );
            expect(fromCells, `window ${windowS}, threshold ${threshold}`).toEqual(rawPerDay(records, symbol, windowS, threshold, covered));
          }
        }
      },
    );
  });

  it("gives the estimate the raw replay's per-day counts and ladder (the open hour replayed), exact at a power of ten", async () => {
    const { symbol, records } = await ingest(fc.sample(seriesArb, { numRuns: 1, seed: 7 })[0]!);
    for (const [windowS, threshold] of [
      [900, 10],
      [300, 1],
    ] as const) {
      const answer = await estimateWithCost(previewDeps(), caller, {
        event_type: 'market.oi_delta',
        config: { symbols: [symbol], params: { window_s: windowS, threshold_pct: threshold } },
        lookback_days: 2,
      });
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

  it('is derived again for days compacted before it existed (npm run derive:backfill), equal to what compaction derived', async () => {
    const { symbol } = await ingest(fc.sample(seriesArb, { numRuns: 1, seed: 3 })[0]!);
    const day = '2026-09-01';
    // In a fixed order: the query's groups come back in any.
    const cells = async () => (await readOiCrossings(archive(), ['perpx'], [symbol], 900, T0, T0 + DAY)).cells.map((c) => JSON.stringify(c)).sort();
    const derived = await cells();
    expect(derived.length).toBeGreaterThan(0);
    // The day as an archive compacted before the rollup has it: no histogram file.
    for (const file of await archive().manifest.compactedFilesOfDay('oi_crossings', 'perpx', day)) await archive().manifest.deleteFile(file);
    expect(await cells()).toEqual([]);
    const report = await rederiveDays(archive(), { datasets: ['oi_crossings'], families: ['perpx'], from: day, to: '2026-09-02' });
    // Day two is still open: left to its day fold.
    expect(report.partitions).toBe(1);
    expect(await cells()).toEqual(derived);
  });
});
