/**
 * The node's older and streaming trade formats (node_fills, node_trades, node_fills_streaming):
 * pairing a trade's sides across lines, the derived id of node_trades and its duplicates, optional
 * and unknown fields, refusals naming line and field, and (property) streaming input of generated
 * blocks giving the rows their by-block form gives.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseBatch } from '#core/archive/parse.ts';
import { derivedTradeId, epochMsOfNaive, type NodeTrade } from '#core/archive/node-trades.ts';

const taker = '0x1111111111111111111111111111111111111111';
const maker = '0x2222222222222222222222222222222222222222';
const fill = (over: Record<string, unknown>) => ({
  coin: 'BTC',
  px: '97000.5',
  sz: '0.1',
  side: 'B',
  time: 1748217600123,
  startPosition: '0',
  dir: 'Open Long',
  closedPnl: '0.0',
  hash: '0xabc',
  oid: 11,
  crossed: true,
  fee: '0.97',
  tid: 555,
  feeToken: 'USDC',
  ...over,
});
const makerFill = (over: Record<string, unknown>) => fill({ side: 'A', crossed: false, oid: 12, fee: '-0.01', dir: 'Open Short', ...over });
const lines = (...items: unknown[]) => `${items.map((item) => JSON.stringify(item)).join('\n')}\n`;

const nodeTrade = (over: Partial<NodeTrade> = {}): NodeTrade => ({
  coin: 'ETH',
  side: 'A',
  time: '2025-03-22T10:48:33.216798262',
  px: '2010.5',
  sz: '1.25',
  hash: '0xdef',
  trade_dir_override: 'Na',
  side_info: [
    { user: maker, start_pos: '3.5', oid: 101, twap_id: null, cloid: null },
    { user: taker, start_pos: '-2', oid: 102, twap_id: 7, cloid: '0x0000000000000000000000000000abcd' },
  ],
  ...over,
});

describe('node_fills', () => {
  it('pairs the two sides of a trade on separate lines into one row from the taker, naming the maker', () => {
    // Prepare: the maker's side first, another trade between them
    const text = lines([maker, makerFill({})], [taker, fill({ tid: 556, oid: 20 })], [taker, fill({})], [maker, makerFill({ tid: 556, oid: 21 })]);
    // Act
    const result = parseBatch('node_fills', text);
    // Assess
    expect(result.ok && result.records).toHaveLength(2);
    expect(result.ok && result.records[0]).toMatchObject({
      dataset: 'trades',
      family: 'perpx',
      symbol: 'BTC',
      ts: 1748217600123,
      trade_id: 555,
      side: 'B',
      crossed: true,
      user_address: taker,
      maker_address: maker,
      taker_address: taker,
      order_id: 11,
      fee: '0.97',
      tx_hash: '0xabc',
    });
  });

  it('reads optional fields when present and takes unknown ones without refusing the line', () => {
    const text = lines(
      [
        taker,
        fill({
          hash: null,
          cloid: '0x00000000000000000000000000000001',
          builderFee: '0.01',
          builder: maker.toUpperCase().replace('0X', '0x'),
          deployerFee: '0.002',
          priorityGas: '0.5',
          twapId: 4,
          somethingNew: { nested: true },
        }),
      ],
      [maker, makerFill({})],
    );
    const result = parseBatch('node_fills', text);
    expect(result.ok && result.records[0]).toMatchObject({
      tx_hash: null,
      cloid: '0x00000000000000000000000000000001',
      builder_fee: '0.01',
      builder_address: maker,
      deployer_fee: '0.002',
      priority_gas: '0.5',
      twap_id: 4,
    });
  });

  it('adds a liquidation when a side carries one, its user the liquidated one when the field omits it', () => {
    const text = lines([taker, fill({})], [maker, makerFill({ dir: 'Close Long', liquidation: { markPx: '96000', method: 'market' } })]);
    const result = parseBatch('node_fills', text);
    expect(result.ok && result.records.map((r) => r.dataset)).toEqual(['trades', 'liquidations']);
    expect(result.ok && result.records[1]).toMatchObject({ liquidated_user: maker, liquidator_user: taker, mark_price: '96000' });
  });

  it('keeps a side listed twice once', () => {
    const text = lines([taker, fill({})], [maker, makerFill({})], [taker, fill({})]);
    const result = parseBatch('node_fills', text);
    expect(result.ok && result.records).toHaveLength(1);
    expect(result.ok && result.records[0]).toMatchObject({ maker_address: maker });
  });

  it('refuses the batch naming the line and the field that breaks a row', () => {
    const text = lines([taker, fill({})], [maker, makerFill({ px: 'abc' })]);
    const result = parseBatch('node_fills', text);
    expect(result).toMatchObject({ ok: false });
    expect(!result.ok && result.reason).toMatch(/^batch refused \(node_fills\): line 2: 1\.px must be a decimal string/);
  });
});

describe('node_trades', () => {
  it('makes one row per trade from the taker (side_info[1], the seller, when side is A)', () => {
    const result = parseBatch('node_trades', lines(nodeTrade()));
    expect(result.ok && result.records).toEqual([
      {
        dataset: 'trades',
        family: 'perpx',
        symbol: 'ETH',
        ts: Date.UTC(2025, 2, 22, 10, 48, 33, 216),
        trade_id: derivedTradeId(nodeTrade()),
        side: 'A',
        price: '2010.5',
        size: '1.25',
        crossed: true,
        start_position: '-2',
        user_address: taker,
        tx_hash: '0xdef',
        order_id: 102,
        cloid: '0x0000000000000000000000000000abcd',
        maker_address: maker,
        taker_address: taker,
        twap_id: 7,
      },
    ]);
  });

  it('collapses a trade listed twice and keeps distinct trades of one transaction apart', () => {
    const second = nodeTrade({ side_info: [{ ...nodeTrade().side_info[0], oid: 103 }, nodeTrade().side_info[1]] });
    const result = parseBatch('node_trades', lines(nodeTrade(), second, nodeTrade(), second));
    expect(result.ok && result.records.map((r) => (r as { trade_id: number }).trade_id)).toEqual([derivedTradeId(nodeTrade()), derivedTradeId(second)]);
  });

  it('derives a stable id in [2^52, 2^53) from the content', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0 }), fc.integer({ min: 0 }), (hash, a, b) => {
        const trade = nodeTrade({
          hash,
          side_info: [
            { ...nodeTrade().side_info[0], oid: a },
            { ...nodeTrade().side_info[1], oid: b },
          ],
        });
        const id = derivedTradeId(trade);
        return Number.isSafeInteger(id) && id >= 2 ** 52 && id < 2 ** 53 && id === derivedTradeId(structuredClone(trade));
      }),
    );
  });

  it('reads naive times of any precision as UTC', () => {
    expect(epochMsOfNaive('2024-07-26T08:26:25.899')).toBe(Date.UTC(2024, 6, 26, 8, 26, 25, 899));
    expect(epochMsOfNaive('2024-07-26T08:26:25')).toBe(Date.UTC(2024, 6, 26, 8, 26, 25));
    expect(epochMsOfNaive('2024-07-26T08:26:25.5')).toBe(Date.UTC(2024, 6, 26, 8, 26, 25, 500));
  });

  it('takes a null hash, absent twap and cloid, and unknown fields', () => {
    const bare = nodeTrade({ hash: null, side: 'B' });
    const sides = bare.side_info.map(({ user, start_pos, oid }) => ({ user, start_pos, oid, extra: 1 }));
    const result = parseBatch('node_trades', lines({ ...bare, side_info: sides, trade_dir_override: undefined, liquidation: null }));
    expect(result.ok && result.records[0]).toMatchObject({ tx_hash: null, twap_id: null, cloid: null, user_address: maker, order_id: 101 });
  });

  it('refuses naming the line and the field', () => {
    const broken = { ...nodeTrade(), side_info: [nodeTrade().side_info[0], { ...nodeTrade().side_info[1], oid: 'x' }] };
    const result = parseBatch('node_trades', lines(nodeTrade(), broken));
    expect(!result.ok && result.reason).toMatch(/^batch refused \(node_trades\): line 2: side_info\.1\.oid /);
  });
});

describe('node_fills_streaming', () => {
  const envelope = (n: number, events: unknown[]) => ({ local_time: '2025-08-01T00:00:00.5', block_time: '2025-08-01T00:00:00.1', block_number: n, events });
  const user = fc.constantFrom(taker, maker, '0x3333333333333333333333333333333333333333');
  const coin = fc.constantFrom('BTC', 'ETH', 'xyz:TSLA', 'PURR/USDC', '#12');
  let nextTid = 1;
  /** Both sides of one trade, the taker's first or second. */
  const trade = fc
    .record({
      coin,
      buyer: user,
      seller: user,
      buyerTakes: fc.boolean(),
      takerFirst: fc.boolean(),
      px: fc.integer({ min: 1, max: 99999 }),
      liquidated: fc.boolean(),
    })
    .map(({ coin, buyer, seller, buyerTakes, takerFirst, px, liquidated }) => {
      const tid = nextTid++;
      const buy = [buyer, fill({ coin, tid, oid: tid * 2, px: String(px), side: 'B', crossed: buyerTakes })];
      const sell = [
        seller,
        makerFill({
          coin,
          tid,
          oid: tid * 2 + 1,
          px: String(px),
          crossed: !buyerTakes,
          ...(liquidated && { liquidation: { liquidatedUser: seller, markPx: '1', method: 'market' } }),
        }),
      ];
      const [takerSide, makerSide] = buyerTakes ? [buy, sell] : [sell, buy];
      return takerFirst ? [takerSide, makerSide] : [makerSide, takerSide];
    });
  const blocks = fc.array(fc.array(trade, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 });
  const sorted = (records: unknown[]) => records.map((r) => JSON.stringify(r)).sort();

  it('gives, for the same blocks, the rows their by-block form gives, however the events are spread over lines', () => {
    fc.assert(
      fc.property(blocks, fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 64, maxLength: 64 }), (generated, cuts) => {
        const byBlock = generated.map((trades, b) => envelope(1000 + b, trades.flat()));
        // Streaming: each block's events in order, cut into lines of 1 to 3 events (a trade's sides may part).
        const streaming: unknown[] = [];
        let c = 0;
        for (const block of byBlock) {
          for (let at = 0; at < block.events.length; ) {
            const size = cuts[c++ % cuts.length]!;
            streaming.push({ ...block, local_time: `2025-08-01T00:00:0${c % 10}.5`, events: block.events.slice(at, at + size) });
            at += size;
          }
        }
        const a = parseBatch('node_fills_by_block', lines(...byBlock));
        const b = parseBatch('node_fills_streaming', lines(...streaming));
        expect(a.ok && b.ok).toBe(true);
        expect(b.ok && sorted(b.records)).toEqual(a.ok && sorted(a.records));
      }),
      { numRuns: 100 },
    );
  });

  it('refuses a malformed envelope naming the line', () => {
    const result = parseBatch('node_fills_streaming', lines(envelope(1, [[taker, fill({})]]), { ...envelope(1, []), block_number: 'x' }));
    expect(!result.ok && result.reason).toMatch(/^batch refused \(node_fills_streaming\): line 2: block_number /);
  });
});
