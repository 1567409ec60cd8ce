/**
 * The node info server's L4 snapshot (`node_l4_snapshot`): both book shapes (with and without
 * trigger orders asked for), checkpoints at the block after its last diff, the order fields as the
 * node writes them, refusals naming the element, the time the file lacks, and a mainnet-sized
 * snapshot parsed in one pass.
 */
import { describe, expect, it } from 'vitest';
import { parseBatch } from '#core/archive/parse.ts';
import { AFTER_WHOLE_BLOCK, snapshotHeight } from '#core/archive/node-snapshot.ts';
import { formatOfContent } from '#core/archive/sniff.ts';

const alice = '0x1111111111111111111111111111111111111111';
const bob = '0x2222222222222222222222222222222222222222';
const AT = Date.parse('2026-05-20T10:00:00.250Z');
/** An order as the node writes it into a snapshot. */
const order = (coin: string, side: 'B' | 'A', limitPx: string, sz: string, oid: number, over: Record<string, unknown> = {}) => ({
  coin,
  side,
  limitPx,
  sz,
  oid,
  timestamp: 1779271000000 + oid,
  triggerCondition: 'N/A',
  isTrigger: false,
  triggerPx: '0.0',
  children: [],
  isPositionTpsl: false,
  reduceOnly: false,
  orderType: 'Limit',
  origSz: sz,
  tif: 'Alo',
  cloid: null,
  ...over,
});

