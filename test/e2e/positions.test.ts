/**
 * Positions over HTTP against the demo market, as the real client calls them: wallet positions
 * rebuilt independently from /positions/changes equal /positions at exact hours and at arbitrary
 * instants; summaries against market rows; Arrow pages read back with apache-arrow; cursor expiry
 * and snapshot_advanced; coverage and clamping members.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCursor, sealCursor } from '#core/cursor-seal.ts';
import { cursorKeys } from '#shared/deps.ts';
import { ROUTES } from '#functions/routes.ts';
import { tableFromIPC } from 'apache-arrow';
import { startDemoCloud } from '../helpers/local-cloud.ts';
import { keyedGet } from '../helpers/api.ts';
import type { PositionsReport } from '#core/positions/build.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { invoke } from '#local/invoke.ts';
import { encodeCursor, decodeCursor } from '#core/market/cursor.ts';
import { readWindow } from '#core/archive/read-pages.ts';

const KEY = 'positions-test-key';
const HOUR = 3_600_000;
let cloud: Awaited<ReturnType<typeof startDemoCloud>>;

beforeAll(async () => {
  cloud = await startDemoCloud({ key: KEY });
  // Schedules are off in tests: the run's archive comes with its positions built; the deployed job's
  // handler runs here until every family is built to its target (the minutes since).
  for (let run = 0; run < 20 && ((await invoke('positions-build', {})) as PositionsReport).steps > 0; run++);
});
afterAll(async () => {
  await cloud?.stop();
});

const get = keyedGet(() => cloud.url, KEY);

/** Every page of a positions route, following next_cursor. */
async function walk(path: string, query: Record<string, string | number>) {
  const rows: any[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 500; page++) {
    const res = await get(path, { ...query, ...(cursor && { cursor }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    rows.push(...(Array.isArray(res.body.data) ? res.body.data : res.body.data.positions));
    cursor = res.body.meta.next_cursor;
    if (!cursor) return rows;
  }
  throw new Error('too many pages');
}

/** Sizes by market after replaying change legs, as a client would (the size after the last leg of each market). */
function replay(legs: readonly any[]): Record<string, string> {
  const sizes: Record<string, string> = {};
  for (const leg of legs) sizes[leg.symbol] = leg.end_position;
  return Object.fromEntries(Object.entries(sizes).filter(([, size]) => Number(size) !== 0));
}

const sizesOf = (positions: readonly any[]) => Object.fromEntries(positions.map((p) => [p.symbol, p.size]));

describe('wallet positions', () => {
  let wallet: string;
  let built: number;
  beforeAll(async () => {
    const market = await get('/v1/perpx/positions/BTC', { limit: 50 });
    wallet = market.body.data[0].user_address;
    built = Date.parse(market.body.meta.snapshot_ts);
  });

  it('equal the change log replayed from coverage, at exact hours and at arbitrary instants', async () => {
    const start = Date.parse('2025-05-25T00:00:00Z');
    const instants = [Math.floor(built / HOUR) * HOUR, Math.floor(built / HOUR) * HOUR - HOUR, built - 17 * 60_000 - 4_321, built - 95 * 60_000 - 777];
    for (const at of instants) {
      const legs = await walk(`/v1/perpx/wallets/${wallet}/positions/changes`, { start, end: at, limit: 500 });
      const page = await get(`/v1/perpx/wallets/${wallet.toUpperCase().replace('0X', '0x')}/positions`, { timestamp: at });
      expect(page.status).toBe(200);
      expect(sizesOf(page.body.data.positions), new Date(at).toISOString()).toEqual(replay(legs));
      expect(page.body.meta.source).toBe(at % HOUR === 0 ? 'snapshot' : 'reconstructed');
      expect(page.body.meta.as_of).toBe(new Date(at).toISOString());
      for (const leg of legs) expect(leg.continuity).not.toBe('quarantined');
    }
  });

  it('serves the latest snapshot with its account summary, and hourly history that matches each hour', async () => {
    const latest = await get(`/v1/perpx/wallets/${wallet}/positions`);
    expect(latest.body.meta).toMatchObject({ source: 'snapshot', quality: expect.any(String) });
    // Stale past 12 minutes (the job does not run again in this test, so on a slow machine it may be).
    expect(latest.body.meta.stale).toBe(Date.now() - Date.parse(latest.body.meta.as_of) > 12 * 60_000);
    expect(latest.body.data.account).toMatchObject({ n_positions: latest.body.data.positions.length, account_value: null });
    const position = latest.body.data.positions[0];
    expect(position).toMatchObject({
      leverage: { type: 'unknown', value: null },
      liquidation_price: null,
      liquidation_price_status: 'unavailable',
      cum_funding: expect.any(Object),
    });
    expect(position).not.toHaveProperty('account_index');
    const hour = Math.floor(built / HOUR) * HOUR;
    const history = await walk(`/v1/perpx/wallets/${wallet}/positions/history`, { start: hour - 2 * HOUR, end: hour + 1, limit: 3 });
    const atHour = await get(`/v1/perpx/wallets/${wallet}/positions`, { timestamp: hour });
    expect(sizesOf(history.filter((r) => r.snapshot_ts === new Date(hour).toISOString()))).toEqual(sizesOf(atHour.body.data.positions));
  });

  it('clamps to the change log, says when a time is before coverage, and refuses bad addresses', async () => {
    const future = await get(`/v1/perpx/wallets/${wallet}/positions`, { timestamp: Date.now() + HOUR });
    expect(future.body.meta).toMatchObject({ requested_end: expect.any(String), clamped_to: expect.any(String) });
    const before = await get(`/v1/perpx/wallets/${wallet}/positions`, { timestamp: Date.parse('2024-01-01T00:00:00Z') });
    expect(before.body.data).toMatchObject({ positions: [], account_seen: 'outside_coverage' });
    expect(before.body.meta).toMatchObject({ coverage_from: '2025-05-25T00:00:00.000Z', notice: expect.any(String) });
    const stranger = await get('/v1/perpx/wallets/0x000000000000000000000000000000000000dead/positions');
    expect(stranger.body.data).toMatchObject({ positions: [], account_seen: 'never_seen' });
    expect((await get('/v1/perpx/wallets/0x123/positions')).body).toMatchObject({ code: 400, param: 'address' });
    expect((await get(`/v1/perpx/wallets/${wallet}/positions/changes`, { end: built })).body).toMatchObject({ code: 400, param: 'start' });
    expect((await get('/v1/perpx/spot/positions/HYPE-USDC')).body).toMatchObject({ code: 404, error_code: 'unsupported_for_venue' });
    expect((await get('/v1/altx/accounts/abc/positions')).body).toMatchObject({ code: 400, param: 'account_index' });
  });
});

describe('market positions', () => {
  it('pages one snapshot largest value first, with totals equal to a summary of its rows', async () => {
    const first = await get('/v1/perpx/positions/BTC', { limit: 5 });
    const rows = await walk('/v1/perpx/positions/BTC', { limit: 5 });
    const summary = await get('/v1/perpx/positions/BTC/summary');
    const values = rows.map((r) => Number(r.position_value));
    expect(values).toEqual([...values].sort((a, b) => b - a));
    const totals = first.body.meta.totals;
    expect(totals).toEqual(summary.body.data[0]);
    expect(totals.long_count + totals.short_count).toBe(rows.length);
    const longs = rows.filter((r) => r.side === 'long');
    expect(Number(totals.long_size)).toBeCloseTo(
      longs.reduce((s, r) => s + Number(r.size), 0),
      6,
    );
    const top = [...longs]
      .map((r) => Number(r.position_value))
      .sort((a, b) => b - a)
      .slice(0, 10)
      .reduce((a, b) => a + b, 0);
    if (totals.long_value !== null) expect(Number(totals.long_top10_value_share)).toBeCloseTo(top / Number(totals.long_value), 6);
  });

  it('answers an hour without a snapshot with a notice and no snapshot_ts (absent, not null)', async () => {
    // Prepare: an exact hour long before the archive's history.
    const hour = Date.UTC(2020, 0, 1);
    for (const path of ['/v1/perpx/positions/BTC', '/v1/perpx/positions', '/v1/altx/positions/ETH']) {
      // Act
      const res = await get(path, { hour });
      // Assess
      expect(res.status, path).toBe(200);
      expect(res.body.data, path).toEqual([]);
      expect(res.body.meta, path).toMatchObject({ count: 0, has_more: false, notice: 'No positions snapshot exists for this hour.' });
      expect(res.body.meta, path).not.toHaveProperty('snapshot_ts');
    }
  });

  it('streams the bulk hour as Arrow with the same rows as JSON', async () => {
    // The latest hour at which a system account holds a position (they trade a few times an hour
    // and are flat now and then, so which hour depends on the minute the run reaches this test).
    const latest = Math.floor(Date.parse((await get('/v1/altx/positions/ETH')).body.meta.snapshot_ts) / HOUR) * HOUR;
    let hour = latest;
    let json: Awaited<ReturnType<typeof walk>>;
    for (; ; hour -= HOUR) {
      json = await walk('/v1/altx/positions', { hour, limit: 7, include_system: 'true' });
      if (json.some((r) => r.account_kind !== 'user') || hour <= latest - 2 * HOUR) break;
    }
    const arrow = await fetch(`${cloud.url}/v1/altx/positions?hour=${hour}&include_system=true&limit=50000`, {
      headers: { 'x-api-key': KEY, accept: 'application/vnd.apache.arrow.stream' },
    });
    expect(arrow.headers.get('content-type')).toBe('application/vnd.apache.arrow.stream');
    expect(arrow.headers.get('x-schema-version')).toBe('positions.v1');
    const table = tableFromIPC(new Uint8Array(await arrow.arrayBuffer()));
    expect(Number(arrow.headers.get('x-count'))).toBe(table.numRows);
    expect(table.toArray().map((row) => row.toJSON())).toEqual(json);
    expect(json.some((r) => r.account_kind !== 'user')).toBe(true);
    const users = await walk('/v1/altx/positions', { hour, limit: 2000 });
    expect(users.every((r) => r.account_kind === 'user')).toBe(true);
    // The bulk hour and the market route read the same snapshot rows.
    const market = await walk('/v1/altx/positions/ETH', { hour, limit: 2000 });
    const byAccount = (a: any, b: any) => a.account_index.localeCompare(b.account_index);
    expect(users.filter((r) => r.symbol === 'ETH').sort(byAccount)).toEqual([...market].sort(byAccount));
  });

  it('refuses a cursor once its snapshot is replaced, an expired cursor and a changed parameter', async () => {
    const page = await get('/v1/perpx/positions/BTC', { limit: 1 });
    const cursor = page.body.meta.next_cursor as string;
    expect((await get('/v1/perpx/positions/BTC', { limit: 1, side: 'long', cursor })).body).toMatchObject({ code: 400, error_code: 'invalid_cursor' });
    // Cursors are sealed with the service's key: an edited one never reaches the route.
    const scope = ROUTES.find((r) => r.method === 'GET' && r.path === '/v1/perpx/positions/{symbol}')!.operationId;
    const keys = await cursorKeys();
    const inner = openCursor(keys, scope, cursor);
    const fingerprint = JSON.parse(Buffer.from(inner, 'base64url').toString()).f;
    const state = decodeCursor(inner, fingerprint);
    const unsealed = encodeCursor(fingerprint, { ...state, position: [Date.now(), 'x'] });
    expect((await get('/v1/perpx/positions/BTC', { limit: 1, cursor: unsealed })).body).toMatchObject({ code: 400, error_code: 'invalid_cursor' });
    // Behind the seal every cursor is still checked in full, as if the key had leaked. Prepare: one issued 25 hours ago.
    const sealed = (forged: string) => sealCursor(keys, scope, forged);
    const expired = sealed(encodeCursor(fingerprint, { ...state, position: [Date.now() - 25 * HOUR, ...state.position.slice(1)] }));
    expect((await get('/v1/perpx/positions/BTC', { limit: 1, cursor: expired })).body).toMatchObject({ code: 400, error_code: 'invalid_cursor' });
    for (const position of [
      [Date.now(), 'x'],
      [Date.now(), -1],
      [Date.now(), 1, 2],
      ['now', 1],
    ]) {
      const forged = sealed(encodeCursor(fingerprint, { ...state, position }));
      expect((await get('/v1/perpx/positions/BTC', { limit: 1, cursor: forged })).body, JSON.stringify(position)).toMatchObject({
        code: 400,
        error_code: 'invalid_cursor',
      });
    }
    // A newer live snapshot replaces the one the cursor pages.
    const replaced = sealed(encodeCursor(fingerprint, { ...state, window: [state.window[0] - 300_000, state.window[0] - 300_000] }));
    expect((await get('/v1/perpx/positions/BTC', { limit: 1, cursor: replaced })).body).toMatchObject({ code: 409, error_code: 'snapshot_advanced' });
  });
});

describe('registry and freshness', () => {
  it("lists an L1 address's altx accounts and each venue's snapshot freshness", async () => {
    const market = await get('/v1/altx/positions/ETH', { limit: 50 });
    const account = market.body.data.find((r: any) => r.account_kind === 'user')?.account_index;
    const owner = (
      await readWindow(archiveDeps(), {
        dataset: 'accounts',
        family: 'altx',
        from: 0,
        to: Date.now(),
        limit: 1,
        filter: { sql: 'account_index = $a', params: { a: account } },
      })
    ).rows[0];
    const lookup = await get('/v1/altx/accounts', { l1_address: String(owner!.l1_address).toUpperCase().replace('0X', '0x') });
    expect(lookup.body.data).toMatchObject({
      l1_address: owner!.l1_address,
      total_accounts: 1,
      accounts: [{ account_index: account, account_type: 0, first_seen: expect.any(String) }],
    });
    expect((await get('/v1/altx/accounts', { l1_address: 'nope' })).body).toMatchObject({ code: 400, param: 'l1_address' });
    const freshness = await get('/v1/data-quality/positions');
    expect(freshness.body.data.map((r: any) => r.product)).toEqual(['core', 'hip3', 'altx', 'altx_rh']);
    expect(freshness.body.data[2]).toMatchObject({ venue: 'altx', finalized_through: expect.any(String), built_through: expect.any(String) });
    const altx = freshness.body.data[2];
    expect(altx.stale).toBe(altx.live_age_seconds > 12 * 60);
    expect((await get('/v1/altx-rh/accounts', { l1_address: '0x0000000000000000000000000000000000000001' })).status).toBe(404);
  });

  it('knows every account /v1/altx/accounts lists: one that never traded holds no positions, it is not never_seen (issue 40)', async () => {
    // Prepare: a spread of the registry's L1 addresses (most of the demo's registered accounts never
    // take a fill on altx: its makers, sweepers and most demo wallets).
    const registry = (await readWindow(archiveDeps(), { dataset: 'accounts', family: 'altx', from: 0, to: Date.now(), limit: 10_000 })).rows;
    const addresses = [...new Set(registry.map((r) => r.l1_address).filter((a): a is string => typeof a === 'string'))].sort();
    const sample = addresses.filter((_, i) => i % Math.ceil(addresses.length / 10) === 0);
    let neverTraded = 0;
    for (const address of sample) {
      // Act
      const listed = (await get('/v1/altx/accounts', { l1_address: address })).body.data.accounts as { account_index: string }[];
      expect(listed.length, address).toBeGreaterThan(0);
      for (const { account_index } of listed) {
        const page = await get(`/v1/altx/accounts/${account_index}/positions`);
        const legs = await get(`/v1/altx/accounts/${account_index}/positions/changes`, {
          start: Date.parse('2025-01-01T00:00:00Z'),
          end: Date.now(),
          limit: 1,
        });
        // Assess: known to the positions routes, with its positions or as an account that holds none.
        expect(page.status).toBe(200);
        expect(page.body.data.account_seen, `${address} ${account_index}`).not.toBe('never_seen');
        if (page.body.data.positions.length === 0) expect(page.body.data.account_seen).toBe('flat');
        if (legs.body.data.length === 0) neverTraded++;
      }
    }
    expect(neverTraded).toBeGreaterThan(0);
    // The second deployment has no L1 lookup, but its registry's accounts are known the same way; a stranger is not.
    const rh = (
      await readWindow(archiveDeps(), {
        dataset: 'accounts',
        family: 'altx-rh',
        from: 0,
        to: Date.now(),
        limit: 1,
        filter: { sql: "account_kind = 'user'", params: {} },
      })
    ).rows[0]!;
    expect((await get(`/v1/altx-rh/accounts/${String(rh.account_index)}/positions`)).body.data.account_seen).not.toBe('never_seen');
    expect((await get('/v1/altx/accounts/999999999999/positions')).body.data).toMatchObject({ positions: [], account_seen: 'never_seen' });
  });
});
