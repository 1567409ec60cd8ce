/**
 * Recordings of the altx venue's API (formats altx_api, altx_rh_api), built from the shapes of the
 * venue's OpenAPI document and WebSocket reference: trades from REST answers and WS messages (one
 * row per trade id; the taker's side), books replayed from the order_book channel, L3 answers as
 * checkpoints, funding and open interest with the venue's units converted, market ids resolved or
 * refused, refusals naming line and field; and (property) the same trades split over WS and REST
 * recordings giving the rows one recording of them all gives.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseBatch, type ParseResult } from '#core/archive/parse.ts';
import { sniffFormat } from '#core/archive/sniff.ts';
import type { AltxMarkets } from '#core/archive/altx-markets.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';

const T = Date.UTC(2026, 5, 20, 12, 0, 0);
const lines = (...items: unknown[]) => `${items.map((item) => JSON.stringify(item)).join('\n')}\n`;
const records = (result: ParseResult) => {
  if (!result.ok) throw new Error(result.reason);
  return result.records;
};
const only = <D extends NormalizedRecord['dataset']>(result: ParseResult, dataset: D) =>
  records(result).filter((r): r is Extract<NormalizedRecord, { dataset: D }> => r.dataset === dataset);

/** A trade as the venue's OpenAPI `Trade` (and the trade channel) gives it. */
const trade = (over: Record<string, unknown> = {}) => ({
  trade_id: 14035051,
  tx_hash: '189068ebc6b5c7e5',
  type: 'trade',
  market_id: 0,
  size: '0.1187',
  price: '3335.65',
  usd_amount: '395.941655',
  ask_id: 41720126,
  bid_id: 41720037,
  ask_client_id: 7,
  bid_client_id: 8,
  ask_account_id: 2304,
  bid_account_id: 21504,
  is_maker_ask: false,
  block_height: 2204468,
  timestamp: T + 1_234,
  taker_fee: 200,
  taker_position_size_before: '-0.5',
  maker_fee: 20,
  ...over,
});
const orderBooks = (...markets: Record<string, unknown>[]) => ({
  code: 200,
  order_books: markets.map((m) => ({
    market_type: 'perp',
    status: 'active',
    taker_fee: '0.0000',
    maker_fee: '0.0000',
    supported_size_decimals: 4,
    supported_price_decimals: 2,
    ...m,
  })),
});
const ETH = { symbol: 'ETH', market_id: 0, created_at: String(T - 86_400_000), min_initial_margin_fraction: 500 };
const wsTrades = (...trades: unknown[]) => ({ channel: 'trade:0', type: 'update/trade', trades, liquidation_trades: [] });
const registry: AltxMarkets = new Map([[0, { archived: true, symbol: 'ETH', marketType: 'perp', szDecimals: 4 }]]);

describe('altx recordings: trades', () => {
  it("gives one row per trade id from REST answers and WS messages, from the taker's side, with the fee from its rate", () => {
    // Prepare: the maker was the bid (is_maker_ask false), so the taker sold; the same trade in a WS message and a REST answer
    const text = lines({ code: 200, trades: [trade()] }, wsTrades(trade(), trade({ trade_id: 14035052, is_maker_ask: true, taker_fee: undefined })));
    // Act
    const rows = only(parseBatch('altx_api', text, { altxMarkets: registry }), 'trades');
    // Assess
    expect(rows).toEqual([
      {
        dataset: 'trades',
        family: 'altx',
        symbol: 'ETH',
        ts: T + 1_234,
        trade_id: 14035051,
        side: 'A',
        price: '3335.65',
        size: '0.1187',
        crossed: true,
        fee_token: 'USDC',
        fee: '0.079188331',
        start_position: '-0.5',
        tx_hash: '189068ebc6b5c7e5',
        order_id: 41720126,
        account_index: '2304',
        is_liquidation: false,
      },
      expect.objectContaining({ trade_id: 14035052, side: 'B', order_id: 41720037, account_index: '21504', fee: '0' }),
    ]);
  });

  it("reads the reference's second timestamps and the live millisecond ones alike, and marks liquidation and deleverage trades", () => {
    const text = lines(wsTrades(trade({ trade_id: 1, timestamp: (T + 5_000) / 1000 }), trade({ trade_id: 2, timestamp: T + 5_000, type: 'liquidation' })), {
      channel: 'trade:0',
      type: 'update/trade',
      trades: [],
      liquidation_trades: [trade({ trade_id: 3, type: 'deleverage' })],
    });
    const rows = only(parseBatch('altx_api', text, { altxMarkets: registry }), 'trades');
    expect(rows.map((r) => [r.trade_id, r.ts, r.is_liquidation])).toEqual([
      [1, T + 5_000, false],
      [2, T + 5_000, true],
      [3, T + 1_234, true],
    ]);
  });

  it('leaves fields the venue omits when zero or empty out, and ignores fields it does not store', () => {
    const bare = {
      trade_id: 9,
      market_id: 0,
      size: '1',
      price: '2',
      ask_account_id: 1,
      bid_account_id: 2,
      is_maker_ask: true,
      timestamp: T,
      new_field: { x: 1 },
    };
    const [row] = only(parseBatch('altx_api', lines({ code: 200, trades: [bare] }), { altxMarkets: registry }), 'trades');
    expect(row).toEqual({
      dataset: 'trades',
      family: 'altx',
      symbol: 'ETH',
      ts: T,
      trade_id: 9,
      side: 'B',
      price: '2',
      size: '1',
      crossed: true,
      fee_token: 'USDC',
      account_index: '2',
      is_liquidation: false,
    });
  });
});

