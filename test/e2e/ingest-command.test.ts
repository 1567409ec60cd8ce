/**
 * `npm run ingest` against the local cloud: a directory laid out as the venue's archive (fills by
 * block, the older node_fills (gzipped) and node_trades, the streaming fills) goes through S3, the
 * ingest queue and the manifest; the trades route then answers each trade once with the values
 * the files hold, however many formats carried it. Running it again adds nothing; a broken file
 * is refused with its line and field, and the command exits 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { KEYS, startTestCloud } from '../helpers/local-cloud.ts';
import { walkPages } from '../helpers/api.ts';
import { derivedTradeId, type NodeTrade } from '../../functions/core/archive/node-trades.ts';

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

/** Runs the command as `npm run ingest` does, pointed at the test cloud's data directory. */
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
  return { status: res.status, headers: res.headers, body: await res.json() as any };
}

const write = (path: string, body: string | Buffer) => {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), body);
};
const jsonl = (items: unknown[]) => items.map((item) => JSON.stringify(item)).join('\n') + '\n';

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
const block = (n: number, events: readonly unknown[]) => ({ local_time: '2026-01-01T00:00:00.5', block_time: '2026-01-01T00:00:00.1', block_number: n, events });
const naive = (ms: number) => new Date(ms).toISOString().replace('Z', '123456');
const nodeTrade = (at: number, px: string): NodeTrade => ({
  coin: 'SOL', side: 'A', time: naive(T0 + at), px, sz: '3', hash: null, trade_dir_override: 'Na',
  side_info: [{ user: buyer, start_pos: '0', oid: at * 10, twap_id: null, cloid: null }, { user: seller, start_pos: '1', oid: at * 10 + 1, twap_id: null, cloid: null }],
});

describe('npm run ingest', () => {
  it('ingests each format of the venue archive through the ingest path; each trade is served once with the values of its files', async () => {
    // Prepare: trades 1 and 2 by block, 2 and 3 in the older per-fill format (gzipped), 1 and 4 streamed with a block over lines
    write('node_fills_by_block/hourly/20260101/0', jsonl([block(1, sides(1, '100')), block(2, sides(2, '101'))]));
    write('node_fills/hourly/20260101/0.gz', gzipSync(jsonl([...sides(2, '101'), sides(3, '102')[1], sides(3, '102')[0]])));
    const [taker4, maker4] = sides(4, '103');
    write('node_fills_streaming/hourly/20260101/0', jsonl([block(1, sides(1, '100')), block(4, [maker4]), block(4, [taker4])]));
    // node_trades lists the first trade twice, as some of the archive's hours do.
    write('node_trades/hourly/20260101/0', jsonl([nodeTrade(1, '150'), nodeTrade(2, '151'), nodeTrade(1, '150')]));

    // Act
    const first = await ingest(dir);
    const again = await ingest(dir);

    // Assess
    expect(first.code, first.stdout).toBe(0);
    expect(first.stdout).toContain('node_fills_by_block/hourly/20260101/0: node_fills_by_block: trades 2');
    expect(first.stdout).toContain('node_fills/hourly/20260101/0.gz: node_fills: trades 2');
    expect(first.stdout).toContain('node_fills_streaming/hourly/20260101/0: node_fills_streaming: trades 2');
    expect(first.stdout).toContain('node_trades/hourly/20260101/0: node_trades: trades 2');
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
    expect(sol[0]).toMatchObject({ side: 'A', price: '150', size: '3', timestamp: new Date(T0 + 1).toISOString(), user_address: seller, maker_address: buyer, order_id: 11 });
  });

  it('refuses a broken file naming its line and field, and exits 1', async () => {
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    const [taker, maker] = sides(9, '1');
    writeFileSync(join(broken, 'fills.jsonl'), jsonl([taker, [maker[0], { ...maker[1], px: 'abc' }]]));

    const result = await ingest(broken, '--format', 'node_fills');

    expect(result.code).toBe(1);
    expect(result.stdout).toContain('fills.jsonl: refused: batch refused (node_fills): line 2: 1.px must be a decimal string');
  });
});
