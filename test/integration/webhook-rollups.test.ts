/**
 * Every estimable type's rollup against a raw replay (issue 23), on the real archive (dynalite
 * manifest, s3rver objects, DuckDB), one property per rollup: generated rows are ingested in two
 * batches and compacted as the schedule leaves them mid-afternoon of day two (day one in day files,
 * day two's closed hours in hour files, the open hour in deltas); the rollup read back equals,
 * hour by hour and bucket by bucket, the type's own detector run over the same rows, for the
 * wallets asked (per-wallet rollups) and only those. Then the estimate read from each rollup counts
 * per day exactly what the replay finds at a power-of-ten threshold and with no threshold at all.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestBatch } from '../../functions/core/archive/ingest.ts';
import { compactArchive } from '../../functions/core/archive/compact.ts';
import { fillCandidates, liquidationCandidates, transferCandidates } from '../../functions/core/detect/batch-detectors.ts';
import { fundingFlips, oracleJumps, oracleJumpsOfMoves, pgaPayments, settlements } from '../../functions/core/detect/minute-detectors.ts';
import { windowSource } from '../../functions/core/archive/read.ts';
import fundingFlip from '../../functions/core/events/market.funding_flip.ts';
import marketPgaPayment from '../../functions/core/events/market.pga_payment.ts';
import oracleJump from '../../functions/core/events/oracle.jump.ts';
import { archiveReferences } from '../../functions/core/detect/archive-references.ts';
import { estimateWithCost, type PreviewDeps } from '../../functions/core/detect/preview.ts';
import { bucketOf, readDetectorInput, readRollup, HOUR_MS, type RollupSource } from '../../functions/core/detect/rollups.ts';
import type { Candidate } from '../../functions/core/detect/candidate.ts';
import { startScratchEmulators, type ScratchEmulators } from '../../functions/local/scratch-emulators.ts';
import { archiveDeps } from '../../functions/shared/archive-deps.ts';
import { breadthStore, webhookStores } from '../../functions/shared/deps.ts';
import type { ArchiveDeps } from '../../functions/ports/archive.ts';
import type { FundingRecord, LiquidationRecord, NormalizedRecord, OpenInterestRecord, SettlementRecord, TradeRecord, TransferRecord } from '../../schemas/datasets.ts';

let env: ScratchEmulators;
let archive: ArchiveDeps;
const DAY = 86_400_000;
const T0 = Date.parse('2026-09-01T00:00:00Z');
/** Day one closed (day files), day two open: hours before 13:00 folded into hour files, 13:xx still deltas. */
const NOW = T0 + DAY + 13 * HOUR_MS + 20 * 60_000;
const GRID_MS = Math.floor((NOW - T0) / 160 / 60_000) * 60_000;
const USERS = Array.from({ length: 4 }, (_, i) => `0x${String(i + 1).padStart(40, 'b')}`);
/** The wallets an estimate asks about: not all of them, so the per-wallet filter is checked too. */
const WATCHED = USERS.slice(0, 2);

beforeAll(async () => {
  env = await startScratchEmulators();
  archive = { ...archiveDeps(), clock: { now: () => NOW } };
});
afterAll(async () => { await env?.stop(); });

const rowArb = fc.record({
  // Instants on a coarse grid (160 of them over the 37 hours), so several rows of one wallet share an instant and collapse into one event.
  offset: fc.integer({ min: 0, max: 159 }).map((i) => i * GRID_MS),
  user: fc.integer({ min: 0, max: USERS.length - 1 }),
  dollars: fc.integer({ min: 1, max: 200_000 }),
  cents: fc.integer({ min: 0, max: 99 }),
  lots: fc.integer({ min: 1, max: 4_000 }),
  side: fc.constantFrom<'A' | 'B'>('A', 'B'),
});
type Row = { offset: number; user: number; dollars: number; cents: number; lots: number; side: 'A' | 'B' };

let run = 0;
let accounts = 0;

interface Case {
  rollup: RollupSource;
  type: 'market.liquidation' | 'account.liquidated' | 'account.fill' | 'account.transfer';
  dataset: 'liquidations' | 'trades' | 'transfers';
  perWallet: boolean;
  records: (rows: readonly Row[], symbol: string, firstId: number) => NormalizedRecord[];
  /** The type's events as live detection finds them, for the watched wallets. */
  events: (records: readonly NormalizedRecord[], watched: ReadonlySet<string>) => Candidate[];
  metric: string;
}

