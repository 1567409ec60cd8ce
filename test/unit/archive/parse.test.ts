import { describe, expect, it } from 'vitest';
import { parseBatch } from '#core/archive/parse.ts';
import { familyOfCoin } from '#core/archive/node-fills.ts';

const taker = '0x1111111111111111111111111111111111111111';
const maker = '0x2222222222222222222222222222222222222222';
const fill = (over: Record<string, unknown>) => ({
  coin: 'BTC',
  px: '97000.5',
  sz: '0.1',
  side: 'B',
  time: 1763683200123,
  startPosition: '0',
  dir: 'Open Long',
  closedPnl: '0.0',
  hash: '0xabc',
  oid: 11,
  crossed: true,
  fee: '0.97',
  tid: 555,
  feeToken: 'USDC',
  twapId: null,
  ...over,
});
const block = (events: unknown[], n = 700_000_000) =>
  JSON.stringify({
    local_time: '2025-11-21T00:00:00.200000000',
    block_time: '2025-11-21T00:00:00.123000000',
    block_number: n,
    events,
  });

describe('node_fills_by_block', () => {
  it('turns the two sides of a trade into one trade row from the taker, naming the maker', () => {
    // Prepare
    const text = block([
      [taker, fill({})],
      [maker.toUpperCase().replace('0X', '0x'), fill({ side: 'A', crossed: false, oid: 12, fee: '-0.01', dir: 'Open Short' })],
    ]);
    // Act
    const result = parseBatch('node_fills_by_block', text);
    // Assess
    expect(result).toMatchObject({
      ok: true,
      records: [
        {
          dataset: 'trades',
          family: 'perpx',
          symbol: 'BTC',
          ts: 1763683200123,
          trade_id: 555,
          side: 'B',
          price: '97000.5',
          size: '0.1',
          crossed: true,
          fee: '0.97',
          fee_token: 'USDC',
          closed_pnl: '0.0',
          direction: 'Open Long',
          start_position: '0',
          user_address: taker,
          tx_hash: '0xabc',
          order_id: 11,
          cloid: null,
          maker_address: maker,
          taker_address: taker,
          twap_id: null,
          builder_fee: null,
          is_liquidation: false,
        },
      ],
    });
    expect(result.ok && result.records).toHaveLength(1);
    expect(result.ok && JSON.parse(result.lines[0]!)).toEqual(result.ok && result.records[0]);
  });

  it('adds a liquidation record for the liquidated side', () => {
    const liquidated = { liquidation: { liquidatedUser: maker, markPx: '96000', method: 'market' } };
    const text = block([
      [taker, fill({ coin: 'xyz:TSLA', tid: 9 })],
      [maker, fill({ coin: 'xyz:TSLA', tid: 9, side: 'A', crossed: false, dir: 'Close Long', closedPnl: '-50', ...liquidated })],
    ]);
    const result = parseBatch('node_fills_by_block', text);
    expect(result.ok && result.records.map((r) => r.dataset)).toEqual(['trades', 'liquidations']);
    expect(result.ok && result.records[1]).toMatchObject({
      family: 'hip3',
      symbol: 'xyz:TSLA',
      liquidated_user: maker,
      liquidator_user: taker,
      side: 'A',
      mark_price: '96000',
      closed_pnl: '-50',
    });
    expect(result.ok && result.records[0]).toMatchObject({ is_liquidation: true });
  });

  it('refuses the whole batch when one block is malformed, naming the line', () => {
    const text = [block([[taker, fill({})]]), '{"block_number": "x"}', block([[taker, fill({ tid: 2 })]])].join('\n');
    const result = parseBatch('node_fills_by_block', text);
    expect(result).toMatchObject({ ok: false });
    expect(!result.ok && result.reason).toMatch(/^batch refused \(node_fills_by_block\): line 2: /);
  });

  it('maps coin forms to families', () => {
    expect(familyOfCoin('ETH')).toEqual({ family: 'perpx', symbol: 'ETH' });
    expect(familyOfCoin('km:US500')).toEqual({ family: 'hip3', symbol: 'km:US500' });
    expect(familyOfCoin('PURR/USDC')).toEqual({ family: 'spot', symbol: 'PURR-USDC' });
    expect(familyOfCoin('#10')).toEqual({ family: 'hip4', symbol: '#10' });
    // A spot pair by index keeps its name until the spot metadata names it (parse options).
    expect(familyOfCoin('@107')).toEqual({ family: 'spot', symbol: '@107' });
    expect(familyOfCoin('@1234567')).toMatchObject({ error: expect.stringMatching(/unknown coin form/) });
  });

  it('reports the time of each block it read, by block number (an L4 snapshot is timed by them)', () => {
    const trade = [
      [taker, fill({})],
      [maker, fill({ side: 'A', crossed: false, oid: 12 })],
    ];
    const result = parseBatch('node_fills_by_block', [block(trade, 700_000_000), block([], 700_000_001)].join('\n'));
    const streamed = parseBatch('node_fills_streaming', [block([trade[0]], 700_000_000), block([trade[1]], 700_000_000)].join('\n'));
    expect(result.ok && [...result.blockTimes]).toEqual([
      [700_000_000, 1763683200123],
      [700_000_001, 1763683200123],
    ]);
    expect(streamed.ok && [...streamed.blockTimes]).toEqual([[700_000_000, 1763683200123]]);
  });

  it('names a spot pair given by index through the spot names given, and keeps the index name otherwise', () => {
    const spot = (coin: string, tid: number) => [
      [taker, fill({ coin, tid })],
      [maker, fill({ coin, tid, side: 'A', crossed: false, oid: 12 })],
    ];
    const text = block([...spot('@107', 1), ...spot('@108', 2)]);
    const result = parseBatch('node_fills_by_block', text, { spotNames: new Map([[107, 'HYPE-USDC']]) });
    expect(result.ok && result.records.map((r) => [r.family, r.symbol])).toEqual([
      ['spot', 'HYPE-USDC'],
      ['spot', '@108'],
    ]);
  });
});

