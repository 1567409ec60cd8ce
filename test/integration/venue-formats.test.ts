/**
 * The venue's own files through ingest on the real components (S3, DynamoDB and DuckDB as the
 * local cloud runs them): a trade carried by node_trades and by a fills format is one row, the
 * venue's, whichever came first, before and after compaction (its candle counts it once); spot
 * pairs the files name by index are named by the spot metadata ingested before them; and every
 * symbol the registry had not seen becomes an instrument, once.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dedupeClause } from '#core/archive/dedupe.ts';
import { DERIVED_TRADE_IDS_FROM } from '#schemas/datasets.ts';
import { ingestBatch } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { readMinuteCandles } from '#core/archive/read-candles.ts';
import { readWindow } from '#core/archive/read-pages.ts';
import { derivedTradeId, type NodeTrade } from '#core/archive/node-trades.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';
import type { Family } from '#core/venues.ts';

const deps = scratchArchive();

const T = Date.UTC(2026, 10, 20, 8, 0, 0);
const buyer = '0x1111111111111111111111111111111111111111';
const seller = '0x2222222222222222222222222222222222222222';
const other = '0x3333333333333333333333333333333333333333';
const jsonl = (items: unknown[]) => `${items.map((item) => JSON.stringify(item)).join('\n')}\n`;
const naive = (ms: number) => new Date(ms).toISOString().replace('Z', '456789');

/** A trade the buyer takes, as both fill sides (by block) and as node_trades writes it. */
interface Trade {
  coin: string;
  tid: number;
  at: number;
  px: string;
  buyerOid: number;
  sellerOid: number;
  maker?: string;
}
const sides = ({ coin, tid, at, px, buyerOid, sellerOid, maker = seller }: Trade) => {
  const common = { coin, px, sz: '2.5', time: T + at, startPosition: '0', closedPnl: '0.0', hash: `0x${tid}`, tid, feeToken: 'USDC' };
  return [
    [buyer, { ...common, side: 'B', dir: 'Open Long', oid: buyerOid, crossed: true, fee: '0.1' }],
    [maker, { ...common, side: 'A', dir: 'Open Short', oid: sellerOid, crossed: false, fee: '-0.01' }],
  ];
};
const nodeTrade = ({ coin, at, px, buyerOid, sellerOid, maker = seller }: Trade): NodeTrade => ({
  coin,
  side: 'B',
  time: naive(T + at),
  px,
  sz: '2.5',
  hash: null,
  trade_dir_override: 'Na',
  side_info: [
    { user: buyer, start_pos: '0', oid: buyerOid, twap_id: null, cloid: null },
    { user: maker, start_pos: '0', oid: sellerOid, twap_id: null, cloid: null },
  ],
});
const block = (n: number, events: unknown[]) => ({ local_time: naive(T), block_time: naive(T), block_number: n, events });

const readTrades = async (symbol: string, family: Family = 'perpx') =>
  (await readWindow(deps(), { dataset: 'trades', family, symbol, from: T - 60_000, to: T + 3_600_000, limit: 1000 })).rows;
const registry = async (family: Family) => (await readWindow(deps(), { dataset: 'instruments', family, from: 0, to: Date.now(), limit: 1000 })).rows;

describe('a trade two formats carried', () => {
  for (const [symbol, first] of [
    ['ARB', 'node_trades'],
    ['OP', 'fills'],
  ] as const) {
    it(`is one row, the venue's, when ${first} came first, before and after compaction`, async () => {
      // Prepare: x in both formats, y only in node_trades, z only in fills; w1 and w2 fill one taker order
      // at one price and size against two makers (the same content but for the maker): both real, both kept
      const trade = (tid: number, at: number, px: string, over: Partial<Trade> = {}): Trade => ({
        coin: symbol,
        tid,
        at,
        px,
        buyerOid: tid * 10,
        sellerOid: tid * 10 + 1,
        ...over,
      });
      const [x, y, z] = [trade(101, 1_000, '1.5'), trade(102, 2_000, '1.6'), trade(103, 3_000, '1.7')];
      const [w1, w2] = [trade(104, 4_000, '1.8', { buyerOid: 7 }), trade(105, 4_000, '1.8', { buyerOid: 7, maker: other })];
      const nodeTrades = jsonl([x, y, w1, w2].map(nodeTrade));
      const fills = jsonl([block(1, [...sides(x), ...sides(z), ...sides(w1), ...sides(w2)])]);
      // Act
      for (const [format, text] of first === 'node_trades'
        ? ([
            ['node_trades', nodeTrades],
            ['node_fills_by_block', fills],
          ] as const)
        : ([
            ['node_fills_by_block', fills],
            ['node_trades', nodeTrades],
          ] as const)) {
        expect(await ingestBatch(deps(), format, text)).toMatchObject({ status: 'ingested' });
      }
      const before = await readTrades(symbol);
      await compactArchive(deps(), { datasets: ['trades'], families: ['perpx'] });
      const after = await readTrades(symbol);
      const candles = await readMinuteCandles(deps(), { family: 'perpx', symbol, from: T, to: T + 60_000 });
      // Assess
      const expected = [101, derivedTradeId(nodeTrade(y)), 103, 104, 105];
      expect(before.map((r) => Number(r.trade_id))).toEqual(expected);
      expect(after.map((r) => Number(r.trade_id))).toEqual(expected);
      expect(after[0]).toMatchObject({ price: '1.5', fee: '0.1', taker_address: buyer, maker_address: seller });
      expect(candles.map((c) => Number(c.trade_count))).toEqual([5]);
    });
  }
});

