import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { TradeRecord } from '#schemas/datasets.ts';
import { fixtureTrades } from '#local/demo/fixture.ts';
import { createDemoMarket } from '#local/demo/market.ts';
import { type NodeFillBlock, nodeFillBlocks, renderNodeFillsByBlock, takerTrades } from '#local/demo/node-fills.ts';

const START = Date.UTC(2026, 2, 10);
const FIXTURES = 'test/fixtures/node_fills_by_block';
const NODE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}$/;

let trades: TradeRecord[];

beforeAll(() => {
  trades = createDemoMarket({ startMs: START })
    .advance(START + 5 * 60_000)
    .filter((r): r is TradeRecord => r.dataset === 'trades' && ['perpx', 'hip3', 'spot'].includes(r.family));
});

/** A taker-side trade as the node format carries it: no builder address, deployer fee or gas; absent options null. */
const asNodeCarries = ({ builder_address: _b, deployer_fee: _d, priority_gas: _p, ...trade }: TradeRecord) => ({
  ...trade,
  cloid: trade.cloid ?? null,
  twap_id: trade.twap_id ?? null,
  builder_fee: trade.builder_fee ?? null,
});

describe('renderNodeFillsByBlock', () => {
  it('writes one JSON line per second with fills, numbered from the block start', () => {
    // Act
    const lines = renderNodeFillsByBlock(trades, 1_000).trimEnd().split('\n');
    // Assess
    const blocks = lines.map((line) => JSON.parse(line) as NodeFillBlock);
    expect(blocks.map((b) => Object.keys(b))).toEqual(blocks.map(() => ['local_time', 'block_time', 'block_number', 'events']));
    expect(blocks[0]!.block_number).toBe(1_000);
    expect(blocks.every((b, i) => i === 0 || b.block_number > blocks[i - 1]!.block_number)).toBe(true);
    for (const block of blocks) {
      expect(block.block_time).toMatch(NODE_TIME);
      expect(block.local_time).toMatch(NODE_TIME);
      expect(block.local_time > block.block_time).toBe(true);
      const seconds = new Set(block.events.map(([, fill]) => Math.floor(fill.time / 1000)));
      expect(seconds.size).toBe(1);
      expect(block.block_number - 1_000).toBe([...seconds][0]! - Math.floor(trades[0]!.ts / 1000));
    }
  });

  it('writes every trade twice: the taker on its side, the maker on the other, same tid and hash', () => {
    const blocks = nodeFillBlocks(trades);
    const events = blocks.flatMap((b) => b.events);
    expect(events).toHaveLength(2 * trades.length);
    for (let i = 0; i < events.length; i += 2) {
      const [[takerUser, taker], [makerUser, maker]] = [events[i]!, events[i + 1]!];
      const trade = trades.find((t) => t.trade_id === taker.tid)!;
      expect(taker).toMatchObject({ crossed: true, tid: trade.trade_id, hash: trade.tx_hash, px: trade.price, sz: trade.size, time: trade.ts });
      expect(maker).toMatchObject({ crossed: false, tid: taker.tid, hash: taker.hash, px: taker.px, sz: taker.sz, time: taker.time });
      expect(maker.side).toBe(taker.side === 'B' ? 'A' : 'B');
      expect([takerUser, makerUser]).toEqual([trade.taker_address, trade.maker_address]);
      expect(taker.twapId === null || Number.isInteger(taker.twapId)).toBe(true);
      // The recorded side's fill keeps the record's own numbers.
      const own = trade.crossed ? taker : maker;
      expect(own).toMatchObject({
        startPosition: trade.start_position,
        dir: trade.direction,
        closedPnl: trade.closed_pnl,
        fee: trade.fee,
        oid: trade.order_id,
        feeToken: trade.fee_token,
      });
    }
  });

  it('names coins as the node does', () => {
    const coins = new Set(nodeFillBlocks(trades).flatMap((b) => b.events.map(([, fill]) => fill.coin)));
    expect(coins).toContain('BTC');
    expect(coins).toContain('xyz:TSLA');
    expect(coins).toContain('HYPE/USDC');
    const altx = createDemoMarket({ startMs: START })
      .advance(START + 60_000)
      .filter((r): r is TradeRecord => r.dataset === 'trades' && r.family === 'altx');
    expect(() => renderNodeFillsByBlock(altx.slice(0, 1))).toThrow(/altx/);
  });

  it('keeps each counterparty position consistent from fill to fill', () => {
    const byUser = new Map<string, { start: number; size: number; side: string }[]>();
    for (const [user, fill] of nodeFillBlocks(trades).flatMap((b) => b.events)) {
      const key = `${user} ${fill.coin}`;
      byUser.set(key, [...(byUser.get(key) ?? []), { start: Number(fill.startPosition), size: Number(fill.sz), side: fill.side }]);
    }
    for (const fills of byUser.values()) {
      fills.forEach((fill, i) => {
        const previous = fills[i - 1];
        if (previous) expect(fill.start).toBeCloseTo(previous.start + (previous.side === 'B' ? 1 : -1) * previous.size, 6);
      });
    }
  });

  it('decodes back to the taker-side trades it was given', () => {
    const takerSide = trades.filter((t) => t.crossed);
    expect(takerTrades(nodeFillBlocks(takerSide))).toEqual(takerSide.map(asNodeCarries));
  });
});

describe('the node_fills_by_block fixture', () => {
  const jsonl = readFileSync(`${FIXTURES}/sample.jsonl`, 'utf8');
  const expected = JSON.parse(readFileSync(`${FIXTURES}/sample.expected.json`, 'utf8')) as TradeRecord[];

  it('is what write-fixture renders from the seeded run', () => {
    const source = fixtureTrades();
    expect(jsonl).toBe(renderNodeFillsByBlock(source));
    expect(expected).toEqual(takerTrades(nodeFillBlocks(source)));
  });

  it('holds a few hundred blocks of both families, with a liquidation, and valid expected trades', () => {
    const blocks = jsonl
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as NodeFillBlock);
    expect(blocks.length).toBeGreaterThan(200);
    expect(blocks.length).toBeLessThan(1_000);
    expect(new Set(expected.map((t) => t.family))).toEqual(new Set(['perpx', 'hip3']));
    expect(expected.some((t) => t.is_liquidation)).toBe(true);
    const liquidations = blocks.flatMap((b) => b.events).filter(([, fill]) => fill.liquidation);
    expect(liquidations.length).toBeGreaterThan(0);
    expect(liquidations.every(([user, fill]) => fill.crossed && fill.liquidation!.liquidatedUser === user && fill.liquidation!.method === 'market')).toBe(true);
    expect(expected).toHaveLength(blocks.reduce((n, b) => n + b.events.length / 2, 0));
    expect(new Set(expected.map((t) => t.trade_id)).size).toBe(expected.length);
    expect(expected.filter((t) => !v.safeParse(TradeRecord, t).success)).toEqual([]);
  });
});