describe('altx recordings: markets', () => {
  it("maps ids through the recording's orderBooks answer and registers its markets as instruments with their id", () => {
    // Prepare: no registry; the answer wrapped with its receive time; a spot pair altx does not serve
    const text = lines(
      { time: T, path: '/api/v1/orderBooks', body: orderBooks(ETH, { symbol: 'ETH/USDC', market_id: 2048, market_type: 'spot' }) },
      wsTrades(trade()),
      { code: 200, trades: [trade({ trade_id: 5, market_id: 2048 })] },
    );
    // Act
    const result = parseBatch('altx_api', text);
    // Assess
    expect(only(result, 'trades').map((r) => [r.symbol, r.trade_id])).toEqual([['ETH', 14035051]]);
    expect(only(result, 'instruments')).toEqual([
      { dataset: 'instruments', family: 'altx', symbol: 'ETH', ts: T - 86_400_000, market_type: 'perp', sz_decimals: 4, market_id: 0, max_leverage: 20 },
    ]);
  });

  it('names altx-rh markets in its forms: bare perps and USDG pairs dashed, with USDG fees', () => {
    const text = lines(
      orderBooks({ symbol: 'BTC', market_id: 1 }, { symbol: 'BTC/USDG', market_id: 2049, market_type: 'spot', size_decimals: 5, created_at: String(T) }),
      wsTrades(trade({ market_id: 1 }), trade({ trade_id: 7, market_id: 2049 })),
    );
    const result = parseBatch('altx_rh_api', text);
    expect(only(result, 'trades').map((r) => [r.family, r.symbol, r.fee_token])).toEqual([
      ['altx-rh', 'BTC', 'USDG'],
      ['altx-rh', 'BTC-USDG', 'USDG'],
    ]);
    expect(only(result, 'instruments')).toEqual([
      expect.objectContaining({ symbol: 'BTC-USDG', market_type: 'spot', quote: 'USDG', sz_decimals: 5, market_id: 2049 }),
    ]);
  });

  it('refuses an id neither the recording nor the registry names, naming the line and the id', () => {
    const result = parseBatch('altx_api', lines({ type: 'connected' }, wsTrades(trade({ market_id: 7 }))), { altxMarkets: registry });
    expect(result).toMatchObject({ ok: false, unknownMarkets: [7] });
    expect(!result.ok && result.reason).toMatch(/^batch refused \(altx_api\): line 2: market_id 7 is not a known altx market/);
  });

  it('refuses a recording whose answers give one id two symbols', () => {
    const result = parseBatch('altx_api', lines(orderBooks(ETH), orderBooks({ symbol: 'BTC', market_id: 0 }), wsTrades(trade())));
    expect(!result.ok && result.reason).toContain('line 2: market_id 0 is BTC here but ETH on line 1');
  });
});

