/**
 * Properties of the liquidation pages over the real archive (dynalite manifest, s3rver objects,
 * DuckDB): whatever the batches, their overlap, compaction and the page size, a cursor walk serves
 * every fill exactly once in (ts, trade id) order, and volume buckets equal a model summed in
 * JavaScript from the same fills.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ingestBatch } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { liquidationVolumePage, liquidationsPage } from '#core/market/liquidations.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';
import { tapeTrade, type TapeTrade } from '../helpers/arbitraries.ts';
import { routePaging, walkJsonRows } from '../helpers/api.ts';
import { SAMPLE_INTERVALS, type SampleInterval } from '#schemas/intervals.ts';

const deps = scratchArchive();

const T0 = Date.parse('2026-09-01T00:00:00Z');
const SPAN = 6 * 3_600_000;
const NOW = T0 + 2 * 86_400_000;
const USER = '0x00000000000000000000000000000000000000aa';

const fill = tapeTrade(SPAN);
let run = 0;

/**
 * Ingests the fills of one run under a symbol of their own, in `batches` overlapping batches. Trade
 * ids are unique in the family, as the venue's are (compaction collapses on them family-wide).
 */
async function ingest(fills: readonly TapeTrade[], batches: number, compact: boolean) {
  const symbol = `LQ${run}`;
  const firstId = run++ * 1_000;
  const records = fills.map((f, i) => ({
    dataset: 'liquidations',
    family: 'perpx',
    symbol,
    ts: T0 + f.offset,
    trade_id: firstId + i,
    liquidated_user: USER,
    price: (f.cents / 100).toFixed(2),
    size: (f.lots / 1000).toFixed(3),
    side: f.side,
  }));
  for (let b = 0; b < batches; b++) {
    // Every batch after the first repeats some fills: duplicates must collapse on the unique key.
    const part = records.filter((_, i) => i % batches === b || (b > 0 && i % 7 === 0));
    if (part.length) await ingestBatch(deps(), 'normalized', part.map((r) => JSON.stringify(r)).join('\n'));
  }
  if (compact) await compactArchive(deps(), { families: ['perpx'] });
  return { symbol, records };
}

describe('liquidation pages', () => {
  it('walk every fill once, in order, at any page size; volume buckets sum the fills in them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fill, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 25 }),
        fc.constantFrom<SampleInterval>('5m', '15m', '1h'),
        async (fills, batches, compact, limit, interval) => {
          // Prepare
          const { symbol, records } = await ingest(fills, batches, compact);
          const window = { family: 'perpx' as const, symbol, start: T0, end: T0 + SPAN, limit };
          const width = SAMPLE_INTERVALS[interval];
          const model = new Map<number, { total: number; long: number; count: number; longCount: number }>();
          for (const r of records) {
            const bucket = Math.floor(r.ts / width) * width;
            const m = model.get(bucket) ?? { total: 0, long: 0, count: 0, longCount: 0 };
            const usd = Number(r.price) * Number(r.size);
            model.set(bucket, {
              total: m.total + usd,
              long: m.long + (r.side === 'A' ? usd : 0),
              count: m.count + 1,
              longCount: m.longCount + (r.side === 'A' ? 1 : 0),
            });
          }

          // Act
          const rows = await walkJsonRows<{ trade_id: number; timestamp: string }>((cursor) =>
            liquidationsPage(deps(), { ...routePaging('getPerpxLiquidations'), ...window, cursor }, NOW),
          );
          const buckets = await walkJsonRows<{ timestamp: string; total_usd: number; long_usd: number; count: number; long_count: number }>((cursor) =>
            liquidationVolumePage(deps(), { ...routePaging('getPerpxLiquidationVolume'), ...window, interval, cursor }, NOW),
          );

          // Assess
          const expected = [...records].sort((a, b) => a.ts - b.ts || a.trade_id - b.trade_id);
          expect(rows.map((r) => r.trade_id)).toEqual(expected.map((r) => r.trade_id));
          expect(buckets.map((b) => Date.parse(b.timestamp))).toEqual([...model.keys()].sort((a, b) => a - b));
          for (const b of buckets) {
            const m = model.get(Date.parse(b.timestamp))!;
            expect(b.count).toBe(m.count);
            expect(b.long_count).toBe(m.longCount);
            expect(Math.abs(b.total_usd - m.total)).toBeLessThan(1e-3);
            expect(Math.abs(b.long_usd - m.long)).toBeLessThan(1e-3);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