describe('node_l4_snapshot', () => {
  it('makes one checkpoint per coin at the snapshot block, after its whole block, orders in book order', () => {
    // Prepare: BTC with two bids at one price (queue order) and an ask; a spot pair by index; an empty market
    const text = JSON.stringify([
      812_345_678,
      [
        [
          'BTC',
          [
            [
              [alice, order('BTC', 'B', '97000', '0.5', 11)],
              [bob, order('BTC', 'B', '97000', '0.25', 12, { origSz: '1.0' })],
              [alice, order('BTC', 'B', '96999', '1', 13)],
            ],
            [[bob, order('BTC', 'A', '97001', '0.1', 14, { cloid: '0x000000000000000000000000000000ab' })]],
          ],
        ],
        ['@107', [[[alice, order('@107', 'B', '30.1', '10', 15)]], []]],
        ['xyz:TSLA', [[], []]],
      ],
    ]);
    // Act
    const result = parseBatch('node_l4_snapshot', text, { at: AT, spotNames: new Map([[107, 'HYPE-USDC']]) });
    // Assess
    expect(result.ok && result.records).toEqual([
      {
        dataset: 'l4_checkpoints',
        family: 'perpx',
        symbol: 'BTC',
        ts: AT,
        block_number: 812_345_678,
        seq: AFTER_WHOLE_BLOCK,
        bids: [
          [11, alice, '97000', '0.5', 1779271000011, '0.5'],
          [12, bob, '97000', '0.25', 1779271000012, '1.0'],
          [13, alice, '96999', '1', 1779271000013, '1'],
        ],
        asks: [[14, bob, '97001', '0.1', 1779271000014, '0.1']],
      },
      {
        dataset: 'l4_checkpoints',
        family: 'spot',
        symbol: 'HYPE-USDC',
        ts: AT,
        block_number: 812_345_678,
        seq: AFTER_WHOLE_BLOCK,
        bids: [[15, alice, '30.1', '10', 1779271000015, '10']],
        asks: [],
      },
      { dataset: 'l4_checkpoints', family: 'hip3', symbol: 'xyz:TSLA', ts: AT, block_number: 812_345_678, seq: AFTER_WHOLE_BLOCK, bids: [], asks: [] },
    ]);
  });

  it('reads the book of a snapshot asked with trigger orders, leaving out those not yet triggered', () => {
    const text = JSON.stringify([
      5,
      [
        [
          'ETH',
          {
            book_orders: [[[alice, order('ETH', 'B', '3000', '1', 1)]], [[bob, order('ETH', 'A', '3001', '2', 2)]]],
            untriggered_orders: [[bob, order('ETH', 'A', '2500', '1', 3, { isTrigger: true, triggerPx: '2600', orderType: 'Stop Market' })]],
          },
        ],
      ],
    ]);
    const result = parseBatch('node_l4_snapshot', text, { at: AT });
    expect(result.ok && result.records).toMatchObject([
      { symbol: 'ETH', bids: [[1, alice, '3000', '1', 1779271000001, '1']], asks: [[2, bob, '3001', '2', 1779271000002, '2']] },
    ]);
  });

  it('keeps orders of a pretty-printed snapshot, puts bids best first, and takes fields the node adds', () => {
    const text = JSON.stringify(
      [
        9,
        [
          [
            'SOL',
            [
              [
                [alice, order('SOL', 'B', '150', '1', 1)],
                [alice, order('SOL', 'B', '151', '1', 2, { newField: { x: 1 } })],
              ],
              [],
            ],
          ],
        ],
      ],
      null,
      2,
    );
    const result = parseBatch('node_l4_snapshot', text, { at: AT });
    expect(result.ok && result.records[0]).toMatchObject({
      bids: [
        [2, alice, '151', '1', 1779271000002, '1'],
        [1, alice, '150', '1', 1779271000001, '1'],
      ],
    });
  });

  it('refuses a snapshot without a time, saying how to give one', () => {
    const result = parseBatch('node_l4_snapshot', JSON.stringify([77, [['BTC', [[], []]]]]));
    expect(!result.ok && result.reason).toBe(
      "batch refused (node_l4_snapshot): the snapshot at block 77 carries no time: pass --at, or ingest it with the node's block files holding block 77 or 78",
    );
  });

  it('refuses naming the coin, side, order and field; an order without its user; a cut file by line and column', () => {
    const bad = parseBatch('node_l4_snapshot', JSON.stringify([1, [['BTC', [[[alice, order('BTC', 'B', 'abc', '1', 1)]], []]]]]), { at: AT });
    expect(!bad.ok && bad.reason).toBe('batch refused (node_l4_snapshot): BTC bids[0] 1.limitPx: must be a decimal string');
    const noUser = parseBatch('node_l4_snapshot', JSON.stringify([1, [['BTC', [[], [order('BTC', 'A', '1', '1', 1)]]]]]), { at: AT });
    expect(!noUser.ok && noUser.reason).toMatch(/BTC asks\[0\]: must be \[user, order\] \(snapshots written with includeUsers: true\)/);
    const wrongSide = parseBatch('node_l4_snapshot', JSON.stringify([1, [['BTC', [[[alice, order('BTC', 'A', '1', '1', 4)]], []]]]]), { at: AT });
    expect(!wrongSide.ok && wrongSide.reason).toMatch(/BTC bids\[0\]: order 4 is a BTC A order/);
    const text = JSON.stringify([1, [['BTC', [[[alice, order('BTC', 'B', '1', '1', 1)]], []]]]], null, 1);
    const cut = parseBatch('node_l4_snapshot', text.slice(0, text.length - 40), { at: AT });
    expect(!cut.ok && cut.reason).toMatch(/^batch refused \(node_l4_snapshot\): line \d+ column \d+: not JSON/);
  });

  it('is told by its content, without parsing it', () => {
    expect(snapshotHeight('[812345678,[["BTC",[[],[]]]]]')).toBe(812_345_678);
    expect(snapshotHeight('[\n  12,\n  [\n')).toBe(12);
    expect(snapshotHeight('["0x11",{}]')).toBeUndefined();
    expect(formatOfContent('[812345678,[["BTC",[[],[]]]]]')).toBe('node_l4_snapshot');
  });

  it('parses a mainnet-sized snapshot (51,000 orders, about 19 MB) in one pass', () => {
    // Prepare: 50 markets of 1,020 orders, fields as the node writes them
    const coins = Array.from({ length: 50 }, (_, c) => {
      const coin = `C${c}`;
      const side = (s: 'B' | 'A') =>
        Array.from({ length: 510 }, (_, i) => [
          i % 2 ? alice : bob,
          order(coin, s, String(s === 'B' ? 1000 - i * 0.5 : 1001 + i * 0.5), '123.456', c * 1_000_000 + i * 2 + (s === 'A' ? 1 : 0), {
            tif: 'Gtc',
            cloid: '0x0000000000000000000000000000abcd',
          }),
        ]);
      return [coin, [side('B'), side('A')]];
    });
    const text = JSON.stringify([900_000_000, coins]);
    // Act
    const result = parseBatch('node_l4_snapshot', text, { at: AT });
    // Assess
    expect(text.length).toBeGreaterThan(18_000_000);
    expect(result.ok && result.records).toHaveLength(50);
    expect(result.ok && result.records.reduce((n, r) => n + (r as { bids: unknown[] }).bids.length + (r as { asks: unknown[] }).asks.length, 0)).toBe(51_000);
  });
});