describe('normalized batches', () => {
  it('refuses an empty batch and lines that are not JSON', () => {
    expect(parseBatch('normalized', '\n\n')).toEqual({ ok: false, reason: 'batch refused (normalized): no records' });
    expect(parseBatch('normalized', 'nope')).toEqual({ ok: false, reason: 'batch refused (normalized): line 1: not JSON' });
  });

  it('refuses an unknown dataset and a perpx snapshot deeper than 20 levels, and takes an altx snapshot of every level', () => {
    const deep = { dataset: 'l2_snapshots', family: 'perpx', symbol: 'BTC', ts: 1763683200000, bids: Array(21).fill(['1', '1', 1]), asks: [] };
    expect(parseBatch('normalized', JSON.stringify({ dataset: 'quotes', family: 'perpx', symbol: 'BTC', ts: 1763683200000 })).ok).toBe(false);
    expect(parseBatch('normalized', JSON.stringify(deep))).toMatchObject({ ok: false, reason: expect.stringMatching(/at most 20 levels/) });
    expect(parseBatch('normalized', JSON.stringify({ ...deep, family: 'altx', symbol: 'ETH' })).ok).toBe(true);
  });
});

describe('normalized', () => {
  it('refuses a record of a family that does not have its dataset, naming the families that do', () => {
    // Prepare
    const record = {
      dataset: 'liquidations',
      family: 'altx',
      symbol: 'ETH',
      ts: 1_780_000_000_000,
      trade_id: 1,
      liquidated_user: taker,
      price: '1',
      size: '1',
      side: 'A',
    };
    // Act
    const refused = parseBatch('normalized', JSON.stringify(record));
    const accepted = parseBatch('normalized', JSON.stringify({ ...record, family: 'hip3', symbol: 'xyz:TSLA' }));
    // Assess
    expect(refused).toEqual({ ok: false, reason: 'batch refused (normalized): line 1: family altx has no liquidations (perpx, hip3 have)' });
    expect(accepted.ok).toBe(true);
  });
});