describe('the rule that keeps a trade once (property, in DuckDB)', () => {
  it('keeps every trade once, with the venue id when a fills format carried it, however the two formats overlap', async () => {
    // Trades of one market at a few instants, prices and taker orders (so contents repeat); each instant's
    // trades are in node_trades, in fills, or in both (the trades of one block share a file of each format).
    const trades = fc.uniqueArray(
      fc.record({
        tid: fc.integer({ min: 1, max: 10_000 }),
        at: fc.integer({ min: 0, max: 3 }),
        px: fc.constantFrom('1', '2'),
        oid: fc.integer({ min: 1, max: 3 }),
      }),
      { selector: (t) => t.tid, minLength: 1, maxLength: 30 },
    );
    const carriers = fc.array(fc.constantFrom('node_trades', 'fills', 'both'), { minLength: 4, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(trades, carriers, async (list, carriedBy) => {
        // Prepare: a row per format that carries the trade; node_trades' id derived (above the venue's)
        const rows = list.flatMap((t) => {
          const carrier = carriedBy[t.at]!;
          return [...(carrier !== 'fills' ? [DERIVED_TRADE_IDS_FROM + t.tid] : []), ...(carrier !== 'node_trades' ? [t.tid] : [])].map((id) => ({ ...t, id }));
        });
        const column = (pick: (r: (typeof rows)[number]) => unknown) => rows.map((r) => String(pick(r)));
        // Act
        const kept = await deps().sql.query({
          sql: `SELECT trade_id FROM (SELECT 'perpx' AS family, 'ARB' AS symbol, unnest($ids)::BIGINT AS trade_id, unnest($ts)::BIGINT AS ts,
                unnest($px) AS price, '1' AS size, unnest($oid)::BIGINT AS order_id) ${dedupeClause('trades')} ORDER BY trade_id`,
          params: { ids: column((r) => r.id), ts: column((r) => T + r.at), px: column((r) => r.px), oid: column((r) => r.oid) },
        });
        // Assess
        const expected = list.map((t) => (carriedBy[t.at] === 'node_trades' ? DERIVED_TRADE_IDS_FROM + t.tid : t.tid)).sort((a, b) => a - b);
        expect(kept.map((r) => Number(r.trade_id))).toEqual(expected);
      }),
      { numRuns: 40 },
    );
  });
});

describe('the instrument registry of real files', () => {
  it('names spot pairs by the metadata ingested before, and lists each market it had not seen, once', async () => {
    // Prepare: the venue's spot metadata; fills of a named pair, an unnamed one, a core perp and a hip3 market
    const meta = {
      universe: [
        { name: 'PURR/USDC', tokens: [1, 0], index: 0, isCanonical: true },
        { name: '@107', tokens: [150, 0], index: 107, isCanonical: false },
      ],
      tokens: [
        { name: 'USDC', szDecimals: 8, weiDecimals: 8, index: 0 },
        { name: 'PURR', szDecimals: 0, weiDecimals: 5, index: 1 },
        { name: 'HYPE', szDecimals: 2, weiDecimals: 8, index: 150 },
      ],
    };
    const trade = (coin: string, tid: number): Trade => ({ coin, tid, at: 5_000, px: '40', buyerOid: tid * 10, sellerOid: tid * 10 + 1 });
    const fills = (n: number, tids: [string, number][]) =>
      jsonl([
        block(
          n,
          tids.flatMap(([coin, tid]) => sides(trade(coin, tid))),
        ),
      ]);
    // Act
    await ingestBatch(deps(), 'spot_meta', JSON.stringify(meta), undefined, { at: T - 86_400_000 });
    await ingestBatch(
      deps(),
      'node_fills_by_block',
      fills(10, [
        ['@107', 201],
        ['@300', 202],
        ['LDO', 203],
        ['xyz:TSLA', 204],
      ]),
    );
    await ingestBatch(
      deps(),
      'node_fills_by_block',
      fills(11, [
        ['LDO', 205],
        ['@107', 206],
      ]),
    );
    // Assess: trades under the pair's name; the metadata's pairs, and one inferred instrument per new market
    expect((await readTrades('HYPE-USDC', 'spot')).map((r) => Number(r.trade_id))).toEqual([201, 206]);
    expect((await readTrades('@300', 'spot')).map((r) => Number(r.trade_id))).toEqual([202]);
    const spot = (await registry('spot')).sort((a, b) => String(a.symbol).localeCompare(String(b.symbol)));
    expect(spot.map((r) => [r.symbol, r.ts])).toEqual([
      ['@300', T + 5_000],
      ['HYPE-USDC', T - 86_400_000],
      ['PURR-USDC', T - 86_400_000],
    ]);
    expect(spot[0]).toMatchObject({ market_type: 'spot', sz_decimals: 1, spot_pair: null });
    expect((await registry('perpx')).filter((r) => r.symbol === 'LDO')).toEqual([
      expect.objectContaining({ ts: T + 5_000, market_type: 'perp', sz_decimals: 1, quote: 'USDC' }),
    ]);
    expect(await registry('hip3')).toEqual([expect.objectContaining({ symbol: 'xyz:TSLA', market_type: 'perp', dex: 'xyz' })]);
  });
});