const ts = (r: Row) => T0 + r.offset - (r.offset % 60_000);
const liquidationRecords = (rows: readonly Row[], symbol: string, firstId: number) => rows.map((r, i) => ({
  dataset: 'liquidations', family: 'perpx', symbol, ts: ts(r), trade_id: firstId + i, liquidated_user: USERS[r.user]!,
  price: `${r.dollars}.${String(r.cents).padStart(2, '0')}`, size: (r.lots / 100).toFixed(2), side: r.side,
}) as LiquidationRecord);

const CASES: Case[] = [
  {
    rollup: 'liquidation_rollups_1h', type: 'market.liquidation', dataset: 'liquidations', perWallet: false, metric: 'notional_usd', records: liquidationRecords,
    events: (records) => liquidationCandidates(records as LiquidationRecord[], new Set()),
  },
  {
    rollup: 'account_liquidation_rollups_1h', type: 'account.liquidated', dataset: 'liquidations', perWallet: true, metric: 'notional_usd', records: liquidationRecords,
    events: (records, watched) => liquidationCandidates(records as LiquidationRecord[], watched).filter((c) => c.type === 'account.liquidated'),
  },
  {
    rollup: 'fill_rollups_1h', type: 'account.fill', dataset: 'trades', perWallet: true, metric: 'notional_usd',
    records: (rows, symbol, firstId) => rows.map((r, i) => ({
      dataset: 'trades', family: 'perpx', symbol, ts: ts(r), trade_id: firstId + i, side: r.side, price: `${r.dollars}.${String(r.cents).padStart(2, '0')}`,
      size: (r.lots / 100).toFixed(2), user_address: USERS[r.user]!, crossed: r.lots % 2 === 0,
    }) as TradeRecord),
    events: (records, watched) => fillCandidates(records as TradeRecord[], watched),
  },
  {
    rollup: 'transfer_rollups_1h', type: 'account.transfer', dataset: 'transfers', perWallet: true, metric: 'usdc_value',
    // Values from cents to tens of millions, a few of them zero.
    records: (rows, symbol, firstId) => rows.map((r, i) => ({
      dataset: 'transfers', family: 'perpx', symbol, ts: ts(r), user_address: USERS[r.user]!, kind: 'send', role: r.side === 'A' ? 'source' : 'destination',
      amount: String(r.lots), usdc_value: r.cents === 0 ? '0' : (r.dollars * r.lots / 100).toFixed(2), tx_hash: `0xtx${firstId + i}`,
    }) as TransferRecord),
    events: (records, watched) => transferCandidates(records as TransferRecord[], watched),
  },
];

/** Ingests one run's rows under a symbol of its own, in two batches, and compacts as the clock says. */
async function ingest(c: Case, rows: readonly Row[]): Promise<{ symbol: string; records: NormalizedRecord[] }> {
  const symbol = `RW${run}`;
  const records = c.records(rows, symbol, run++ * 10_000);
  const half = Math.ceil(records.length / 2);
  for (const part of [records.slice(0, half), records.slice(half)]) {
    if (part.length) await ingestBatch(archive, 'normalized', part.map((r) => JSON.stringify(r)).join('\n'));
  }
  await compactArchive(archive, { datasets: [c.dataset], families: ['perpx'] });
  return { symbol, records };
}

function previewDeps(): PreviewDeps {
  return { store: webhookStores(), clock: { now: () => NOW }, archive, breadth: breadthStore(), references: archiveReferences(archive) };
}

/** A caller watching WATCHED. */
async function caller() {
  const id = `acct-rollup-${accounts++}`;
  for (const address of WATCHED) await webhookStores().rules.addAddress(id, { address, label: '', createdAt: new Date(NOW).toISOString() });
  return { id, plan: 'free' as const };
}

