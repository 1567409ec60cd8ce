/**
 * `npm run ingest` against the local cloud, started without a demo market: a directory laid out
 * as the venue's archive (fills by block, the older node_fills (gzipped) and node_trades, the
 * streaming fills) goes through S3, the ingest queue and the manifest; the trades route then
 * answers each trade once with the values the files hold, however many formats carried it.
 * A node's output with its info server's L4 snapshot, the public archive's asset contexts and
 * l2Book files, and the spot metadata are served back as L4 books (snapshot plus diffs), native
 * books, funding, open interest, spot trades and instruments. Running it again adds nothing; a
 * broken file (a cut line, a truncated LZ4 frame, an unknown format, another venue's file) is
 * refused with its line and field, nothing of it is written, and the command exits 1.
 * A node's streamed book diffs and order statuses over two hourly files (a block written across
 * the turn of the hour) are served numbered as the node numbered them, the stream's first and last
 * blocks held back. With `--bucket` and the environment a deployed stack's run takes (the manifest
 * table, the endpoints and credentials, nothing of the local cloud's state), the files land in
 * that bucket and are read back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { compressFrameSync } from 'lz4-napi';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { KEYS, startTestCloud } from '../helpers/local-cloud.ts';
import { walkPages } from '../helpers/api.ts';
import { derivedTradeId, type NodeTrade } from '#core/archive/node-trades.ts';
import { s3Client } from '#shared/deps.ts';
import { TABLES } from '#functions/resources.ts';

let cloud: Awaited<ReturnType<typeof startTestCloud>>;
let dir: string;
beforeAll(async () => {
  cloud = await startTestCloud();
  dir = mkdtempSync(join(tmpdir(), 'ingest-command-'));
});
afterAll(async () => {
  await cloud?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs the command as `npm run ingest` does, pointed at the test cloud's data directory (or given its whole environment). */
