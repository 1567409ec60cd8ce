/**
 * Instruments for the symbols of real files the registry has not seen: one per new market, listed
 * at its first row, its size decimals the most its sizes carry, nothing for known markets or for
 * families not of this venue.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { unseenInstruments } from '#core/archive/venue-registry.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';

const T = Date.parse('2026-05-20T00:00:00Z');
const trade = (family: string, symbol: string, ts: number, size: string) =>
  ({ dataset: 'trades', family, symbol, ts, trade_id: ts, side: 'B', price: '1', size }) as NormalizedRecord;

describe('unseenInstruments', () => {
  it('lists each new market once, as its family has it, and none the registry knows', () => {
    // Prepare
    const records: NormalizedRecord[] = [
      trade('perpx', 'BTC', T + 5, '0.001'),
      trade('perpx', 'BTC', T + 1, '0.12'),
      trade('perpx', 'ETH', T, '1'),
      trade('hip3', 'xyz:TSLA', T, '2.50'),
      trade('spot', 'HYPE-USDC', T, '3'),
      trade('spot', '@300', T, '3'),
      trade('hip4', '#10', T, '7'),
      trade('altx', 'ETH', T, '1'),
      { dataset: 'l4_checkpoints', family: 'perpx', symbol: 'SOL', ts: T, block_number: 1, seq: 0, bids: [[1, '0x11', '150', '0.25', null]], asks: [] },
      { dataset: 'funding', family: 'perpx', symbol: 'DOGE', ts: T, funding_rate: '0.0001' },
      { dataset: 'open_interest', family: 'perpx', symbol: 'ZRO', ts: T, open_interest: '0.30000000000000004' },
    ];
    // Act
    const listed = unseenInstruments(records, new Set(['perpx#ETH']));
    // Assess
    expect(listed).toEqual([
      { dataset: 'instruments', family: 'perpx', symbol: 'BTC', ts: T + 1, market_type: 'perp', sz_decimals: 3, quote: 'USDC' },
      { dataset: 'instruments', family: 'hip3', symbol: 'xyz:TSLA', ts: T, market_type: 'perp', sz_decimals: 1, dex: 'xyz' },
      { dataset: 'instruments', family: 'spot', symbol: 'HYPE-USDC', ts: T, market_type: 'spot', sz_decimals: 0, quote: 'USDC' },
      { dataset: 'instruments', family: 'spot', symbol: '@300', ts: T, market_type: 'spot', sz_decimals: 0 },
      { dataset: 'instruments', family: 'hip4', symbol: '#10', ts: T, market_type: 'outcome', sz_decimals: 0 },
      { dataset: 'instruments', family: 'perpx', symbol: 'SOL', ts: T, market_type: 'perp', sz_decimals: 2, quote: 'USDC' },
      { dataset: 'instruments', family: 'perpx', symbol: 'DOGE', ts: T, market_type: 'perp', sz_decimals: 0, quote: 'USDC' },
      { dataset: 'instruments', family: 'perpx', symbol: 'ZRO', ts: T, market_type: 'perp', sz_decimals: 0, quote: 'USDC' },
    ]);
  });

  it('leaves alone a market the batch itself lists (the spot metadata)', () => {
    const records: NormalizedRecord[] = [
      { dataset: 'instruments', family: 'spot', symbol: 'PURR-USDC', ts: T, market_type: 'spot', sz_decimals: 0 },
      trade('spot', 'PURR-USDC', T, '1'),
    ];
    expect(unseenInstruments(records, new Set())).toEqual([]);
  });

  it('lists a market at its first row with the most decimals its sizes carry (property)', () => {
    const sizes = fc.array(
      fc.record({ at: fc.integer({ min: 0, max: 1_000_000 }), units: fc.integer({ min: 1, max: 99_999 }), scale: fc.integer({ min: 0, max: 8 }) }),
      { minLength: 1, maxLength: 20 },
    );
    fc.assert(
      fc.property(sizes, (list) => {
        const text = ({ units, scale }: { units: number; scale: number }) => (units / 10 ** scale).toFixed(scale);
        const [instrument] = unseenInstruments(
          list.map((s) => trade('perpx', 'BTC', T + s.at, text(s))),
          new Set(),
        );
        const decimals = Math.max(...list.map((s) => text(s).split('.')[1]?.replace(/0+$/, '').length ?? 0));
        expect(instrument).toMatchObject({ ts: T + Math.min(...list.map((s) => s.at)), sz_decimals: decimals });
      }),
    );
  });
});