describe.each(CASES)('the $rollup rollup', (c) => {
  it(`equals a raw replay of ${c.type}'s detector, hour by hour and bucket by bucket, across day files, hour files and deltas`, async () => {
    await fc.assert(fc.asyncProperty(fc.array(rowArb, { minLength: 20, maxLength: 100 }), async (rows) => {
      const { symbol, records } = await ingest(c, rows);
      const read = await readRollup(archive, c.rollup, ['perpx'], [symbol], T0, NOW, c.perWallet ? WATCHED : undefined);
      const covered = read.covered.get('perpx')!;
      for (const r of records) if (r.ts < T0 + DAY + 13 * HOUR_MS) expect(covered.has(Math.floor(r.ts / HOUR_MS) * HOUR_MS)).toBe(true);
      expect(covered.has(T0 + DAY + 13 * HOUR_MS)).toBe(false);
      const fromRollup = new Map<string, number>();
      for (const cell of read.cells) fromRollup.set(`${cell.hour}|${cell.bucket}`, (fromRollup.get(`${cell.hour}|${cell.bucket}`) ?? 0) + cell.events);
      const raw = new Map<string, number>();
      for (const e of c.events(records, new Set(WATCHED))) {
        const hour = Math.floor(e.occurredAt / HOUR_MS) * HOUR_MS;
        if (!covered.has(hour)) continue;
        const key = `${hour}|${bucketOf(e.metrics[c.metric] as number)}`;
        raw.set(key, (raw.get(key) ?? 0) + 1);
      }
      expect(fromRollup).toEqual(raw);
    }), { numRuns: 8 });
  });

  it(`gives ${c.type}'s estimate the replay's per-day counts at a power-of-ten threshold (and with none but the cost floor)`, async () => {
    const { symbol, records } = await ingest(c, fc.sample(rowArb, { numRuns: 300, seed: 23 }));
    const deps = previewDeps();
    const who = await caller();
    const events = c.events(records, new Set(WATCHED)).filter((e) => c.type !== 'market.liquidation' || (e.metrics.notional_usd as number) >= 100);
    const perDay = (min: number) => [0, 1].map((d) => events.filter((e) => (e.metrics[c.metric] as number) >= min && Math.floor((e.occurredAt - T0) / DAY) === d).length);
    const thresholds = c.type === 'market.liquidation' ? [10_000] : [10_000, undefined];
    for (const threshold of thresholds) {
      const answer = await estimateWithCost(deps, who, { event_type: c.type, config: { symbols: [symbol], ...(threshold !== undefined && { min_notional_usd: threshold }) }, lookback_days: 2 });
      expect(answer.per_day.map((d) => d.count), `threshold ${threshold}`).toEqual(perDay(threshold ?? -Infinity));
      expect(answer.basis.mode).toBe('exact');
      expect(answer.basis.note).toMatch(/hourly rollups/);
      expect(answer.rowsScanned).toBeLessThan(records.length);
      for (let i = 1; i < answer.ladder.length; i++) {
        expect(answer.ladder[i]!.value).toBeGreaterThan(answer.ladder[i - 1]!.value);
        expect(answer.ladder[i]!.per_day).toBeLessThanOrEqual(answer.ladder[i - 1]!.per_day);
      }
    }
  });
});

/**
 * The param-free minute types read their detector's input over the whole lookback at once: from a
 * reduction (settled funding rates, the first PGA payments of each market-hour) or, for
 * settlements, from the source (one row per event). Their detector over what is read equals the
 * detector over the raw rows, and the estimate's per-day counts are the raw replay's.
 */
