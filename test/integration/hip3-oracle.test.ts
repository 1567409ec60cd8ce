/**
 * hip3 oracle reads over the real archive: the newest open-interest sample's external (oracle) and
 * mark prices with the block of the market's newest order event before it; discovery bounds
 * reference x (1 +- 1 / max_leverage) around the external price, or the mark without one; 404
 * without a sample or a max leverage.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ingestBatch } from '#core/archive/ingest.ts';
import { discoveryBounds, discoveryBoundsOf, externalPrice } from '#core/market/oracle.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';

const deps = scratchArchive();
const T0 = Date.parse('2026-09-03T00:00:00Z');
const NOW = T0 + 3_600_000;
const ingest = (records: readonly object[]) => ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));

describe('discoveryBounds', () => {
  it('puts the bounds 1 / max_leverage either side of the external price, or of the mark without one', () => {
    fc.assert(
      fc.property(
        fc.option(fc.double({ min: 0.01, max: 1e6, noNaN: true })),
        fc.double({ min: 0.01, max: 1e6, noNaN: true }),
        fc.integer({ min: 1, max: 100 }),
        (external, mark, maxLeverage) => {
          const bounds = discoveryBounds({ external_price: external, mark_price: mark }, maxLeverage)!;
          const reference = external ?? mark;
          expect(bounds).toMatchObject({ reference_price: reference, reference_source: external === null ? 'mark' : 'external', max_leverage: maxLeverage });
          expect(bounds.bound_fraction * maxLeverage).toBeCloseTo(1, 12);
          expect(bounds.upper_bound - reference).toBeCloseTo(reference - bounds.lower_bound, 6);
          expect(bounds.upper_bound / reference - 1).toBeCloseTo(1 / maxLeverage, 12);
        },
      ),
    );
    expect(discoveryBounds({ external_price: null, mark_price: null }, 20)).toBeUndefined();
    // The reference service's published example: 752.24 at 20x.
    expect(discoveryBounds({ external_price: 752.24, mark_price: 752.1 }, 20)).toMatchObject({
      bound_fraction: 0.05,
      lower_bound: expect.closeTo(714.628, 9),
      upper_bound: expect.closeTo(789.852, 9),
    });
  });
});

describe('hip3 oracle', () => {
  it("reads the newest sample, its block, and the registry's max leverage", async () => {
    // Prepare
    const symbol = 'xyz:ORCL';
    await ingest([
      { dataset: 'instruments', family: 'hip3', symbol, ts: T0 - 86_400_000, market_type: 'perp', sz_decimals: 2, max_leverage: 20, dex: 'xyz' },
      { dataset: 'open_interest', family: 'hip3', symbol, ts: T0 + 1_000, open_interest: '10', mark_price: '99', oracle_price: '100' },
      { dataset: 'open_interest', family: 'hip3', symbol, ts: T0 + 11_000, open_interest: '10', mark_price: '101.5', oracle_price: '101' },
      { dataset: 'open_interest', family: 'hip3', symbol: 'xyz:MARKONLY', ts: T0 + 11_000, open_interest: '10', mark_price: '50' },
      {
        dataset: 'instruments',
        family: 'hip3',
        symbol: 'xyz:MARKONLY',
        ts: T0 - 86_400_000,
        market_type: 'perp',
        sz_decimals: 2,
        max_leverage: 10,
        dex: 'xyz',
      },
      ...[5_000, 10_000, 12_000].map((dt, i) => ({
        dataset: 'order_events',
        family: 'hip3',
        symbol,
        ts: T0 + dt,
        event: 'placed',
        block_number: 500 + i,
        seq: 0,
        oid: i,
        user_address: `0x${'1'.repeat(40)}`,
        side: 'B',
        status: 'open',
        limit_price: '100',
        size: '1',
        orig_size: '1',
        order_type: 'Limit',
        reduce_only: false,
        is_trigger: false,
        is_position_tpsl: false,
      })),
    ]);
    // Act
    const external = await externalPrice(deps(), symbol, NOW);
    const bounds = await discoveryBoundsOf(deps(), symbol, NOW);
    const markOnly = await discoveryBoundsOf(deps(), 'xyz:MARKONLY', NOW);
    // Assess
    expect(external).toEqual({
      symbol,
      external_price: 101,
      mark_price: 101.5,
      block_number: 501,
      timestamp: new Date(T0 + 11_000).toISOString(),
      timestamp_ms: T0 + 11_000,
    });
    expect(bounds).toMatchObject({
      symbol,
      reference_price: 101,
      reference_source: 'external',
      max_leverage: 20,
      bound_fraction: 0.05,
      block_number: 501,
      timestamp_ms: T0 + 11_000,
    });
    expect(bounds.lower_bound).toBeCloseTo(95.95, 9);
    expect(markOnly).toMatchObject({
      reference_price: 50,
      reference_source: 'mark',
      max_leverage: 10,
      block_number: 0,
      lower_bound: expect.closeTo(45, 9),
      upper_bound: expect.closeTo(55, 9),
    });
    await expect(externalPrice(deps(), 'xyz:NONE', NOW)).rejects.toMatchObject({ code: 'not_found' });
  });
});
