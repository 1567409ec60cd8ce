/**
 * One property per estimable type's rollup against a raw replay (issue 23), declared once and run
 * by the `webhook-rollups-*` files (a few rollups a file, so they run in parallel workers): generated
 * rows are ingested in two batches and compacted as the schedule leaves them mid-afternoon of day
 * two; the rollup read back equals, hour by hour and bucket by bucket, the type's own detector run
 * over the same rows, for the wallets asked (per-wallet rollups) and only those. Then the estimate
 * read from each rollup counts per day exactly what the replay finds at a power-of-ten threshold
 * and with no threshold at all.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fillCandidates } from '#core/events/account.fill.ts';
import { liquidationCandidates } from '#core/events/market.liquidation.ts';
import { transferCandidates } from '#core/events/account.transfer.ts';
import { estimateWithCost } from '#core/detect/preview.ts';
import { bucketOf, readRollup, HOUR_MS, type RollupSource } from '#core/detect/rollups.ts';
import type { Candidate } from '#core/events/kit/candidate.ts';
import { DATASETS, type LiquidationRecord, type NormalizedRecord, type TradeRecord, type TransferRecord } from '#schemas/datasets.ts';
import type { Family } from '#core/venues.ts';
import { DAY, NOW, T0, USERS, WATCHED, rowArb, rollupArchive, type Row } from './rollup-archive.ts';

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
const liquidationRecords = (rows: readonly Row[], symbol: string, firstId: number) =>
  rows.map(
    (r, i) =>
      ({
        dataset: 'liquidations',
        family: 'perpx',
        symbol,
        ts: ts(r),
        trade_id: firstId + i,
        liquidated_user: USERS[r.user]!,
        price: `${r.dollars}.${String(r.cents).padStart(2, '0')}`,
        size: (r.lots / 100).toFixed(2),
        side: r.side,
      }) as LiquidationRecord,
  );

const CASES: Case[] = [
  {
    rollup: 'liquidation_rollups_1h',
    type: 'market.liquidation',
    dataset: 'liquidations',
    perWallet: false,
    metric: 'notional_usd',
    records: liquidationRecords,
    events: (records) => liquidationCandidates(records as LiquidationRecord[], new Set()),
  },
  {
    rollup: 'account_liquidation_rollups_1h',
    type: 'account.liquidated',
    dataset: 'liquidations',
    perWallet: true,
    metric: 'notional_usd',
    records: liquidationRecords,
    events: (records, watched) => liquidationCandidates(records as LiquidationRecord[], watched).filter((c) => c.type === 'account.liquidated'),
  },
  {
    rollup: 'fill_rollups_1h',
    type: 'account.fill',
    dataset: 'trades',
    perWallet: true,
    metric: 'notional_usd',
    records: (rows, symbol, firstId) =>
      rows.map(
        (r, i) =>
          ({
            dataset: 'trades',
            family: 'perpx',
            symbol,
            ts: ts(r),
            trade_id: firstId + i,
            side: r.side,
            price: `${r.dollars}.${String(r.cents).padStart(2, '0')}`,
            size: (r.lots / 100).toFixed(2),
            user_address: USERS[r.user]!,
            crossed: r.lots % 2 === 0,
          }) as TradeRecord,
      ),
    events: (records, watched) => fillCandidates(records as TradeRecord[], watched),
  },
  {
    rollup: 'transfer_rollups_1h',
    type: 'account.transfer',
    dataset: 'transfers',
    perWallet: true,
    metric: 'usdc_value',
    // Values from cents to tens of millions, a few of them zero.
    records: (rows, symbol, firstId) =>
      rows.map(
        (r, i) =>
          ({
            dataset: 'transfers',
            family: 'perpx',
            symbol,
            ts: ts(r),
            user_address: USERS[r.user]!,
            kind: 'send',
            role: r.side === 'A' ? 'source' : 'destination',
            amount: String(r.lots),
            usdc_value: r.cents === 0 ? '0' : ((r.dollars * r.lots) / 100).toFixed(2),
            tx_hash: `0xtx${firstId + i}`,
          }) as TransferRecord,
      ),
    events: (records, watched) => transferCandidates(records as TransferRecord[], watched),
  },
];

/** Declares, in the calling file, the properties of the rollups named (on an archive of the file's own). */
export function describeRollups(rollups: readonly RollupSource[]): void {
  const cases = rollups.map((name) => CASES.find((c) => c.rollup === name)!);
  const harness = rollupArchive();

  /** Ingests one run's rows under a symbol of its own (and compacts, unless the caller compacts several runs at once). */
  async function ingest(c: Case, rows: readonly Row[], { compact = true } = {}): Promise<{ symbol: string; records: NormalizedRecord[] }> {
    const run = harness.nextRun();
    const symbol = `RW${run}`;
    const records = c.records(rows, symbol, run * 10_000);
    await harness.ingestUncompacted(records);
    if (compact) await harness.compact(c.dataset, 'perpx');
    return { symbol, records };
  }

  describe.each(cases)('the $rollup rollup', (c) => {
    it(`equals a raw replay of ${c.type}'s detector, hour by hour and bucket by bucket, across day files, hour files and deltas`, async () => {
      // Eight cases on one compaction (see assertCases), each checked on its own symbol.
      await harness.assertCases(
        fc.array(rowArb, { minLength: 20, maxLength: 100 }),
        8,
        { dataset: c.dataset, family: 'perpx' },
        (rows) => ingest(c, rows, { compact: false }),
        async ({ symbol, records }) => {
          const read = await readRollup(harness.archive(), c.rollup, ['perpx'], [symbol], T0, NOW, c.perWallet ? WATCHED : undefined);
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
          expect(fromRollup, symbol).toEqual(raw);
        },
      );
    });

    it(`gives ${c.type}'s estimate the replay's per-day counts at a power-of-ten threshold (and with none but the cost floor)`, async () => {
      const { symbol, records } = await ingest(c, fc.sample(rowArb, { numRuns: 300, seed: 23 }));
      const deps = harness.previewDeps();
      const who = await harness.caller();
      const events = c.events(records, new Set(WATCHED)).filter((e) => c.type !== 'market.liquidation' || (e.metrics.notional_usd as number) >= 100);
      const perDay = (min: number) =>
        [0, 1].map((d) => events.filter((e) => (e.metrics[c.metric] as number) >= min && Math.floor((e.occurredAt - T0) / DAY) === d).length);
      const thresholds = c.type === 'market.liquidation' ? [10_000] : [10_000, undefined];
      for (const threshold of thresholds) {
        const answer = await estimateWithCost(deps, who, {
          event_type: c.type,
          config: { symbols: [symbol], ...(threshold !== undefined && { min_notional_usd: threshold }) },
          lookback_days: 2,
        });
        expect(
          answer.per_day.map((d) => d.count),
          `threshold ${threshold}`,
        ).toEqual(perDay(threshold ?? -Infinity));
        expect(answer.basis.mode).toBe('exact');
        expect(answer.basis.note).toMatch(/hourly rollups/);
        expect(answer.rowsScanned).toBeLessThan(records.length);
        for (let i = 1; i < answer.ladder.length; i++) {
          expect(answer.ladder[i]!.value).toBeGreaterThan(answer.ladder[i - 1]!.value);
          expect(answer.ladder[i]!.per_day).toBeLessThanOrEqual(answer.ladder[i - 1]!.per_day);
        }
      }
    });

    // Runs last in its case: it retires the rollup's files of day one.
    it(`holds ${c.rollup}'s hours that have no source rows, and not a source day whose rollup files are gone`, async () => {
      const wallets = c.perWallet ? WATCHED : undefined;
      // Another family the rollup covers has no rows in this archive: no hour needs a replay.
      const other = Object.keys(DATASETS[c.rollup].coverage).find((f) => f !== 'perpx') as Family;
      const empty = await readRollup(harness.archive(), c.rollup, [other], undefined, T0, NOW, wallets);
      expect(empty.covered.get(other)!.size).toBe(Math.floor((NOW - T0) / HOUR_MS));
      expect(empty.cells).toEqual([]);
      // Day one as if compacted before the rollup existed: its source files stay, its rollup files go.
      const { symbol, records } = await ingest(c, fc.sample(rowArb, { numRuns: 100, seed: 7 }));
      const manifest = harness.archive().manifest;
      const dayOne = new Date(T0).toISOString().slice(0, 10);
      for (const file of await manifest.compactedFiles(c.rollup, 'perpx', undefined, dayOne, dayOne)) await manifest.deleteFile(file);
      const read = await readRollup(harness.archive(), c.rollup, ['perpx'], [symbol], T0, NOW, wallets);
      const covered = read.covered.get('perpx')!;
      expect([...covered].filter((hour) => hour < T0 + DAY)).toEqual([]);
      expect(covered.has(T0 + DAY)).toBe(true);
      // The estimate replays day one from the raw rows: the same per-day counts.
      const events = c.events(records, new Set(WATCHED)).filter((e) => (e.metrics[c.metric] as number) >= 10_000);
      const answer = await estimateWithCost(harness.previewDeps(), await harness.caller(), {
        event_type: c.type,
        config: { symbols: [symbol], min_notional_usd: 10_000 },
        lookback_days: 2,
      });
      expect(answer.per_day.map((d) => d.count)).toEqual([0, 1].map((d) => events.filter((e) => Math.floor((e.occurredAt - T0) / DAY) === d).length));
    });
  });
}