describe('the reductions', () => {
  const fundingArb = fc.uniqueArray(fc.record({ slot: fc.integer({ min: 0, max: (NOW - T0) / 600_000 - 1 }), rate: fc.integer({ min: -3, max: 3 }) }), { selector: (r) => r.slot, minLength: 30, maxLength: 150 });

  it('funding_rates_1h: market.funding_flip over the reduction equals it over the raw rates, and the estimate counts those flips per day', async () => {
    await fc.assert(fc.asyncProperty(fundingArb, async (rows) => {
      const symbol = `RF${run++}`;
      const records = rows.map((r) => ({ dataset: 'funding', family: 'perpx', symbol, ts: T0 + r.slot * 600_000, funding_rate: (r.rate / 100_000).toFixed(5) }) as FundingRecord);
      await ingestRecords(records, 'funding');
      const read = await readDetectorInput(archive, fundingFlip.preview.estimate.reduced, ['perpx'], [symbol], T0 - 2 * HOUR_MS, NOW);
      expect(read.coveredHours).toBeGreaterThan(0);
      // Only settled (on-the-hour) rates are kept.
      expect(read.rows.length).toBe(records.filter((r) => r.ts % HOUR_MS === 0).length);
      const flips = (found: readonly Candidate[]) => found.map((c) => c.key).sort();
      expect(flips(await fundingFlip.preview.estimate.reduced.detect(read.rows, T0, NOW))).toEqual(flips(fundingFlips(records, T0, NOW)));
      const answer = await estimateWithCost(previewDeps(), await caller(), { event_type: 'market.funding_flip', config: { symbols: [symbol] }, lookback_days: 2 });
      const raw = fundingFlips(records, T0, NOW);
      expect(answer.per_day.map((d) => d.count)).toEqual([0, 1].map((d) => raw.filter((c) => Math.floor((c.occurredAt - T0) / DAY) === d).length));
      expect(answer.basis.mode).toBe('exact');
    }), { numRuns: 6 });
  });

  // Payments crowd into a few hours, so a market-hour holds more than 50 of them and days pass their cap of 50.
  const pgaArb = fc.array(fc.record({
    hour: fc.constantFrom(2, 5, 26, 37), second: fc.integer({ min: 0, max: 1_199 }), gas: fc.option(fc.integer({ min: 50, max: 500 }), { freq: 5 }), market: fc.constantFrom(0, 0, 0, 1),
  }), { minLength: 150, maxLength: 320 });

  it('pga_payments_1h: market.pga_payment over the reduction equals it over the raw trades (the first 50 a day), reading at most 50 a market-hour', async () => {
    await fc.assert(fc.asyncProperty(pgaArb, async (rows) => {
      const first = run++ * 10_000;
      const markets = [`PG${first}`, `PH${first}`];
      const records = rows.map((r, i) => ({
        dataset: 'trades', family: 'perpx', symbol: markets[r.market]!, ts: Math.min(NOW - 1, T0 + r.hour * HOUR_MS + r.second * 3_000), trade_id: first + i, side: 'B',
        price: '10', size: '1', user_address: USERS[0]!, priority_gas: r.gas === null ? null : (r.gas / 100).toFixed(2),
      }) as TradeRecord);
      await ingestRecords(records, 'trades');
      const reduced = marketPgaPayment.preview.estimate.reduced;
      // Other runs' markets share the family: compare on this run's.
      const read = await readDetectorInput(archive, reduced, ['perpx'], undefined, T0, NOW);
      const mine = read.rows.filter((r) => markets.includes(String(r.symbol)));
      const raw = records.filter((r) => r.priority_gas !== null && Number(r.priority_gas) >= 1.5)
        .map((r) => ({ ts: r.ts, trade_id: r.trade_id, symbol: r.symbol, payer: r.user_address ?? null, amount: Number(r.priority_gas) }));
      const keys = (found: readonly Candidate[]) => found.map((c) => c.key).sort();
      expect(keys(await reduced.detect(mine, T0, NOW, archive))).toEqual(keys(pgaPayments(raw, T0, NOW, null)));
      // At most 50 a market and hour are read.
      expect(mine.length).toBeLessThanOrEqual(raw.length);
      expect(mine.length).toBeLessThanOrEqual(50 * 2 * 4);
    }), { numRuns: 6 });
  });

  it('market.pga_payment and hip4.settlement estimates count per day what their detectors find in the raw rows', async () => {
    // PGA: every run so far shares perpx; the estimate sees all of them, so compare with all trades ingested in this file.
    const first = run++ * 10_000;
    const trades = fc.sample(pgaArb, { numRuns: 1, seed: 5 })[0]!.map((r, i) => ({
      dataset: 'trades', family: 'perpx', symbol: `PG${first}`, ts: Math.min(NOW - 1, T0 + r.hour * HOUR_MS + r.second * 3_000), trade_id: first + i, side: 'B',
      price: '10', size: '1', user_address: USERS[0]!, priority_gas: r.gas === null ? null : (r.gas / 100).toFixed(2),
    }) as TradeRecord);
    await ingestRecords(trades, 'trades');
    const all = await readWindowRows('trades');
    const payments = all.filter((r) => r.priority_gas != null && Number(r.priority_gas) >= 1.5)
      .map((r) => ({ ts: Number(r.ts), trade_id: Number(r.trade_id), symbol: String(r.symbol), payer: null, amount: Number(r.priority_gas) }));
    const expected = pgaPayments(payments, T0, NOW, null);
    const pga = await estimateWithCost(previewDeps(), await caller(), { event_type: 'market.pga_payment', lookback_days: 2 });
    expect(pga.per_day.map((d) => d.count)).toEqual([0, 1].map((d) => expected.filter((c) => Math.floor((c.occurredAt - T0) / DAY) === d).length));
    expect(pga.basis.mode).toBe('exact');
    expect(pga.rowsScanned).toBeLessThan(all.length);

    const symbol = `#${first}`;
    const settled = fc.sample(fc.record({ offset: fc.integer({ min: 0, max: NOW - T0 - 1 }), oi: fc.integer({ min: 1, max: 100_000 }) }), { numRuns: 40, seed: 9 })
      .map((r, i) => ({ dataset: 'settlements', family: 'hip4', symbol, ts: T0 + r.offset + i, resolution: i % 2 ? 'yes' : 'no', settle_price: '1', open_interest: String(r.oi) }) as SettlementRecord);
    await ingestRecords(settled, 'settlements');
    const hip4 = await estimateWithCost(previewDeps(), await caller(), { event_type: 'hip4.settlement', config: { symbols: [symbol], min_notional_usd: 1_000 }, lookback_days: 2 });
    const events = settlements(settled, T0, NOW).filter((c) => (c.metrics.notional_usd as number) >= 1_000);
    expect(hip4.per_day.map((d) => d.count)).toEqual([0, 1].map((d) => events.filter((c) => Math.floor((c.occurredAt - T0) / DAY) === d).length));
    expect(hip4.basis.mode).toBe('exact');
  });
});