describe('altx recordings: books', () => {
  const book = (type: string, ts: number, asks: [string, string][], bids: [string, string][], nonces: { nonce?: number; begin_nonce?: number } = {}) => ({
    channel: 'order_book:0',
    offset: 41692864,
    type,
    timestamp: ts,
    order_book: {
      code: 0,
      asks: asks.map(([price, size]) => ({ price, size })),
      bids: bids.map(([price, size]) => ({ price, size })),
      offset: 41692864,
      ...nonces,
    },
  });

  it('replays the subscription snapshot and the level changes after it into a snapshot per message, every level, best first', () => {
    const text = lines(
      book('update/order_book', T, [['1', '1']], []), // before the recording's first snapshot: the book is unknown
      book(
        'subscribed/order_book',
        T + 50,
        [
          ['3338.80', '1'],
          ['3327.46', '29.0915'],
        ],
        [
          ['3300', '2'],
          ['3310.5', '10.2898'],
        ],
        { nonce: 10 },
      ),
      book(
        'update/order_book',
        T + 100,
        [
          ['3327.46', '0.0000'],
          ['3330', '4'],
        ],
        [['3310.50', '3']],
        { nonce: 12, begin_nonce: 10 },
      ),
    );
    const rows = only(parseBatch('altx_api', text, { altxMarkets: registry }), 'l2_snapshots');
    expect(rows).toEqual([
      {
        dataset: 'l2_snapshots',
        family: 'altx',
        symbol: 'ETH',
        ts: T + 50,
        bids: [
          ['3310.5', '10.2898', 0],
          ['3300', '2', 0],
        ],
        asks: [
          ['3327.46', '29.0915', 0],
          ['3338.80', '1', 0],
        ],
      },
      {
        dataset: 'l2_snapshots',
        family: 'altx',
        symbol: 'ETH',
        ts: T + 100,
        bids: [
          ['3310.50', '3', 0],
          ['3300', '2', 0],
        ],
        asks: [
          ['3330', '4', 0],
          ['3338.80', '1', 0],
        ],
      },
    ]);
  });

  it('writes no book after a gap in the stream (begin_nonce not the last nonce) until the next snapshot', () => {
    const text = lines(
      book('subscribed/order_book', T, [['2', '1']], [['1', '1']], { nonce: 10 }),
      book('update/order_book', T + 50, [['2', '0']], [], { nonce: 14, begin_nonce: 12 }),
      book('update/order_book', T + 100, [['3', '1']], [], { nonce: 15, begin_nonce: 14 }),
      book('subscribed/order_book', T + 150, [['4', '1']], [['1', '1']], { nonce: 20 }),
    );
    expect(only(parseBatch('altx_api', text, { altxMarkets: registry }), 'l2_snapshots').map((r) => r.ts)).toEqual([T, T + 150]);
  });

  it('turns a wrapped orderBookOrders answer into an order-level checkpoint, each side best first in queue order', () => {
    const order = (order_index: number, owner: number, price: string, remaining: string) => ({
      order_index,
      order_id: String(order_index),
      owner_account_index: owner,
      initial_base_amount: '1',
      remaining_base_amount: remaining,
      price,
      order_expiry: 0,
    });
    const body = {
      code: 200,
      total_asks: 2,
      asks: [order(5, 11, '3001', '0.5'), order(4, 12, '3000.5', '1')],
      total_bids: 3,
      bids: [order(1, 13, '2999', '1'), order(2, 14, '2999', '0.25'), order(3, 15, '2998', '0')],
    };
    const rows = only(
      parseBatch('altx_api', lines({ time: T, path: '/api/v1/orderBookOrders?market_id=0&limit=250', body }), { altxMarkets: registry }),
      'l4_checkpoints',
    );
    expect(rows).toEqual([
      {
        dataset: 'l4_checkpoints',
        family: 'altx',
        symbol: 'ETH',
        ts: T,
        block_number: 0,
        seq: -1,
        bids: [
          [1, '13', '2999', '1', null, '1'],
          [2, '14', '2999', '0.25', null, '1'],
        ],
        asks: [
          [4, '12', '3000.5', '1', null, '1'],
          [5, '11', '3001', '0.5', null, '1'],
        ],
      },
    ]);
    expect(parseBatch('altx_api', lines(body), { altxMarkets: registry })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('line 1: an orderBookOrders answer names no market or time'),
    });
  });
});

