/**
 * The param-free minute types' reductions on the real archive (issue 23; see
 * test/helpers/rollup-archive.ts): they read their detector's input over the whole lookback at
 * once, from a reduction (settled funding rates, the first PGA payments of each market-hour, oracle
 * moves) or, for settlements, from the source (one row per event). Their detector over what is read
 * equals the detector over the raw rows, and the estimate's per-day counts are the raw replay's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fundingFlips } from '#core/events/market.funding_flip.ts';
import { oracleJumps, oracleJumpsOfMoves } from '#core/events/oracle.jump.ts';
import { pgaPayments } from '#core/events/market.pga_payment.ts';
import { settlements } from '#core/events/hip4.settlement.ts';
import { windowSource } from '#core/archive/read.ts';
import fundingFlip from '#core/events/market.funding_flip.ts';
import marketPgaPayment from '#core/events/market.pga_payment.ts';
import oracleJump from '#core/events/oracle.jump.ts';
import { estimateWithCost } from '#core/detect/preview.ts';
import { detectorInput, readDetectorInput } from '#core/detect/reductions.ts';
import { HOUR_MS } from '#core/detect/rollups.ts';
import type { Candidate } from '#core/events/kit/candidate.ts';
import type { FundingRecord, OpenInterestRecord, SettlementRecord, TradeRecord } from '#schemas/datasets.ts';
import { DAY, NOW, T0, USERS, rollupArchive } from '../helpers/rollup-archive.ts';

const { archive, nextRun, ingestRecords, ingestUncompacted, assertCases, previewDeps, caller } = rollupArchive();

describe('the reductions', () => {
  const fundingArb = fc.uniqueArray(fc.record({ slot: fc.integer({ min: 0, max: (NOW - T0) / 600_000 - 1 }), rate: fc.integer({ min: -3, max: 3 }) }), {
    selector: (r) => r.slot,
    minLength: 30,
    maxLength: 150,
  });

  it('funding_rates_1h: market.funding_flip over the reduction equals it over the raw rates, and the estimate counts those flips per day', async () => {
    // Six cases on one compaction (see assertCases), each checked on its own symbol.
    await assertCases(
      fundingArb,
      6,
      { dataset: 'funding', family: 'perpx' },
      async (rows) => {
        const symbol = `RF${nextRun()}`;
        const records = rows.map(
          (r) => ({ dataset: 'funding', family: 'perpx', symbol, ts: T0 + r.slot * 600_000, funding_rate: (r.rate / 100_000).toFixed(5) }) as FundingRecord,
        );
        await ingestUncompacted(records);
        return { symbol, records };
      },
      async ({ symbol, records }) => {
        const read = await readDetectorInput(archive(), fundingFlip.preview.estimate.reduced, ['perpx'], [symbol], T0 - 2 * HOUR_MS, NOW);
        expect(read.coveredHours).toBeGreaterThan(0);
        // Only settled (on-the-hour) rates are kept.
        expect(read.rows.length).toBe(records.filter((r) => r.ts % HOUR_MS === 0).length);
        const flips = (found: readonly Candidate[]) => found.map((c) => c.key).sort();
        expect(flips(await fundingFlip.preview.estimate.reduced.detect(read.rows, T0, NOW))).toEqual(flips(fundingFlips(records, T0, NOW)));
        // The estimate's SQL detector: the same occurrences, whole.
        const whole = (found: readonly Candidate[]) => found.map((c) => JSON.stringify([c.key, c.occurredAt, c.metrics, c.data])).sort();
        const input = await detectorInput(archive(), fundingFlip.preview.estimate.reduced, ['perpx'], [symbol], T0 - 2 * HOUR_MS, NOW);
        expect(whole(await input.detect(T0, NOW, [{}]))).toEqual(whole(fundingFlips(records, T0, NOW)));
        const answer = await estimateWithCost(previewDeps(), await caller(), {
          event_type: 'market.funding_flip',
          config: { symbols: [symbol] },
          lookback_days: 2,
        });
        const raw = fundingFlips(records, T0, NOW);
        expect(answer.per_day.map((d) => d.count)).toEqual([0, 1].map((d) => raw.filter((c) => Math.floor((c.occurredAt - T0) / DAY) === d).length));
        expect(answer.basis.mode).toBe('exact');
        // Counted in SQL (no condition) as when each flip is decoded and matched (a condition every flip meets).
        const matched = await estimateWithCost(previewDeps(), await caller(), {
          event_type: 'market.funding_flip',
          config: { symbols: [symbol], conditions: [{ metric: 'flipped_to', op: 'in', value: ['positive', 'negative'] }] },
          lookback_days: 2,
        });
        expect({ ...answer, rowsScanned: 0 }).toEqual({ ...matched, rowsScanned: 0 });
      },
    );
  });

  // Payments crowd into a few hours, so a market-hour holds more than 50 of them and days pass their cap of 50.
  const pgaArb = fc.array(
    fc.record({
      hour: fc.constantFrom(2, 5, 26, 37),
      second: fc.integer({ min: 0, max: 1_199 }),
      gas: fc.option(fc.integer({ min: 50, max: 500 }), { freq: 5 }),
      market: fc.constantFrom(0, 0, 0, 1),
    }),
    { minLength: 150, maxLength: 320 },
  );

  it('pga_payments_1h: market.pga_payment over the reduction equals it over the raw trades (the first 50 a day), reading at most 50 a market-hour', async () => {
    await assertCases(
      pgaArb,
      6,
      { dataset: 'trades', family: 'perpx' },
      async (rows) => {
        const first = nextRun() * 10_000;
        const markets = [`PG${first}`, `PH${first}`];
        const records = rows.map(
          (r, i) =>
            ({
              dataset: 'trades',
              family: 'perpx',
              symbol: markets[r.market]!,
              ts: Math.min(NOW - 1, T0 + r.hour * HOUR_MS + r.second * 3_000),
              trade_id: first + i,
              side: 'B',
              price: '10',
              size: '1',
              user_address: USERS[0]!,
              priority_gas: r.gas === null ? null : (r.gas / 100).toFixed(2),
            }) as TradeRecord,
        );
        await ingestUncompacted(records);
        return { markets, records };
      },
      async ({ markets, records }) => {
        const reduced = marketPgaPayment.preview.estimate.reduced;
        // Other runs' markets share the family: compare on this run's.
        const read = await readDetectorInput(archive(), reduced, ['perpx'], undefined, T0, NOW);
        const mine = read.rows.filter((r) => markets.includes(String(r.symbol)));
        const raw = records
          .filter((r) => r.priority_gas !== null && Number(r.priority_gas) >= 1.5)
          .map((r) => ({ ts: r.ts, trade_id: r.trade_id, symbol: r.symbol, payer: r.user_address ?? null, amount: Number(r.priority_gas) }));
        const keys = (found: readonly Candidate[]) => found.map((c) => c.key).sort();
        expect(keys(await reduced.detect(mine, T0, NOW, archive()))).toEqual(keys(pgaPayments(raw, T0, NOW, null)));
        // At most 50 a market and hour are read.
        expect(mine.length).toBeLessThanOrEqual(raw.length);
        expect(mine.length).toBeLessThanOrEqual(50 * 2 * 4);
      },
    );
  });

  it('market.pga_payment and hip4.settlement estimates count per day what their detectors find in the raw rows', async () => {
    // PGA: every run so far shares perpx; the estimate sees all of them, so compare with all trades ingested in this file.
    const first = nextRun() * 10_000;
    const trades = fc.sample(pgaArb, { numRuns: 1, seed: 5 })[0]!.map(
      (r, i) =>
        ({
          dataset: 'trades',
          family: 'perpx',
          symbol: `PG${first}`,
          ts: Math.min(NOW - 1, T0 + r.hour * HOUR_MS + r.second * 3_000),
          trade_id: first + i,
          side: 'B',
          price: '10',
          size: '1',
          user_address: USERS[0]!,
          priority_gas: r.gas === null ? null : (r.gas / 100).toFixed(2),
        }) as TradeRecord,
    );
    await ingestRecords(trades, 'trades', 'perpx');
    const all = await readWindowRows('trades');
    const payments = all
      .filter((r) => r.priority_gas != null && Number(r.priority_gas) >= 1.5)
      .map((r) => ({ ts: Number(r.ts), trade_id: Number(r.trade_id), symbol: String(r.symbol), payer: null, amount: Number(r.priority_gas) }));
    const expected = pgaPayments(payments, T0, NOW, null);
    const pga = await estimateWithCost(previewDeps(), await caller(), { event_type: 'market.pga_payment', lookback_days: 2 });
    expect(pga.per_day.map((d) => d.count)).toEqual([0, 1].map((d) => expected.filter((c) => Math.floor((c.occurredAt - T0) / DAY) === d).length));
    expect(pga.basis.mode).toBe('exact');
    expect(pga.rowsScanned).toBeLessThan(all.length);

    const symbol = `#${first}`;
    const settled = fc
      .sample(fc.record({ offset: fc.integer({ min: 0, max: NOW - T0 - 1 }), oi: fc.integer({ min: 1, max: 100_000 }) }), { numRuns: 40, seed: 9 })
      .map(
        (r, i) =>
          ({
            dataset: 'settlements',
            family: 'hip4',
            symbol,
            ts: T0 + r.offset + i,
            resolution: i % 2 ? 'yes' : 'no',
            settle_price: '1',
            open_interest: String(r.oi),
          }) as SettlementRecord,
      );
    await ingestRecords(settled, 'settlements', 'hip4');
    const hip4 = await estimateWithCost(previewDeps(), await caller(), {
      event_type: 'hip4.settlement',
      config: { symbols: [symbol], min_notional_usd: 1_000 },
      lookback_days: 2,
    });
    const events = settlements(settled, T0, NOW).filter((c) => (c.metrics.notional_usd as number) >= 1_000);
    expect(hip4.per_day.map((d) => d.count)).toEqual([0, 1].map((d) => events.filter((c) => Math.floor((c.occurredAt - T0) / DAY) === d).length));
    expect(hip4.basis.mode).toBe('exact');
  });
});

/** Every perpx row of a dataset over the test's window, duplicates collapsed. */
async function readWindowRows(dataset: 'trades'): Promise<Record<string, unknown>[]> {
  const window = await windowSource(archive(), { dataset, family: 'perpx', from: T0, to: NOW - 1 });
  return window ? archive().sql.query({ sql: window.sql, params: window.params }) : [];
}

