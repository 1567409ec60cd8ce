/**
 * Reference values for relative metrics, against dynalite, s3rver and DuckDB: the batched read a
 * replay page makes (`marketsAt`, one query a family) gives every market and minute the values
 * the per-minute read live delivery makes (`market`) gives it, over compacted candles, the trade
 * deltas not folded yet, and open-interest rows; a market and minute with no reference is absent.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestBatch } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { archiveReferences } from '#core/detect/archive-references.ts';
import { marketKey } from '#core/events/kit/relative-metrics.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const T0 = Date.parse('2026-08-10T00:00:00Z');
/** Day one closed, day two open at 06:30 (hour files, then the open hour's deltas). */
const NOW = T0 + 30 * HOUR + 30 * MINUTE;
const SYMBOLS = ['RA', 'RB', 'RC'];
let env: ScratchEmulators;

beforeAll(async () => {
  env = await startScratchEmulators();
});
afterAll(async () => {
  await env?.stop();
});

describe('batched reference values', () => {
  it('equal the per-minute ones for every market and minute asked', async () => {
    const archive = { ...archiveDeps(), clock: { now: () => NOW } };
    // Trades every few minutes for RA and RB (RC has open interest only), open interest every 20 minutes for RA and RC.
    const trades = fc
      .sample(
        fc.record({
          minute: fc.integer({ min: 0, max: NOW / MINUTE - T0 / MINUTE - 1 }),
          symbol: fc.constantFrom('RA', 'RB'),
          price: fc.integer({ min: 1, max: 5_000 }),
          size: fc.integer({ min: 1, max: 900 }),
        }),
        { numRuns: 600, seed: 4 },
      )
      .map((t, i) => ({
        dataset: 'trades',
        family: 'perpx',
        symbol: t.symbol,
        ts: T0 + t.minute * MINUTE + (i % 50) * 1_000,
        trade_id: 700_000 + i,
        side: i % 2 ? 'A' : 'B',
        price: String(t.price),
        size: (t.size / 10).toFixed(1),
      }));
    const oi = Array.from({ length: (NOW - T0) / (20 * MINUTE) }, (_, i) =>
      ['RA', 'RC'].map((symbol) => ({
        dataset: 'open_interest',
        family: 'perpx',
        symbol,
        ts: T0 + i * 20 * MINUTE,
        open_interest: String(1_000 + i),
        mark_price: String(50 + (i % 7)),
      })),
    ).flat();
    const records = [...trades, ...oi] as NormalizedRecord[];
    await ingestBatch(archive, 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
    await compactArchive(archive, { datasets: ['trades', 'open_interest'], families: ['perpx'] });
    // A late batch in the open hour stays a delta (candles derived on the fly).
    await ingestBatch(
      archive,
      'normalized',
      [{ dataset: 'trades', family: 'perpx', symbol: 'RB', ts: NOW - 5 * MINUTE, trade_id: 799_999, side: 'B', price: '10', size: '3' }]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );

    const wanted = fc
      .sample(fc.record({ symbol: fc.constantFrom(...SYMBOLS, 'NONE'), minute: fc.integer({ min: 0, max: (NOW - T0) / MINUTE }) }), { numRuns: 60, seed: 8 })
      .map((w) => ({ symbol: w.symbol, at: T0 + w.minute * MINUTE + 17_000 }));
    const batched = await archiveReferences(archive).marketsAt!('perpx', wanted);
    const single = archiveReferences(archive);
    let found = 0;
    for (const w of wanted) {
      const minute = Math.floor(w.at / MINUTE) * MINUTE;
      const one = await single.market('perpx', w.symbol, w.at);
      const many = batched.get(marketKey(w.symbol, minute));
      if (!one) {
        expect(many, `${w.symbol} at ${minute}`).toBeUndefined();
        continue;
      }
      found += 1;
      expect(many, `${w.symbol} at ${minute}`).toBeDefined();
      expect(many!.at).toBe(one.at);
      expect(many!.volume1hUsd).toBeCloseTo(one.volume1hUsd, 6);
      expect(many!.volume24hUsd).toBeCloseTo(one.volume24hUsd, 6);
      expect(many!.openInterestUsd === null ? null : Number(many!.openInterestUsd.toFixed(6))).toBe(
        one.openInterestUsd === null ? null : Number(one.openInterestUsd.toFixed(6)),
      );
    }
    expect(found).toBeGreaterThan(20);
  });
});