describe('altx recordings: funding and open interest', () => {
  it('reads hourly fundings as fractions, signed by the paying side, from an answer wrapped with its request', () => {
    const body = {
      code: 200,
      resolution: '1h',
      fundings: [
        { timestamp: T / 1000, value: '0.01', rate: '0.0012', direction: 'long' },
        { timestamp: T / 1000 + 3600, value: '0.01', rate: '0.0040', direction: 'short' },
      ],
    };
    const rows = only(
      parseBatch('altx_api', lines({ path: '/api/v1/fundings?market_id=0&resolution=1h&start_timestamp=1&end_timestamp=2&count_back=0', body }), {
        altxMarkets: registry,
      }),
      'funding',
    );
    expect(rows).toEqual([
      { dataset: 'funding', family: 'altx', symbol: 'ETH', ts: T, funding_rate: '0.000012' },
      { dataset: 'funding', family: 'altx', symbol: 'ETH', ts: T + 3_600_000, funding_rate: '-0.00004' },
    ]);
    const refused = (b: unknown, path?: string) => {
      const r = parseBatch('altx_api', lines(path ? { path, body: b } : b), { altxMarkets: registry });
      return !r.ok && r.reason;
    };
    expect(refused(body)).toContain('line 1: a fundings answer names no market');
    expect(refused({ ...body, resolution: '1d' }, '/api/v1/fundings?market_id=0')).toContain('line 1: resolution 1d: only hourly fundings are archived');
    expect(refused({ ...body, fundings: [{ timestamp: 1, rate: '-0.1', direction: 'long' }] }, '/api/v1/fundings?market_id=0')).toContain(
      'line 1: fundings.0.rate must be unsigned',
    );
    expect(refused({ ...body, fundings: [{ timestamp: 1, rate: '0.1', direction: 'up' }] }, '/api/v1/fundings?market_id=0')).toContain(
      'line 1: fundings.0.direction must be long or short',
    );
  });

  it('reads market stats as the running funding rate and the open interest in base units, for one market or all', () => {
    const stats = (market_id: number, over: Record<string, unknown> = {}) => ({
      market_id,
      index_price: '3015.56',
      mark_price: '3013.91',
      open_interest: '122736286.659423',
      open_interest_limit: '72057594037927936.000000',
      funding_clamp_small: '0.0500',
      funding_clamp_big: '4.0000',
      last_trade_price: '3013.13',
      current_funding_rate: '-0.0012',
      funding_rate: '0.0012',
      funding_timestamp: 1763532000004,
      daily_base_token_volume: 643235.2763,
      daily_quote_token_volume: 1983505435.673896,
      ...over,
    });
    const markets: AltxMarkets = new Map([...registry, [1, { archived: true, symbol: 'BTC', marketType: 'perp', szDecimals: 5 }]]);
    const text = lines(
      { time: T, body: { channel: 'market_stats:0', type: 'update/market_stats', market_stats: stats(0) } },
      {
        time: T + 1_000,
        body: {
          channel: 'market_stats:all',
          type: 'update/market_stats',
          market_stats: { 1: stats(1, { mark_price: '100000', open_interest: '123456789.123' }) },
        },
      },
    );
    const result = parseBatch('altx_api', text, { altxMarkets: markets });
    expect(only(result, 'open_interest')).toEqual([
      {
        dataset: 'open_interest',
        family: 'altx',
        symbol: 'ETH',
        ts: T,
        open_interest: '40723.2753',
        mark_price: '3013.91',
        oracle_price: '3015.56',
        day_ntl_volume: '1983505435.673896',
      },
      expect.objectContaining({ symbol: 'BTC', ts: T + 1_000, open_interest: '1234.56789' }),
    ]);
    expect(only(result, 'funding')).toEqual([
      { dataset: 'funding', family: 'altx', symbol: 'ETH', ts: T, funding_rate: '-0.000012' },
      { dataset: 'funding', family: 'altx', symbol: 'BTC', ts: T + 1_000, funding_rate: '-0.000012' },
    ]);
    const unwrapped = parseBatch('altx_api', lines({ channel: 'market_stats:0', type: 'update/market_stats', market_stats: stats(0) }), {
      altxMarkets: markets,
    });
    expect(!unwrapped.ok && unwrapped.reason).toContain('line 1: a market_stats message carries no timestamp');
    const malformed = (body: unknown) => {
      const r = parseBatch('altx_api', lines({ time: T, body }), { altxMarkets: markets });
      return !r.ok && r.reason;
    };
    expect(malformed({ channel: 'market_stats:0', type: 'update/market_stats', market_stats: stats(0, { mark_price: 3013.91 }) })).toContain(
      'line 1: market_stats.mark_price',
    );
    expect(malformed({ channel: 'market_stats:all', type: 'update/market_stats', market_stats: { 1: stats(1, { open_interest: 'x' }) } })).toContain(
      'line 1: market_stats.1.open_interest',
    );
  });
});