describe('the oracle moves reduction', () => {
  // Oracle updates of one hip3 market every ten minutes or so; most move a little, some a lot, a few by exactly a threshold.
  const seriesArb = fc.uniqueArray(
    fc.record({
      slot: fc.integer({ min: 0, max: (NOW - T0) / 300_000 - 1 }),
      move: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(-300, -200, -100, 100, 200, 350)),
    }),
    { selector: (r) => r.slot, minLength: 40, maxLength: 200 },
  );

  it('oracle_moves_1h: oracle.jump over the reduction equals it over every update, at every threshold, and the estimate counts those jumps per day', async () => {
    await assertCases(
      seriesArb,
      6,
      { dataset: 'open_interest', family: 'hip3' },
      async (updates) => {
        const symbol = `xyz:RO${nextRun()}`;
        let price = 100_000;
        const records = [...updates]
          .sort((a, b) => a.slot - b.slot)
          .map((u) => {
            // A move in basis points of the previous price, on a price of whole units (so a move of exactly 1% or 2% happens).
            price = Math.max(1, Math.round(price * (1 + u.move / 10_000)));
            return {
              dataset: 'open_interest',
              family: 'hip3',
              symbol,
              ts: T0 + u.slot * 300_000,
              open_interest: '10',
              oracle_price: String(price),
              mark_price: String(price),
            } as OpenInterestRecord;
          });
        await ingestUncompacted(records);
        return { symbol, records };
      },
      async ({ symbol, records }) => {
        const reduced = oracleJump.preview.estimate.reduced;
        const read = await readDetectorInput(archive(), reduced, ['hip3'], [symbol], T0 - HOUR_MS, NOW);
        expect(read.coveredHours).toBeGreaterThan(0);
        const keys = (found: readonly Candidate[]) => found.map((c) => `${c.key}|${String(c.params?.threshold_pct)}|${String(c.metrics.change_pct)}`).sort();
        const thresholds = [0.1, 1, 2, 5];
        expect(keys(oracleJumpsOfMoves(read.rows, T0, NOW, thresholds))).toEqual(keys(oracleJumps(records, T0, NOW, thresholds)));
        // Fewer rows than updates whenever most moves are small.
        expect(read.rows.length).toBeLessThanOrEqual(records.length);
        const answer = await estimateWithCost(previewDeps(), await caller(), {
          event_type: 'oracle.jump',
          config: { symbols: [symbol], params: { threshold_pct: 2 } },
          lookback_days: 2,
        });
        const raw = oracleJumps(records, T0, NOW, [2]);
        expect(answer.per_day.map((d) => d.count)).toEqual([0, 1].map((d) => raw.filter((c) => Math.floor((c.occurredAt - T0) / DAY) === d).length));
        expect(answer.basis.mode).toBe('exact');
      },
    );
  });
});
