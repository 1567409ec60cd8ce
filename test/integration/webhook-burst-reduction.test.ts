/**
 * market.liquidation_burst's estimate reads liquidation_minutes_1h (issue 23): the minute sums kept
 * at compaction, read back across day files, hour files and the open hour's deltas, give the
 * detector the events it finds in the raw fills, for every window and threshold; the estimate
 * counts those per day exactly and replays the percent modes, which the reduction cannot answer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { liquidationBursts, type BurstParams } from '#core/events/market.liquidation_burst.ts';
import liquidationBurst from '#core/events/market.liquidation_burst.ts';
import { estimateWithCost } from '#core/detect/preview.ts';
import { detectorInput, readDetectorInput } from '#core/detect/reductions.ts';
import { HOUR_MS } from '#core/detect/rollups.ts';
import type { Candidate } from '#core/events/kit/candidate.ts';
import type { LiquidationRecord } from '#schemas/datasets.ts';
import { DAY, NOW, T0, rollupArchive } from '../helpers/rollup-archive.ts';

const { archive, nextRun, ingestRecords, ingestUncompacted, assertCases, previewDeps } = rollupArchive();
const USD = (window_s: number, threshold_usd: number): BurstParams => ({ window_s, threshold_mode: 'usd', threshold_usd, threshold_pct: 1 });

// Fills cluster around a few instants (so windows fill and empty), some on minute and hour edges; whole dollars, so sums are exact.
const fillsArb = fc.array(
  fc.record({
    center: fc.constantFrom(0, 1, 23.99, 24, 25.5, 36, 37.2).map((h) => Math.round(h * HOUR_MS)),
    offset: fc.oneof(
      fc.integer({ min: -1_800, max: 1_800 }).map((s) => s * 1_000),
      fc.constantFrom(0, 60_000, -60_000, 1),
    ),
    dollars: fc.integer({ min: 1, max: 900 }).map((d) => d * 1_000),
    lots: fc.integer({ min: 1, max: 3 }),
  }),
  { minLength: 10, maxLength: 120 },
);

/** Ingests fills under a symbol of their own (and compacts, unless the caller compacts several sets at once). */
async function ingest(
  fills: readonly { center: number; offset: number; dollars: number; lots: number }[],
  { compact = true } = {},
): Promise<{ symbol: string; records: LiquidationRecord[] }> {
  const run = nextRun();
  const symbol = `LB${run}`;
  const records = fills.map(
    (f, i) =>
      ({
        dataset: 'liquidations',
        family: 'perpx',
        symbol,
        ts: Math.min(NOW - 1, Math.max(T0, T0 + f.center + f.offset)),
        trade_id: run * 10_000 + i,
        liquidated_user: `0x${String((i % 3) + 1).padStart(40, 'c')}`,
        price: String(f.dollars),
        size: String(f.lots),
        side: 'A',
      }) as LiquidationRecord,
  );
  await (compact ? ingestRecords(records, 'liquidations', 'perpx') : ingestUncompacted(records));
  return { symbol, records };
}

const reduced = liquidationBurst.preview.estimate.reduced;
const shape = (found: readonly Candidate[]) => found.map((c) => `${c.key}|${String(c.metrics.notional_usd)}|${String(c.metrics.liquidation_count)}`).sort();

const caller = { id: 'acct-burst', plan: 'pro' as const };

describe('the liquidation minutes reduction', () => {
  // First, while the archive is empty: a replay judges every minute of every market against its references.
  it('does not answer the percent modes, which are replayed', async () => {
    const pct = await estimateWithCost(previewDeps(), caller, {
      event_type: 'market.liquidation_burst',
      config: { params: { threshold_mode: 'pct_oi', threshold_pct: 1 } },
      lookback_days: 1,
    });
    expect(pct.basis.mode).toBe('replayed');
    const usd = await estimateWithCost(previewDeps(), caller, {
      event_type: 'market.liquidation_burst',
      config: { params: { threshold_usd: 50_000 } },
      lookback_days: 1,
    });
    expect(usd.basis.mode).toBe('exact');
  });

  it('gives market.liquidation_burst the events it finds in the raw fills, for every window and threshold, reading a row a market-minute', async () => {
    // Eight cases on one compaction (see assertCases), each checked on its own symbol.
    await assertCases(
      fillsArb,
      8,
      { dataset: 'liquidations', family: 'perpx' },
      (fills) => ingest(fills, { compact: false }),
      async ({ symbol, records }) => {
        const read = await readDetectorInput(archive(), reduced, ['perpx'], [symbol], reduced.since(T0), NOW);
        expect(read.coveredHours).toBeGreaterThan(0);
        expect(read.rows.length).toBeLessThanOrEqual(records.length);
        const params = [60, 300, 900, 3600].flatMap((w) => [USD(w, 1_000), USD(w, 1_000_000), USD(w, 2_500_000)]);
        expect(shape(await reduced.detect(read.rows, T0, NOW, archive(), params))).toEqual(shape(liquidationBursts(records, T0, NOW, params, () => undefined)));
        // The estimate's SQL detector: the same occurrences, whole.
        const whole = (found: readonly Candidate[]) => found.map((c) => JSON.stringify([c.key, c.occurredAt, c.params, c.metrics, c.data])).sort();
        const input = await detectorInput(archive(), reduced, ['perpx'], [symbol], reduced.since(T0), NOW);
        expect(whole(await input.detect(T0, NOW, params))).toEqual(whole(liquidationBursts(records, T0, NOW, params, () => undefined)));
      },
    );
  });

  it('gives the estimate the per-day counts of the raw replay, exact', async () => {
    const { symbol, records } = await ingest(fc.sample(fillsArb, { numRuns: 1, seed: 11 })[0]!);
    const raw = liquidationBursts(records, T0, NOW, [USD(300, 1_000_000)], () => undefined);
    const answer = await estimateWithCost(previewDeps(), caller, {
      event_type: 'market.liquidation_burst',
      config: { symbols: [symbol], params: { window_s: 300, threshold_usd: 1_000_000 } },
      lookback_days: 2,
    });
    expect(answer.per_day.map((d) => d.count)).toEqual([0, 1].map((d) => raw.filter((c) => Math.floor((c.occurredAt - T0) / DAY) === d).length));
    expect(answer.basis.mode).toBe('exact');
    expect(answer.basis.note).toMatch(/hourly reduction/);
    expect(answer.rowsScanned).toBeLessThanOrEqual(records.length);
    // Counted in SQL (no condition) as when each burst is decoded and matched (a condition every burst meets).
    const matched = await estimateWithCost(previewDeps(), caller, {
      event_type: 'market.liquidation_burst',
      config: {
        symbols: [symbol],
        params: { window_s: 300, threshold_usd: 1_000_000 },
        conditions: [{ metric: 'liquidation_count', op: 'greater_than_or_equal', value: 1 }],
      },
      lookback_days: 2,
    });
    expect({ ...answer, rowsScanned: 0 }).toEqual({ ...matched, rowsScanned: 0 });
  });
});