describe('altx recordings: bad input and sniffing', () => {
  it("refuses a line cut mid-JSON, a bad field and another venue's line, naming line and field", () => {
    const good = JSON.stringify(wsTrades(trade()));
    const reason = (text: string) => {
      const r = parseBatch('altx_api', text, { altxMarkets: registry });
      return !r.ok && r.reason;
    };
    expect(reason(`${good}\n${good.slice(0, 40)}\n`)).toBe('batch refused (altx_api): line 2: not JSON');
    expect(reason(lines(wsTrades(trade({ price: 3335.65 }))))).toBe('batch refused (altx_api): line 1: trades.0.price must be a decimal string');
    expect(reason(lines({ local_time: 'x', block_time: 'y', block_number: 1, events: [] }))).toBe(
      'batch refused (altx_api): line 1: neither a message nor an answer of the altx venue',
    );
    expect(reason(lines({ type: 'connected' }, { type: 'ping' }))).toBe('batch refused (altx_api): no records');
  });

  it('tells an altx recording from its content and its family from --family or a directory, else refuses it as ambiguous', () => {
    const text = lines({ type: 'connected', session_id: 's' }, wsTrades(trade()));
    expect(sniffFormat('rec/altx-rh/2026-06-20.jsonl', text)).toBe('altx_rh_api');
    expect(sniffFormat('rec/2026-06-20.jsonl', text, 'altx')).toBe('altx_api');
    expect(sniffFormat('landing/altx_api/2026-06-20/x.jsonl.gz', text)).toBe('altx_api');
    expect(sniffFormat('rec/2026-06-20.jsonl', text)).toEqual({ error: expect.stringContaining('pass --family') });
    expect(sniffFormat('altx/altx-rh/x.jsonl', text)).toEqual({ error: expect.stringContaining('names both altx and altx-rh') });
    // The node's formats are not mistaken for one.
    expect(
      sniffFormat('rec/altx/x', lines({ local_time: 'a', block_time: 'b', block_number: 1, events: [['0x1111111111111111111111111111111111111111', {}]] })),
    ).toBe('node_fills_by_block');
  });
});

describe('altx recordings: the same trades however they were recorded', () => {
  const generated = fc.uniqueArray(
    fc.record({
      trade_id: fc.integer({ min: 1, max: 2 ** 40 }),
      is_maker_ask: fc.boolean(),
      offset: fc.integer({ min: 0, max: 3_600_000 }),
      price: fc.integer({ min: 1, max: 10_000_000 }).map((n) => (n / 100).toFixed(2)),
      fee: fc.option(fc.integer({ min: 1, max: 1_000 }), { nil: undefined }),
      where: fc.subarray(['ws', 'rest'] as const, { minLength: 1 }),
      type: fc.constantFrom('trade', 'liquidation', 'deleverage', 'market-settlement'),
    }),
    { selector: (t) => t.trade_id, minLength: 1, maxLength: 40 },
  );

  it('gives the rows of one answer holding them all when they are split over WS messages and REST answers, some in both', () => {
    fc.assert(
      fc.property(generated, fc.integer({ min: 1, max: 5 }), (specs, perMessage) => {
        const trades = specs.map((s) =>
          trade({ trade_id: s.trade_id, is_maker_ask: s.is_maker_ask, timestamp: T + s.offset, price: s.price, taker_fee: s.fee, type: s.type }),
        );
        const chunks = <X>(items: X[]) =>
          Array.from({ length: Math.ceil(items.length / perMessage) }, (_, i) => items.slice(i * perMessage, (i + 1) * perMessage));
        const ws = chunks(trades.filter((_, i) => specs[i]!.where.includes('ws'))).map((c) => wsTrades(...c));
        const rest = chunks(trades.filter((_, i) => specs[i]!.where.includes('rest')).reverse()).map((c) => ({ code: 200, trades: c }));
        const byId = (rows: NormalizedRecord[]) => new Map(rows.map((r) => [(r as { trade_id: number }).trade_id, r]));
        const split = new Map([
          ...(ws.length ? byId(records(parseBatch('altx_api', lines(...ws), { altxMarkets: registry }))) : []),
          ...(rest.length ? byId(records(parseBatch('altx_api', lines(...rest), { altxMarkets: registry }))) : []),
        ]);
        const whole = byId(records(parseBatch('altx_api', lines({ code: 200, trades }), { altxMarkets: registry })));
        expect([...split.entries()].sort((a, b) => a[0] - b[0])).toEqual([...whole.entries()].sort((a, b) => a[0] - b[0]));
        expect(whole.size).toBe(specs.length);
      }),
    );
  });
});