/** Ingests records of one dataset in two batches and compacts as the clock says. */
async function ingestRecords(records: readonly NormalizedRecord[], dataset: 'funding' | 'trades' | 'settlements'): Promise<void> {
  const half = Math.ceil(records.length / 2);
  for (const part of [records.slice(0, half), records.slice(half)]) {
    if (part.length) await ingestBatch(archive, 'normalized', part.map((r) => JSON.stringify(r)).join('\n'));
  }
  await compactArchive(archive, { datasets: [dataset], families: [dataset === 'settlements' ? 'hip4' : 'perpx'] });
}

/** Every perpx row of a dataset over the test's window, duplicates collapsed. */
async function readWindowRows(dataset: 'trades'): Promise<Record<string, unknown>[]> {
  const window = await windowSource(archive, { dataset, family: 'perpx', from: T0, to: NOW - 1 });
  return window ? archive.sql.query({ sql: window.sql, params: window.params }) : [];
}

describe('the oracle moves reduction', () => {
  // Oracle updates of one hip3 market every ten minutes or so; most move a little, some a lot, a few by exactly a threshold.
  const seriesArb = fc.uniqueArray(fc.record({
    slot: fc.integer({ min: 0, max: (NOW - T0) / 300_000 - 1 }), move: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(-300, -200, -100, 100, 200, 350)),
  }), { selector: (r) => r.slot, minLength: 40, maxLength: 200 });

  it('oracle_moves_1h: oracle.jump over the reduction equals it over every update, at every threshold, and the estimate counts those jumps per day', async () => {
    await fc.assert(fc.asyncProperty(seriesArb, async (updates) => {
      const symbol = `xyz:RO${run++}`;
      let price = 100_000;
      const records = [...updates].sort((a, b) => a.slot - b.slot).map((u) => {
        // A move in basis points of the previous price, on a price of whole units (so a move of exactly 1% or 2% happens).
        price = Math.max(1, Math.round(price * (1 + u.move / 10_000)));
        return { dataset: 'open_interest', family: 'hip3', symbol, ts: T0 + u.slot * 300_000, open_interest: '10', oracle_price: String(price), mark_price: String(price) } as OpenInterestRecord;
      });
      await ingestOpenInterest(records);
      const reduced = oracleJump.preview.estimate.reduced;
      const read = await readDetectorInput(archive, reduced, ['hip3'], [symbol], T0 - HOUR_MS, NOW);
      expect(read.coveredHours).toBeGreaterThan(0);
      const keys = (found: readonly Candidate[]) => found.map((c) => `${c.key}|${String(c.params?.threshold_pct)}|${String(c.metrics.change_pct)}`).sort();
      const thresholds = [0.1, 1, 2, 5];
      expect(keys(oracleJumpsOfMoves(read.rows, T0, NOW, thresholds))).toEqual(keys(oracleJumps(records, T0, NOW, thresholds)));
      // Fewer rows than updates whenever most moves are small.
      expect(read.rows.length).toBeLessThanOrEqual(records.length);
      const answer = await estimateWithCost(previewDeps(), await caller(), { event_type: 'oracle.jump', config: { symbols: [symbol], params: { threshold_pct: 2 } }, lookback_days: 2 });
      const raw = oracleJumps(records, T0, NOW, [2]);
      expect(answer.per_day.map((d) => d.count)).toEqual([0, 1].map((d) => raw.filter((c) => Math.floor((c.occurredAt - T0) / DAY) === d).length));
      expect(answer.basis.mode).toBe('exact');
    }), { numRuns: 6 });
  });
});

async function ingestOpenInterest(records: readonly NormalizedRecord[]): Promise<void> {
  const half = Math.ceil(records.length / 2);
  for (const part of [records.slice(0, half), records.slice(half)]) {
    if (part.length) await ingestBatch(archive, 'normalized', part.map((r) => JSON.stringify(r)).join('\n'));
  }
  await compactArchive(archive, { datasets: ['open_interest'], families: ['hip3'] });
}