function ingest(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(args, { ...process.env, LOCAL_DATA_DIR: cloud.dataDir });
}
function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  // A snapshot of tens of MB and the files of a node's hour are parsed here before they are sent.
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'bin/ingest.ts', ...args], { env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function get(path: string, query: Record<string, string | number | boolean>) {
  const url = new URL(cloud.url + path);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  const res = await fetch(url, { headers: { 'X-API-Key': KEYS.build } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const write = (path: string, body: string | Buffer) => {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), body);
};
const jsonl = (items: unknown[]) => `${items.map((item) => JSON.stringify(item)).join('\n')}\n`;

const T0 = Math.floor(Date.now() / 1000) * 1000 - 2 * 3_600_000;
const buyer = '0x1111111111111111111111111111111111111111';
const seller = '0x2222222222222222222222222222222222222222';
/** Both sides of a BTC trade as the node writes fills; the buyer takes. */
const sides = (tid: number, px: string) => {
  const common = { coin: 'BTC', px, sz: '0.5', time: T0 + tid, startPosition: '0', closedPnl: '0.0', hash: `0x${tid}`, tid, feeToken: 'USDC', twapId: null };
  return [
    [buyer, { ...common, side: 'B', dir: 'Open Long', oid: tid * 10, crossed: true, fee: '1.5' }],
    [seller, { ...common, side: 'A', dir: 'Open Short', oid: tid * 10 + 1, crossed: false, fee: '-0.1' }],
  ] as const;
};
const block = (n: number, events: readonly unknown[]) => ({
  local_time: '2026-01-01T00:00:00.5',
  block_time: '2026-01-01T00:00:00.1',
  block_number: n,
  events,
});
const naive = (ms: number) => new Date(ms).toISOString().replace('Z', '123456');
const nodeTrade = (at: number, px: string): NodeTrade => ({
  coin: 'SOL',
  side: 'A',
  time: naive(T0 + at),
  px,
  sz: '3',
  hash: null,
  trade_dir_override: 'Na',
  side_info: [
    { user: buyer, start_pos: '0', oid: at * 10, twap_id: null, cloid: null },
    { user: seller, start_pos: '1', oid: at * 10 + 1, twap_id: null, cloid: null },
  ],
});

describe('npm run ingest', () => {
  it('ingests each format of the venue archive through the ingest path; each trade is served once with the values of its files', async () => {
    // Prepare: trades 1 and 2 by block, 2 and 3 in the older per-fill format (gzipped), 1 and 4 streamed with a block over lines
    write('node_fills_by_block/hourly/20260101/0', jsonl([block(1, sides(1, '100')), block(2, sides(2, '101'))]));
    write('node_fills/hourly/20260101/0.gz', gzipSync(jsonl([...sides(2, '101'), sides(3, '102')[1], sides(3, '102')[0]])));
    const [taker4, maker4] = sides(4, '103');
    write('node_fills_streaming/hourly/20260101/0', jsonl([block(1, sides(1, '100')), block(4, [maker4]), block(4, [taker4])]));
    // node_trades lists the first trade twice, as some of the archive's hours do; an LZ4 frame, as the venue's bucket serves it.
    write('node_trades/hourly/20260101/0.lz4', compressFrameSync(Buffer.from(jsonl([nodeTrade(1, '150'), nodeTrade(2, '151'), nodeTrade(1, '150')]))));

    // Act
    const first = await ingest(dir);
    const again = await ingest(dir);

    // Assess
    expect(first.code, first.stdout).toBe(0);
    expect(first.stdout).toContain('node_fills_by_block/hourly/20260101/0: node_fills_by_block: trades 2');
    expect(first.stdout).toContain('node_fills/hourly/20260101/0.gz: node_fills: trades 2');
    expect(first.stdout).toContain('node_fills_streaming/hourly/20260101/0: node_fills_streaming: trades 2');
    expect(first.stdout).toContain('node_trades/hourly/20260101/0.lz4: node_trades: trades 2');
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout.match(/already ingested/g)).toHaveLength(4);

    const window = { start: T0 - 60_000, end: T0 + 60_000, limit: 1000 };
    const btc = await walkPages(get, '/v1/perpx/trades/BTC', window);
    expect(btc.map((t: any) => t.trade_id)).toEqual([1, 2, 3, 4]);
    expect(btc.map((t: any) => t.price)).toEqual(['100', '101', '102', '103']);
    for (const trade of btc) {
      expect(trade).toMatchObject({ side: 'B', size: '0.5', crossed: true, fee: '1.5', user_address: buyer, taker_address: buyer, maker_address: seller });
    }
    const sol = await walkPages(get, '/v1/perpx/trades/SOL', window);
    expect(sol.map((t: any) => t.trade_id)).toEqual([derivedTradeId(nodeTrade(1, '150')), derivedTradeId(nodeTrade(2, '151'))]);
    expect(sol[0]).toMatchObject({
      side: 'A',
      price: '150',
      size: '3',
      timestamp: new Date(T0 + 1).toISOString(),
      user_address: seller,
      maker_address: buyer,
      order_id: 11,
    });
  });

  it('refuses a broken file naming its line and field, and a truncated LZ4 frame, and exits 1', async () => {
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    const [taker, maker] = sides(9, '1');
    writeFileSync(join(broken, 'fills.jsonl'), jsonl([taker, [maker[0], { ...maker[1], px: 'abc' }]]));
    const frame = compressFrameSync(Buffer.from(jsonl([taker, maker])));
    writeFileSync(join(broken, 'cut.lz4'), frame.subarray(0, frame.length - 8));

    const result = await ingest(broken, '--format', 'node_fills');

    expect(result.code).toBe(1);
    expect(result.stdout).toContain('fills.jsonl: refused: batch refused (node_fills): line 2: 1.px must be a decimal string');
    expect(result.stdout).toMatch(/cut\.lz4: refused: not a whole LZ4 frame/);
  });
});

describe("npm run ingest, a node's output and the public archive", () => {
  const H = 900_000_000;
  /** The node's blocks a second apart from E, ten minutes into the window. */
  const E = T0 + 600_000;
  const blockAt = (n: number) => E + (n - H) * 1000;
  const nodeBlock = (n: number, events: readonly unknown[]) => ({
    local_time: naive(blockAt(n)),
    block_time: new Date(blockAt(n)).toISOString().replace('Z', ''),
    block_number: n,
    events,
  });
  const diff = (oid: number, side: 'B' | 'A', px: string, raw: unknown) => ({ user: oid % 2 ? buyer : seller, oid, coin: 'ETH', side, px, raw_book_diff: raw });
  const resting = (oid: number, side: 'B' | 'A', limitPx: string, sz: string) => [
    oid % 2 ? buyer : seller,
    {
      coin: 'ETH',
      side,
      limitPx,
      sz,
      oid,
      timestamp: E - 60_000 + oid,
      triggerCondition: 'N/A',
      isTrigger: false,
      triggerPx: '0.0',
      children: [],
      isPositionTpsl: false,
      reduceOnly: false,
      orderType: 'Limit',
      origSz: sz,
      tif: 'Gtc',
      cloid: null,
    },
  ];
  const day = new Date(E).toISOString().slice(0, 10).replace(/-/g, '');
  const hour = new Date(E).getUTCHours();
  let node: string;

  beforeAll(() => {
    node = mkdtempSync(join(tmpdir(), 'ingest-node-'));
    const put = (path: string, body: string | Buffer) => {
      mkdirSync(dirname(join(node, path)), { recursive: true });
      writeFileSync(join(node, path), body);
    };
    // The node's book diffs: block H (already in the snapshot), then H+1 (order 1 partly filled, order 4 placed) and H+2 (order 2 canceled).
    put(
      `hl/data/node_raw_book_diffs_by_block/hourly/${day}/${hour}`,
      jsonl([
        nodeBlock(H, [diff(9, 'B', '2999', 'remove')]),
        nodeBlock(H + 1, [diff(1, 'B', '3000.5', { update: { origSz: '0.4', newSz: '0.3' } }), diff(4, 'A', '3002', { new: { sz: '5' } })]),
        nodeBlock(H + 2, [diff(2, 'B', '3000.5', 'remove')]),
      ]),
    );
    // The info server's snapshot at block H: its time comes from the block files above.
    put(
      'hl/snapshots/out.json',
      JSON.stringify([
        H,
        [
          ['ETH', [[resting(1, 'B', '3000.5', '0.4'), resting(2, 'B', '3000.5', '1.25')], [resting(3, 'A', '3001', '2')]]],
          ['@107', [[[buyer, { ...(resting(5, 'B', '40.1', '3')[1] as object), coin: '@107' }]], []]],
        ],
      ]),
    );
    // Fills of a spot pair named by index, and an ETH trade also in node_trades.
    const ethTrade = {
      coin: 'ETH',
      px: '3001',
      sz: '0.7',
      time: blockAt(H + 1),
      startPosition: '0',
      closedPnl: '0.0',
      hash: '0xe7',
      tid: 7001,
      feeToken: 'USDC',
    };
    const spotTrade = { ...ethTrade, coin: '@107', px: '40.1', sz: '1.5', tid: 7002, hash: '0xe8' };
    // A pair the spot metadata does not list: kept by its index.
    const unnamed = { ...spotTrade, coin: '@300', tid: 7003, hash: '0xe9' };
    put(
      `hl/data/node_fills_by_block/hourly/${day}/${hour}`,
      jsonl([
        nodeBlock(H + 1, [
          [buyer, { ...ethTrade, side: 'B', dir: 'Open Long', oid: 71, crossed: true, fee: '0.2' }],
          [seller, { ...ethTrade, side: 'A', dir: 'Open Short', oid: 3, crossed: false, fee: '0' }],
          [seller, { ...spotTrade, side: 'A', dir: 'Sell', oid: 72, crossed: true, fee: '0.01' }],
          [buyer, { ...spotTrade, side: 'B', dir: 'Buy', oid: 5, crossed: false, fee: '0' }],
          [seller, { ...unnamed, side: 'A', dir: 'Sell', oid: 73, crossed: true, fee: '0.01' }],
        ]),
      ]),
    );
    put(
      `node_trades/hourly/${day}/${hour}.lz4`,
      compressFrameSync(
        Buffer.from(
          jsonl([
            {
              coin: 'ETH',
              side: 'B',
              time: naive(blockAt(H + 1)),
              px: '3001',
              sz: '0.7',
              hash: '0xe7',
              trade_dir_override: 'Na',
              side_info: [
                { user: buyer, start_pos: '0', oid: 71, twap_id: null, cloid: null },
                { user: seller, start_pos: '0', oid: 3, twap_id: null, cloid: null },
              ],
            },
          ]),
        ),
      ),
    );
    // The public archive: a day of asset contexts (a market without a book has mid 0), an hour of ETH's book.
    const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
    put(
      `asset_ctxs/${day}.csv.lz4`,
      compressFrameSync(
        Buffer.from(
          [
            'time,coin,funding,open_interest,prev_day_px,day_ntl_vlm,premium,oracle_px,mark_px,mid_px,impact_bid_px,impact_ask_px',
            `${iso(E)},ETH,1.25e-05,120345.67,2950.0,987654321.5,-0.000123,3000.2,3000.4,3000.5,3000.3,3000.7`,
            `${iso(E + 60_000)},ETH,0.0000131,120400.0,2950.0,987700000.0,,3001.0,3001.2,0,,`,
          ].join('\n'),
        ),
      ),
    );
    const l2 = (at: number, bid: string) => ({
      time: naive(at + 57),
      ver_num: 1,
      raw: { channel: 'l2Book', data: { coin: 'ETH', time: at, levels: [[{ px: bid, sz: '1.7', n: 2 }], [{ px: '3001', sz: '2.0', n: 1 }]] } },
    });
    put(`market_data/${day}/${hour}/l2Book/ETH.lz4`, compressFrameSync(Buffer.from(jsonl([l2(E + 500, '3000.5'), l2(E + 5_500, '3000.6')]))));
    writeFileSync(
      join(tmpdir(), `spotMeta-${H}.json`),
      JSON.stringify({
        universe: [
          { name: 'PURR/USDC', tokens: [1, 0], index: 0, isCanonical: true },
          { name: '@107', tokens: [150, 0], index: 107, isCanonical: false },
        ],
        tokens: [
          { name: 'USDC', szDecimals: 8, weiDecimals: 8, index: 0 },
          { name: 'PURR', szDecimals: 0, weiDecimals: 5, index: 1 },
          { name: 'HYPE', szDecimals: 2, weiDecimals: 8, index: 150 },
        ],
      }),
    );
  });
  afterAll(() => {
    if (node) rmSync(node, { recursive: true, force: true });
    rmSync(join(tmpdir(), `spotMeta-${H}.json`), { force: true });
  });

  it('serves the L4 book at an instant (snapshot plus diffs), the native book, funding, open interest, spot trades and instruments with the values of the files', async () => {
    // Act
    const result = await ingest(node, '--spot-meta', join(tmpdir(), `spotMeta-${H}.json`));
    // Assess: each file with its rows, the snapshot after the node's block files
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/spotMeta-900000000\.json: spot_meta: instruments 2\n/);
    expect(result.stdout).toContain(`asset_ctxs/${day}.csv.lz4: asset_ctxs: funding 2, open_interest 2`);
    expect(result.stdout).toContain(`l2Book/ETH.lz4: l2_book: l2_snapshots 2`);
    expect(result.stdout).toMatch(/hl\/snapshots\/out\.json: node_l4_snapshot: l4_checkpoints 2(, instruments \+1)?\n/);
    expect(result.stdout).toContain('spot pairs named by index only (no spot metadata names them; give --spot-meta): @300');

    const before = await get('/v1/perpx/orderbook/ETH/l4', { timestamp: E + 500 });
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(before.body.data).toMatchObject({
      checkpoint_timestamp: new Date(E).toISOString(),
      diffs_applied: 0,
      last_block_number: H,
      bids: [
        { oid: 1, user_address: buyer, price: 3000.5, size: 0.4, timestamp_ms: E - 59_999 },
        { oid: 2, size: 1.25 },
      ],
      asks: [{ oid: 3, price: 3001, size: 2 }],
    });
    const after = await get('/v1/perpx/orderbook/ETH/l4', { timestamp: E + 2_500 });
    expect(after.body.data).toMatchObject({
      diffs_applied: 3,
      last_block_number: H + 2,
      bids: [{ oid: 1, size: 0.3 }],
      asks: [{ oid: 3 }, { oid: 4, price: 3002, size: 5 }],
    });
    expect(after.body.data.bids).toHaveLength(1);
    const full = await get('/v1/perpx/orderbook/ETH/l2', { timestamp: E + 2_500 });
    expect(full.body.data).toMatchObject({
      bids: [{ px: '3000.5', sz: '0.3', n: 1 }],
      asks: [
        { px: '3001', sz: '2', n: 1 },
        { px: '3002', sz: '5', n: 1 },
      ],
    });
    const history = await get('/v1/perpx/orderbook/ETH/l4/history', { start: E - 1, end: E + 60_000 });
    expect(history.body.data.map((c: any) => [c.timestamp, c.last_block_number, c.bid_count, c.ask_count])).toEqual([[new Date(E).toISOString(), H, 2, 1]]);
    // The level walk from the checkpoint: block H+1 (order 1 filled down, order 4 placed), then H+2 (order 2 canceled); block H not again.
    const levels = await get('/v1/perpx/orderbook/ETH/l2/diffs', { start: E - 1, end: E + 60_000 });
    expect(levels.body.data.map((d: any) => [d.block_number, d.side, d.price, d.size, d.count])).toEqual([
      [H + 1, 'B', 3000.5, 1.55, 2],
      [H + 1, 'A', 3002, 5, 1],
      [H + 2, 'B', 3000.5, 0.3, 1],
    ]);

    const native = await get('/v1/perpx/orderbook/ETH', { timestamp: E + 6_000 });
    expect(native.body.data).toMatchObject({
      timestamp: new Date(E + 5_500).toISOString(),
      bids: [{ px: '3000.6', sz: '1.7', n: 2 }],
      asks: [{ px: '3001', sz: '2.0', n: 1 }],
    });

    const window = { start: E - 1, end: E + 120_000 };
    expect((await get('/v1/perpx/funding/ETH', window)).body.data).toEqual([
      { symbol: 'ETH', coin: 'ETH', timestamp: new Date(E).toISOString(), funding_rate: '0.0000125', premium: '-0.000123' },
      { symbol: 'ETH', coin: 'ETH', timestamp: new Date(E + 60_000).toISOString(), funding_rate: '0.0000131' },
    ]);
    const oi = (await get('/v1/perpx/openinterest/ETH', window)).body.data;
    expect(oi).toHaveLength(2);
    expect(oi[0]).toMatchObject({ open_interest: '120345.67', mark_price: '3000.4', oracle_price: '3000.2', mid_price: '3000.5' });
    expect(oi[1]).not.toHaveProperty('mid_price');

    const trades = await walkPages(get, '/v1/perpx/trades/ETH', { start: E - 1, end: E + 60_000, limit: 1000 });
    expect(trades.map((t: any) => [t.trade_id, t.price, t.fee])).toEqual([[7001, '3001', '0.2']]);
    const spot = await walkPages(get, '/v1/perpx/spot/trades/HYPE-USDC', { start: E - 1, end: E + 60_000, limit: 1000 });
    expect(spot.map((t: any) => [t.trade_id, t.side, t.price, t.size])).toEqual([[7002, 'A', '40.1', '1.5']]);
    expect((await get('/v1/perpx/spot/orderbook/HYPE-USDC/l4', { timestamp: E + 500 })).body.data).toMatchObject({ bids: [{ oid: 5, price: 40.1, size: 3 }] });

    const instruments = (await get('/v1/perpx/instruments', {})).body.data;
    expect(instruments.find((i: any) => i.symbol === 'ETH')).toMatchObject({ instrument_type: 'perp', quote: 'USDC', sz_decimals: 2 });
    const pairs = (await get('/v1/perpx/spot/pairs', {})).body.data;
    expect(pairs.map((p: any) => [p.symbol, p.name])).toEqual([
      ['PURR-USDC', 'PURR/USDC'],
      ['HYPE-USDC', '@107'],
    ]);
    expect((await walkPages(get, '/v1/perpx/spot/trades/@300', { start: E - 1, end: E + 60_000, limit: 1000 })).map((t: any) => t.trade_id)).toEqual([7003]);
    expect((await get('/v1/perpx/spot/instruments', {})).body.data.map((i: any) => i.symbol)).toEqual(['@300', 'HYPE-USDC', 'PURR-USDC']);
  });

  it("refuses a line cut mid-JSON, a truncated LZ4 frame, an unknown format and another venue's file, naming file, line and field, and writes nothing of them", async () => {
    // Prepare
    const bad = mkdtempSync(join(tmpdir(), 'ingest-bad-'));
    const put = (path: string, body: string | Buffer) => {
      mkdirSync(dirname(join(bad, path)), { recursive: true });
      writeFileSync(join(bad, path), body);
    };
    const zzz = { coin: 'ZZZ', px: '1', sz: '1', time: E, startPosition: '0', closedPnl: '0.0', hash: '0x9', tid: 9001, feeToken: 'USDC' };
    const whole = JSON.stringify(
      nodeBlock(H + 5, [
        [buyer, { ...zzz, side: 'B', dir: 'Open Long', oid: 1, crossed: true, fee: '0' }],
        [seller, { ...zzz, side: 'A', dir: 'Open Short', oid: 2, crossed: false, fee: '0' }],
      ]),
    );
    put(`cut/node_fills_by_block/hourly/${day}/${hour}`, `${whole}\n${whole.slice(0, 90)}\n`);
    const frame = compressFrameSync(Buffer.from(jsonl([{ coin: 'ZZZ', time: E, levels: [[], []] }])));
    put(`truncated/market_data/${day}/${hour}/l2Book/ZZZ.lz4`, frame.subarray(0, frame.length - 6));
    put('unknown/notes.txt', 'collected by hand\nZZZ 1 1\n');
    put('binance/trades.jsonl', jsonl([{ e: 'aggTrade', E, s: 'ZZZUSDT', a: 1, p: '1', q: '1', T: E, m: true }]));
    put(
      `lighter/market_data/${day}/${hour}/l2Book/ZZZ.lz4`,
      compressFrameSync(Buffer.from(jsonl([{ channel: 'order_book:1', offset: 1, type: 'update/order_book', order_book: { asks: [], bids: [] } }]))),
    );
    try {
      // Act
      const result = await ingest(bad);
      // Assess
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(`cut/node_fills_by_block/hourly/${day}/${hour}: refused: batch refused (node_fills_by_block): line 2: not JSON`);
      expect(result.stdout).toMatch(/truncated\/market_data\/\d+\/\d+\/l2Book\/ZZZ\.lz4: refused: not a whole LZ4 frame/);
      expect(result.stdout).toContain('unknown/notes.txt: refused: line 1: not JSON');
      expect(result.stdout).toContain("binance/trades.jsonl: refused: line 1: no format of the venue's files");
      expect(result.stdout).toContain('l2Book/ZZZ.lz4: refused: batch refused (l2_book): line 1: channel must be l2Book (got "order_book:1")');
      expect(result.stdout).toContain('0 files ingested, 5 files refused');
      expect((await get('/v1/perpx/trades/ZZZ', { start: E - 60_000, end: E + 60_000 })).body.data).toEqual([]);
      expect((await get('/v1/perpx/instruments', {})).body.data.map((i: any) => i.symbol)).not.toContain('ZZZ');
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });
});

describe("npm run ingest, a node's streamed book diffs and order statuses", () => {
  const S = 910_000_000;
  /** Blocks a second apart from F, twenty minutes into the window; their rows unique by (block, seq) apart from the other tests' blocks. */
  const F = T0 + 1_200_000;
  const blockAt = (n: number) => F + (n - S) * 1000;
  const line = (n: number, events: readonly unknown[], writtenAt = blockAt(n) + 40) => ({
    local_time: naive(writtenAt),
    block_time: new Date(blockAt(n)).toISOString().replace('Z', '123456'),
    block_number: n,
    events,
  });
  const diff = (oid: number, raw: unknown) => ({ user: buyer, oid, coin: 'AVAX', side: 'B', px: '30.5', raw_book_diff: raw });
  const status = (oid: number, status: string, over: Record<string, unknown> = {}) => ({
    time: new Date(blockAt(S + 1)).toISOString().replace('Z', ''),
    user: seller,
    hash: null,
    builder: { b: buyer, f: 10 },
    status,
    order: {
      coin: 'AVAX',
      side: 'A',
      limitPx: '31',
      sz: '2',
      oid,
      timestamp: F,
      triggerCondition: 'N/A',
      isTrigger: false,
      triggerPx: '0.0',
      children: [],
      isPositionTpsl: false,
      reduceOnly: false,
      orderType: 'Limit',
      origSz: '2',
      tif: 'Gtc',
      cloid: null,
      ...over,
    },
  });
  const hourOf = (ms: number) => `${new Date(ms).toISOString().slice(0, 10).replace(/-/g, '')}/${new Date(ms).getUTCHours()}`;

  it('serves each block numbered as the node numbered it, one written across the turn of the hour too, and holds back the ends', async () => {
    // Prepare: two hours of the node's streamed diffs, one event a line; block S+1 begins in the first hour's file and ends in the second's.
    const streamed = mkdtempSync(join(tmpdir(), 'ingest-streamed-'));
    const put = (path: string, body: string) => {
      mkdirSync(dirname(join(streamed, path)), { recursive: true });
      writeFileSync(join(streamed, path), body);
    };
    const [first, second] = [hourOf(F), hourOf(F + 3_600_000)];
    const diffs = 'hl/data/node_raw_book_diffs_streaming/hourly';
    put(
      `${diffs}/${first}`,
      jsonl([
        line(S, [diff(1, { new: { sz: '1' } })]),
        line(S, [diff(2, { new: { sz: '2' } })]),
        line(S + 1, [diff(3, { new: { sz: '3' } })]),
        line(S + 1, [diff(1, 'remove')]),
      ]),
    );
    put(
      `${diffs}/${second}`,
      jsonl([
        line(S + 1, [diff(4, { new: { sz: '4' } })], F + 3_600_000),
        line(S + 2, [diff(2, { update: { origSz: '2', newSz: '1.5' } })]),
        line(S + 2, [diff(5, { new: { sz: '5' } })]),
        line(S + 3, [diff(6, { new: { sz: '6' } })]),
      ]),
    );
    // The order statuses of blocks S+1 and S+2 (a trigger order placed on the second line of S+1), in a directory whose name the content alone tells.
    put(
      'statuses/13',
      jsonl([
        line(S, [status(1, 'open')]),
        line(S + 1, [status(7, 'open')]),
        line(S + 1, [status(8, 'open', { isTrigger: true, triggerCondition: 'Price above 32', triggerPx: '32', orderType: 'Stop Market', tif: null })]),
        line(S + 2, [status(7, 'canceled')]),
      ]),
    );
    try {
      // Act
      const result = await ingest(streamed);
      const again = await ingest(streamed);

      // Assess: each block once, from the file where it began; the stream's first and last blocks named and held back
      expect(result.code, result.stdout).toBe(0);
      expect(result.stdout).toMatch(
        new RegExp(
          `${first}: node_raw_book_diffs_streaming: l4_diffs 3(, instruments \\+1)?; held back: block ${S}, lines 1–2 \\(it may have begun in the file before`,
        ),
      );
      // Files are walked in name order (hour 10 before 9): the first one sent lists AVAX.
      expect(result.stdout).toContain(`${second}: node_raw_book_diffs_streaming: l4_diffs 2`);
      expect(result.stdout).toContain(
        `; its line 1 finishes block ${S + 1}, sent with ${join(streamed, diffs, first)}; held back: block ${S + 3}, line 4 (it may go on in the file after`,
      );
      expect(result.stdout).toMatch(
        new RegExp(
          `statuses/13: node_order_statuses_streaming: order_events 2(, instruments \\+1)?; held back: block ${S}, line 1 .*; held back: block ${S + 2}, line 4 `,
        ),
      );
      expect(again.code, again.stdout).toBe(0);
      expect(again.stdout.match(/already ingested/g)).toHaveLength(3);

      const window = { start: F - 1, end: F + 60_000 };
      const diffRows = await walkPages(get, '/v1/perpx/orderbook/AVAX/l4/diffs', { ...window, limit: 1000 });
      expect(diffRows.map((d: any) => [d.block_number, d.seq, d.oid, d.diff_type, d.new_size])).toEqual([
        [S + 1, 0, 3, 'new', 3],
        [S + 1, 1, 1, 'remove', null],
        [S + 1, 2, 4, 'new', 4],
        [S + 2, 0, 2, 'update', 1.5],
        [S + 2, 1, 5, 'new', 5],
      ]);
      expect(diffRows[0].timestamp).toBe(new Date(blockAt(S + 1)).toISOString());
      const triggers = (await get('/v1/perpx/orders/AVAX/tpsl', window)).body.data;
      expect(triggers.map((t: any) => [t.block_number, t.seq, t.oid, t.status, t.trigger_price])).toEqual([[S + 1, 1, 8, 'open', 32]]);
    } finally {
      rmSync(streamed, { recursive: true, force: true });
    }
  });
});

describe('npm run ingest --bucket', () => {
  /**
   * The environment of a run against a deployed stack: the manifest table, AWS region, credentials
   * and endpoints (here the local cloud's emulators), and nothing of the local cloud's own (its
   * data directory, its resources' names and settings, which this test process holds).
   */
  function deployedEnv(): NodeJS.ProcessEnv {
    const { endpoints, names } = cloud.emulators;
    return {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...(process.env.TMPDIR && { TMPDIR: process.env.TMPDIR }),
      [TABLES.manifest.envVar]: names.tables.manifest,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_ENDPOINT_URL_S3: endpoints.s3,
      AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
      S3_FORCE_PATH_STYLE: 'true',
    };
  }

  it('lands the files in the bucket given, under landing/, and they are read back', async () => {
    // Prepare: a block of DOGE fills, in a directory of its own
    const own = mkdtempSync(join(tmpdir(), 'ingest-bucket-'));
    const doge = (tid: number, px: string) => sides(tid, px).map(([user, fill]) => [user, { ...fill, coin: 'DOGE', time: T0 + 30_000 + tid }]);
    mkdirSync(join(own, 'node_fills_by_block/hourly/20260101'), { recursive: true });
    writeFileSync(join(own, 'node_fills_by_block/hourly/20260101/0'), jsonl([block(21, doge(8001, '0.2')), block(22, doge(8002, '0.21'))]));
    const bucket = cloud.emulators.names.buckets.archive;
    try {
      // Act
      const result = await run([own, '--bucket', `s3://${bucket}`], deployedEnv());
      const unnamed = await run([own, '--bucket', `s3://${bucket}`], { ...deployedEnv(), [TABLES.manifest.envVar]: '' });

      // Assess
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toContain('node_fills_by_block/hourly/20260101/0: node_fills_by_block: trades 2');
      const landed = await s3Client().send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'landing/node_fills_by_block/' }));
      expect(landed.Contents?.map((o) => o.Key)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^landing\/node_fills_by_block\/\d{4}-\d{2}-\d{2}\/[0-9a-f]{16}-node_fills_by_block_hourly_20260101_0\.jsonl\.gz$/),
        ]),
      );
      const trades = await walkPages(get, '/v1/perpx/trades/DOGE', { start: T0, end: T0 + 60_000, limit: 1000 });
      expect(trades.map((t: any) => [t.trade_id, t.price, t.maker_address])).toEqual([
        [8001, '0.2', seller],
        [8002, '0.21', seller],
      ]);
      expect(unnamed.code).toBe(2);
      expect(unnamed.stderr).toContain('--bucket needs TABLE_MANIFEST');
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});
