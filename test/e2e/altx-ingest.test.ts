/**
 * `npm run ingest` with recordings of the altx venue's API against the local cloud: a directory
 * named `altx` holding WebSocket messages and REST answers (one naming markets only the other's
 * orderBooks answer describes) goes through S3, the ingest queue and the manifest; the altx routes
 * then answer the trades once each (one was in both recordings), the book the order_book channel
 * left, the L3 book, funding, open interest and the instruments, with the values the files hold.
 * Running it again adds nothing; an id no answer names is refused, and the command exits 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { KEYS, startTestCloud } from '../helpers/local-cloud.ts';
import { walkPages } from '../helpers/api.ts';

let cloud: Awaited<ReturnType<typeof startTestCloud>>;
let dir: string;
beforeAll(async () => {
  cloud = await startTestCloud();
  dir = mkdtempSync(join(tmpdir(), 'altx-ingest-'));
});
afterAll(async () => {
  await cloud?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function ingest(...args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'bin/ingest.ts', ...args], { env: { ...process.env, LOCAL_DATA_DIR: cloud.dataDir } }, (error, stdout) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout });
    });
  });
}

async function get(path: string, query: Record<string, string | number | boolean>) {
  const url = new URL(cloud.url + path);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  const res = await fetch(url, { headers: { 'X-API-Key': KEYS.build } });
  return { status: res.status, body: (await res.json()) as any };
}

const write = (path: string, body: string | Buffer) => {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), body);
};
const jsonl = (items: unknown[]) => `${items.map((item) => JSON.stringify(item)).join('\n')}\n`;

const HOUR = 3_600_000;
const T0 = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
/** A trade as the venue serves it (timestamps in ms, as its live answers give them). */
const trade = (id: number, market: number, price: string, makerAsk: boolean) => ({
  trade_id: id,
  tx_hash: `tx${id}`,
  type: 'trade',
  market_id: market,
  size: '0.5',
  price,
  usd_amount: '1000',
  ask_id: id * 10,
  bid_id: id * 10 + 1,
  ask_account_id: 100 + id,
  bid_account_id: 200 + id,
  is_maker_ask: makerAsk,
  block_height: 5_000 + id,
  timestamp: T0 + id * 1_000,
  taker_fee: 100,
});
const order = (index: number, owner: number, price: string, remaining: string) => ({
  order_index: index,
  order_id: String(index),
  owner_account_index: owner,
  initial_base_amount: '2',
  remaining_base_amount: remaining,
  price,
  order_expiry: 0,
});

