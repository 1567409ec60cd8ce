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
import { archiveReferences } from '../../functions/core/detect/archive-references.ts';
import { estimateWithCost, type PreviewDeps } from '../../functions/core/detect/preview.ts';
import { bucketOf, readRollup, HOUR_MS, type RollupSource } from '../../functions/core/detect/rollups.ts';
import type { Candidate } from '../../functions/core/detect/candidate.ts';
import { startScratchEmulators, type ScratchEmulators } from '../../functions/local/scratch-emulators.ts';
import { archiveDeps } from '../../functions/shared/archive-deps.ts';
import { breadthStore, webhookStores } from '../../functions/shared/deps.ts';
import type { ArchiveDeps } from '../../functions/ports/archive.ts';
import type { LiquidationRecord, NormalizedRecord, TradeRecord, TransferRecord } from '../../schemas/datasets.ts';

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
    await fc.assert(fc.asyncProperty(fc.array(rowArb, { minLength: 1, maxLength: 100 }), async (rows) => {
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
  }, 240_000);

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
  }, 120_000);
});