describe('npm run ingest with altx recordings', () => {
  it('ingests WebSocket messages and REST answers of the venue through the ingest path; the altx routes serve each row once', async () => {
    // Prepare: the WS recording sorts first and names BTC (market 1) only through the other file's orderBooks answer
    write(
      'rec/altx/a-ws.jsonl',
      jsonl([
        { type: 'connected', session_id: 'abc' },
        { channel: 'trade:0', type: 'update/trade', trades: [trade(1, 0, '3000.5', true), trade(2, 0, '3001', false)], liquidation_trades: [] },
        { channel: 'trade:1', type: 'update/trade', trades: [trade(10, 1, '95000', true)] },
        {
          channel: 'order_book:0',
          type: 'subscribed/order_book',
          timestamp: T0 + 5_000,
          order_book: {
            code: 0,
            asks: [
              { price: '3002', size: '1.5' },
              { price: '3003', size: '2' },
            ],
            bids: [{ price: '2999', size: '4' }],
            nonce: 7,
            offset: 1,
          },
        },
        {
          channel: 'order_book:0',
          type: 'update/order_book',
          timestamp: T0 + 6_000,
          order_book: { code: 0, asks: [{ price: '3002', size: '0' }], bids: [{ price: '3000', size: '0.25' }], nonce: 9, begin_nonce: 7, offset: 2 },
        },
        {
          time: T0 + 7_000,
          body: {
            channel: 'market_stats:0',
            type: 'update/market_stats',
            market_stats: {
              market_id: 0,
              index_price: '3000.1',
              mark_price: '3000',
              open_interest: '6000000',
              current_funding_rate: '0.0025',
              funding_rate: '0.0012',
              daily_quote_token_volume: 123456.5,
            },
          },
        },
      ]),
    );
    write(
      'rec/altx/b-rest.jsonl.gz',
      gzipSync(
        jsonl([
          {
            time: T0,
            path: '/api/v1/orderBooks',
            body: {
              code: 200,
              order_books: [
                {
                  symbol: 'ETH',
                  market_id: 0,
                  market_type: 'perp',
                  status: 'active',
                  supported_size_decimals: 4,
                  created_at: String(T0 - 86_400_000),
                  min_initial_margin_fraction: 400,
                },
                {
                  symbol: 'BTC',
                  market_id: 1,
                  market_type: 'perp',
                  status: 'active',
                  supported_size_decimals: 5,
                  created_at: String(T0 - 86_400_000),
                  min_initial_margin_fraction: 200,
                },
                { symbol: 'ETH/USDC', market_id: 2048, market_type: 'spot', status: 'active', supported_size_decimals: 4 },
              ],
            },
          },
          { code: 200, trades: [trade(3, 0, '3002', true), trade(2, 0, '3001', false)] },
          {
            path: `/api/v1/fundings?market_id=0&resolution=1h&start_timestamp=${T0 / 1000 - 3600}&end_timestamp=${T0 / 1000}&count_back=0`,
            body: {
              code: 200,
              resolution: '1h',
              fundings: [
                { timestamp: T0 / 1000 - 3600, value: '0', rate: '0.0010', direction: 'short' },
                { timestamp: T0 / 1000, value: '0', rate: '0.0020', direction: 'long' },
              ],
            },
          },
          {
            time: T0 + 8_000,
            path: '/api/v1/orderBookOrders?market_id=0&limit=250',
            body: {
              code: 200,
              total_asks: 1,
              asks: [order(31, 7, '3003', '2')],
              total_bids: 2,
              bids: [order(21, 8, '3000', '0.25'), order(22, 9, '2999', '4')],
            },
          },
        ]),
      ),
    );

    // Act
    const first = await ingest(join(dir, 'rec'));
    const again = await ingest(join(dir, 'rec'));

    // Assess
    expect(first.code, first.stdout).toBe(0);
    expect(first.stdout).toContain('b-rest.jsonl.gz: altx_api: instruments 2, trades 2, funding 2, l4_checkpoints 1');
    expect(first.stdout).toContain('a-ws.jsonl: altx_api: trades 3, l2_snapshots 2, funding 1, open_interest 1');
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout.match(/already ingested/g)).toHaveLength(2);

    const window = { start: T0 - 2 * HOUR, end: T0 + 60_000, limit: 1000 };
    const eth = await walkPages(get, '/v1/altx/trades/ETH', window);
    expect(eth.map((t: any) => [t.trade_id, t.side, t.price, t.account_index])).toEqual([
      [1, 'B', '3000.5', '201'],
      [2, 'A', '3001', '102'],
      [3, 'B', '3002', '203'],
    ]);
    expect(eth[0]).toMatchObject({ size: '0.5', timestamp: new Date(T0 + 1_000).toISOString(), crossed: true, fee: '0.1', fee_token: 'USDC', tx_hash: 'tx1' });
    expect((await walkPages(get, '/v1/altx/trades/BTC', window)).map((t: any) => [t.trade_id, t.price])).toEqual([[10, '95000']]);

    const book = await get('/v1/altx/orderbook/ETH', { timestamp: T0 + 6_500 });
    expect(book.status, JSON.stringify(book.body)).toBe(200);
    expect(book.body.data).toMatchObject({
      timestamp: new Date(T0 + 6_000).toISOString(),
      bids: [
        { px: '3000', sz: '0.25' },
        { px: '2999', sz: '4' },
      ],
      asks: [{ px: '3003', sz: '2' }],
    });

    const l3 = await get('/v1/altx/l3orderbook/ETH', { timestamp: T0 + 9_000 });
    expect(l3.status, JSON.stringify(l3.body)).toBe(200);
    expect(l3.body.data.orders.map((o: any) => [o.order_index, o.owner_account_index, o.side, o.price, o.remaining_size])).toEqual([
      [21, 8, 'bid', 3000, 0.25],
      [22, 9, 'bid', 2999, 4],
      [31, 7, 'ask', 3003, 2],
    ]);

    const funding = await walkPages(get, '/v1/altx/funding/ETH', window);
    expect(funding.map((f: any) => [f.timestamp, f.funding_rate])).toEqual([
      [new Date(T0 - HOUR).toISOString(), '-0.00001'],
      [new Date(T0).toISOString(), '0.00002'],
      [new Date(T0 + 7_000).toISOString(), '0.000025'],
    ]);
    const oi = await walkPages(get, '/v1/altx/openinterest/ETH', window);
    expect(oi).toEqual([
      expect.objectContaining({ timestamp: new Date(T0 + 7_000).toISOString(), open_interest: '2000', mark_price: '3000', oracle_price: '3000.1' }),
    ]);

    const instruments = await get('/v1/altx/instruments', {});
    expect(instruments.body.data.map((i: any) => i.symbol).sort()).toEqual(['BTC', 'ETH']);
  });

  it('refuses a recording naming a market no answer describes, and one whose family it cannot tell, and exits 1', async () => {
    write('bad/altx/unknown.jsonl', jsonl([{ channel: 'trade:77', type: 'update/trade', trades: [trade(90, 77, '1', true)] }]));
    write('bad/anywhere/plain.jsonl', jsonl([{ channel: 'trade:0', type: 'update/trade', trades: [trade(91, 0, '1', true)] }]));

    const result = await ingest(join(dir, 'bad'));

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/unknown\.jsonl: refused: batch refused \(altx_api\): line 1: market_id 77 is not a known altx market/);
    expect(result.stdout).toMatch(/plain\.jsonl: refused: an altx venue recording, of altx or altx-rh: pass --family/);
  });
});
