import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoCloud } from '../helpers/local-cloud.ts';
import { walkPages } from '../helpers/api.ts';
import { ROUTES } from '#functions/routes.ts';
import { familiesOf } from '#schemas/datasets.ts';
import { cursorKeys } from '#shared/deps.ts';
import { sealCursor } from '#core/cursor-seal.ts';
import { encodeCursor } from '#core/market/cursor.ts';
import { fingerprintOf } from '#core/market/queries.ts';

const KEY = 'market-test-key';
let cloud: Awaited<ReturnType<typeof startDemoCloud>>;
let now: number;
beforeAll(async () => {
  cloud = await startDemoCloud({ key: KEY });
  now = Date.now();
});
afterAll(async () => {
  await cloud?.stop();
});

async function get(path: string, query: Record<string, string | number | boolean> = {}) {
  const url = new URL(cloud.url + path);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  const res = await fetch(url, { headers: { 'X-API-Key': KEY } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

// The live feed is still writing the current second; windows end in the settled past.
const window = () => ({ start: now - 3 * 3_600_000, end: now - 5_000 });

const walk = (path: string, query: Record<string, string | number | boolean>) => walkPages(get, path, query);

describe('trades', () => {
  it('answers every family with trade rows in the spec shape', async () => {
    const symbols = {
      '/v1/perpx': 'BTC',
      '/v1/perpx/spot': 'HYPE-USDC',
      '/v1/perpx/hip3': 'xyz:TSLA',
      '/v1/perpx/hip4': '%2310',
      '/v1/altx': 'ETH',
      '/v1/altx-rh': 'BTC',
    };
    for (const [prefix, symbol] of Object.entries(symbols)) {
      const res = await get(`${prefix}/trades/${symbol}`, { ...window(), limit: 5 });
      expect(res.status, prefix).toBe(200);
      expect(res.body.data.length, prefix).toBeGreaterThan(0);
      const row = res.body.data[0];
      expect(row.coin).toBe(row.symbol);
      expect(row.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(typeof row.price).toBe('string');
      expect(typeof row.size).toBe('string');
      // A member that does not apply is absent, never null; priority gas is a number.
      for (const trade of res.body.data) expect(Object.values(trade), prefix).not.toContain(null);
      for (const trade of res.body.data) if ('priority_gas' in trade) expect(typeof trade.priority_gas).toBe('number');
      // altx rows carry the venue's account number and their source; other families neither.
      const altx = prefix.startsWith('/v1/altx');
      for (const trade of res.body.data) expect(trade.source, prefix).toBe(altx ? 'bucket' : undefined);
      for (const trade of res.body.data) if (altx) expect(trade.account_index, prefix).toMatch(/^\d+$/);
      expect(res.body.meta).toMatchObject({ count: res.body.data.length, request_id: res.headers.get('x-request-id') });
    }
  });

  it('matches nothing for a symbol in the wrong form for its family', async () => {
    for (const path of [
      '/v1/perpx/hip3/trades/TSLA',
      '/v1/perpx/hip3/trades/XYZ:TSLA',
      '/v1/perpx/hip4/trades/10',
      '/v1/perpx/spot/trades/HYPE',
      '/v1/altx-rh/trades/AAPL-USDC',
    ]) {
      const res = await get(path, window());
      expect(res.status, path).toBe(200);
      expect(res.body.data, path).toEqual([]);
    }
  });

  it('yields every row of the window exactly once, in order, whatever the page size', async () => {
    const all = await walk('/v1/perpx/trades/BTC', { ...window(), limit: 1000 });
    expect(all.length).toBeGreaterThan(50);
    const ids = all.map((r) => r.trade_id);
    expect(new Set(ids).size).toBe(ids.length);
    const times = all.map((r) => Date.parse(r.timestamp));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect((await walk('/v1/perpx/trades/BTC', { ...window(), limit: 97 })).map((r) => r.trade_id)).toEqual(ids);
    // Very small pages over the last 20 minutes.
    const recent = { start: now - 1_200_000, end: now - 5_000 };
    const recentIds = all.filter((r) => Date.parse(r.timestamp) >= recent.start).map((r) => r.trade_id);
    expect((await walk('/v1/perpx/trades/BTC', { ...recent, limit: 7 })).map((r) => r.trade_id)).toEqual(recentIds);
  });

  it('says has_more false and sends no next_cursor at the end of the window', async () => {
    const res = await get('/v1/perpx/trades/BTC', { ...window(), limit: 1000 });
    const total = (await walk('/v1/perpx/trades/BTC', { ...window(), limit: 1000 })).length;
    if (total <= 1000) expect(res.body.meta).toMatchObject({ has_more: false });
    if (total <= 1000) expect(res.body.meta).not.toHaveProperty('next_cursor');
  });

  it("pages with the real service's <ts_ms>_<trade_id> cursor, which a client may build from the last row", async () => {
    // Prepare
    const first = await get('/v1/perpx/trades/BTC', { ...window(), limit: 5 });
    const last = first.body.data.at(-1);
    const built = `${Date.parse(last.timestamp)}_${last.trade_id}`;
    // Act
    const followed = await get('/v1/perpx/trades/BTC', { ...window(), limit: 5, cursor: first.body.meta.next_cursor });
    const resumed = await get('/v1/perpx/trades/BTC', { ...window(), limit: 5, cursor: built });
    const legacy = await get('/v1/trades/BTC', { ...window(), limit: 5, cursor: built });
    // Assess: the same next page, and the legacy route reads the same cursor.
    expect(first.body.meta.next_cursor).toBe(built);
    expect(resumed.body.data).toEqual(followed.body.data);
    expect(resumed.body.data.length).toBeGreaterThan(0);
    expect(resumed.body.data[0].trade_id).not.toBe(last.trade_id);
    expect(legacy.body.data).toEqual(followed.body.data);
    expect(legacy.body.meta.next_cursor).toBe(followed.body.meta.next_cursor);
  });

  it('takes a transparent cursor as a position only: in the window, strictly spelled, or invalid_cursor', async () => {
    // Prepare
    const first = await get('/v1/perpx/trades/BTC', { ...window(), limit: 5 });
    const cursor: string = first.body.meta.next_cursor;
    const at = Number(cursor.split('_')[0]);
    // Act
    const narrower = await get('/v1/perpx/trades/BTC', { ...window(), start: at, limit: 5, cursor });
    const refused = await Promise.all(
      [
        { ...window(), start: at + 1, cursor }, // the window moved past it
        { ...window(), end: at - 1, cursor },
        { ...window(), cursor: `${cursor}x` },
        { ...window(), cursor: `${cursor}_1` },
        { ...window(), cursor: `-${cursor}` },
        { ...window(), cursor: `${at}` },
        { ...window(), cursor: `${at}_${2 ** 53}` },
        { ...window(), cursor: '' },
      ].map((query) => get('/v1/perpx/trades/BTC', { ...query, limit: 5 })),
    );
    // Assess: a position in another window the cursor lies in pages from it (other parameters may change).
    expect(narrower.status).toBe(200);
    expect(narrower.body.data.every((r: any) => Date.parse(r.timestamp) >= at)).toBe(true);
    for (const res of refused)
      expect(res.body).toMatchObject({ success: false, code: 400, error_code: 'invalid_cursor', param: 'cursor', request_id: res.headers.get('x-request-id') });
  });

  it("still takes a sealed cursor the previous version issued, and refuses another route's or one for other parameters", async () => {
    // Prepare: the cursor the previous version would have handed out after the first page.
    const query = { ...window(), limit: 5 };
    const first = await get('/v1/perpx/trades/BTC', query);
    const [ts, tradeId] = first.body.meta.next_cursor.split('_').map(Number);
    const keys = await cursorKeys();
    const fingerprint = fingerprintOf('getPerpxTrades', 'BTC', { start: query.start, end: query.end, side: undefined });
    const issued = (scope: string, print = fingerprint) =>
      sealCursor(keys, scope, encodeCursor(print, { window: [query.start, query.end], position: [ts, tradeId] }));
    // Act
    const sealed = await get('/v1/perpx/trades/BTC', { ...query, cursor: issued('getPerpxTrades') });
    const followed = await get('/v1/perpx/trades/BTC', { ...query, cursor: first.body.meta.next_cursor });
    const foreign = await get('/v1/perpx/trades/BTC', { ...query, cursor: issued('getAltxTrades') });
    const otherParameters = await get('/v1/perpx/trades/BTC', {
      ...query,
      cursor: issued('getPerpxTrades', fingerprintOf('getPerpxTrades', 'BTC', { start: query.start, end: query.end, side: 'buy' })),
    });
    // Assess: the sealed cursor's page, and a transparent next cursor after it.
    expect(sealed.body.data).toEqual(followed.body.data);
    expect(sealed.body.meta.next_cursor).toBe(followed.body.meta.next_cursor);
    for (const res of [foreign, otherParameters]) expect(res.body).toMatchObject({ code: 400, error_code: 'invalid_cursor', param: 'cursor' });
  });

  it('keeps an opaque cursor, where the real service has one, sealed and bound to the request', async () => {
    // Prepare
    const path = '/v1/perpx/orders/BTC/tpsl';
    const first = await get(path, { ...window(), limit: 1 });
    const cursor = first.body.meta.next_cursor;
    expect(cursor).toMatch(/^[\w-]+\.[\w-]+\.[\w-]{22}$/);
    // Act
    const changed = await get(path, { ...window(), start: window().start + 1, limit: 1, cursor });
    const otherSymbol = await get('/v1/perpx/orders/ETH/tpsl', { ...window(), limit: 1, cursor });
    const tampered = await get(path, { ...window(), limit: 1, cursor: `${cursor}x` });
    // Assess
    for (const res of [changed, otherSymbol, tampered]) expect(res.body).toMatchObject({ code: 400, error_code: 'invalid_cursor', param: 'cursor' });
  });

  it('filters by taker side, spelled buy/sell or as rows carry it (B/A)', async () => {
    for (const [spelled, code] of [
      ['buy', 'B'],
      ['B', 'B'],
      ['A', 'A'],
    ]) {
      const rows = (await get('/v1/perpx/trades/BTC', { ...window(), side: spelled!, limit: 100 })).body.data;
      expect(rows.length, spelled).toBeGreaterThan(0);
      expect(new Set(rows.map((r: any) => r.side)), spelled).toEqual(new Set([code]));
    }
    expect((await get('/v1/perpx/trades/BTC', { side: 'b' })).body).toMatchObject({ code: 400, param: 'side' });
    const res = await get('/v1/perpx/trades/BTC', { ...window(), side: 'sell', limit: 100 });
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(new Set(res.body.data.map((r: any) => r.side))).toEqual(new Set(['A']));
  });

  it('serves the newest trades first on /recent, in every family with trades (hip3 and spot included)', async () => {
    for (const path of ['/v1/altx/trades/BTC/recent', '/v1/perpx/hip3/trades/xyz:TSLA/recent', '/v1/perpx/spot/trades/HYPE-USDC/recent']) {
      const res = await get(path, { limit: 20 });
      const times = res.body.data.map((r: any) => Date.parse(r.timestamp));
      expect(times.length, path).toBeGreaterThan(0);
      expect(times, path).toEqual([...times].sort((a, b) => b - a));
    }
    const sells = await get('/v1/perpx/spot/trades/HYPE-USDC/recent', { limit: 50, side: 'sell' });
    expect(sells.body.data.length).toBeGreaterThan(0);
    expect(new Set(sells.body.data.map((r: any) => r.side))).toEqual(new Set(['A']));
  });

  it('answers 200 with an empty array for a window wholly before coverage, saying where coverage starts', async () => {
    const before = { start: Date.UTC(2025, 0, 1), end: Date.UTC(2025, 0, 2) };
    const trades = await get('/v1/perpx/hip3/trades/xyz:TSLA', before);
    const candles = await get('/v1/perpx/hip4/candles/%2310', before);
    const tpsl = await get('/v1/perpx/orders/BTC/tpsl', before);
    expect(trades).toMatchObject({ status: 200, body: { success: true, data: [], meta: { coverage_from: '2026-02-01T00:00:00.000Z', has_more: false } } });
    expect(trades.body.meta.notice).toContain('trades');
    expect(candles.body).toMatchObject({ data: [], meta: { coverage_from: '2026-05-01T00:00:00.000Z' } });
    expect(tpsl.body).toMatchObject({ data: [], meta: { coverage_from: '2026-03-10T00:00:00.000Z' } });
  });
});

describe('limits and parameters', () => {
  it("returns 400 naming limit above each route's maximum", async () => {
    for (const [path, max] of [
      ['/v1/perpx/trades/BTC', 1000],
      ['/v1/perpx/candles/BTC', 10_000],
      ['/v1/perpx/orders/BTC/tpsl', 10_000],
      ['/v1/perpx/orders/BTC/flow', 10_000],
    ] as const) {
      expect((await get(path, { limit: max })).status, path).toBe(200);
      expect((await get(path, { limit: max + 1 })).body, path).toMatchObject({ code: 400, error_code: 'invalid_parameter', param: 'limit' });
    }
  });

  it('returns 400 naming the parameter for non-integer or negative values', async () => {
    for (const [name, value] of [
      ['limit', '-1'],
      ['limit', '1.5'],
      ['limit', 'ten'],
      ['start', 'yesterday'],
      ['end', '-5'],
    ] as const) {
      expect((await get('/v1/perpx/trades/BTC', { [name]: value })).body, `${name}=${value}`).toMatchObject({ code: 400, param: name });
    }
  });

  it('returns 400 listing the accepted intervals', async () => {
    expect((await get('/v1/perpx/candles/BTC', { interval: '7m' })).body).toMatchObject({
      code: 400,
      error_code: 'invalid_interval',
      param: 'interval',
      valid_values: ['1m', '5m', '15m', '30m', '1h', '4h', '1d', '1w'],
    });
    expect((await get('/v1/perpx/orders/BTC/flow', { interval: '15m' })).body).toMatchObject({
      error_code: 'invalid_interval',
      valid_values: ['1m', '5m', '1h'],
    });
  });

  it('returns 400 invalid_time_range when start is after end', async () => {
    expect((await get('/v1/perpx/trades/BTC', { start: now, end: now - 1000 })).body).toMatchObject({
      code: 400,
      error_code: 'invalid_time_range',
      param: 'start',
    });
  });
});

describe('candles', () => {
  it('rolls 5m and 1h candles up from the 1-minute candles they come from', async () => {
    const minutes = await walk('/v1/perpx/candles/BTC', { ...window(), interval: '1m', limit: 10_000 });
    expect(minutes.length).toBeGreaterThan(30);
    for (const [interval, width] of [
      ['5m', 300_000],
      ['1h', 3_600_000],
    ] as const) {
      const rolled = await walk('/v1/perpx/candles/BTC', { ...window(), interval, limit: 7 });
      const expected = new Map<number, any>();
      for (const m of minutes) {
        const bucket = Math.floor(Date.parse(m.timestamp) / width) * width;
        if (bucket < window().start) continue;
        const c = expected.get(bucket);
        if (!c) expected.set(bucket, { ...m, timestamp: new Date(bucket).toISOString() });
        else
          Object.assign(c, {
            high: Math.max(c.high, m.high),
            low: Math.min(c.low, m.low),
            close: m.close,
            volume: c.volume + m.volume,
            quote_volume: c.quote_volume + m.quote_volume,
            trade_count: c.trade_count + m.trade_count,
          });
      }
      const complete = rolled.filter((c) => Date.parse(c.timestamp) >= window().start && Date.parse(c.timestamp) + width <= now - 120_000);
      expect(complete.length, interval).toBeGreaterThan(0);
      for (const c of complete) {
        const e = expected.get(Date.parse(c.timestamp));
        expect(c, `${interval} ${c.timestamp}`).toMatchObject({ open: e.open, high: e.high, low: e.low, close: e.close, trade_count: e.trade_count });
        expect(c.volume).toBeCloseTo(e.volume, 6);
        expect(c.quote_volume).toBeCloseTo(e.quote_volume, 2);
      }
    }
  });

  it('has no bar for a minute without trades (a missing bar is not a zero bar)', async () => {
    const minutes = await walk('/v1/perpx/spot/candles/PURR-USDC', { ...window(), interval: '1m', limit: 10_000 });
    expect(minutes.every((m) => m.trade_count > 0 && m.volume > 0)).toBe(true);
  });

  it('gives hip4 prices as probabilities, quoted in USDH', async () => {
    const res = await get('/v1/perpx/hip4/candles/%2310', { ...window(), interval: '5m', limit: 100 });
    expect(res.body.data.length).toBeGreaterThan(0);
    for (const c of res.body.data) for (const p of [c.open, c.high, c.low, c.close]) expect(p >= 0 && p <= 1).toBe(true);
    expect(res.body.meta).toMatchObject({ price_unit: 'probability', quote_currency: 'USDH' });
  });
});

describe('trigger orders and order flow', () => {
  it('filters trigger orders by triggered and user, and ignores user_address', async () => {
    const all = await walk('/v1/perpx/orders/BTC/tpsl', { ...window(), limit: 10_000 });
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((r) => r.is_trigger)).toBe(true);
    const fired = await walk('/v1/perpx/orders/BTC/tpsl', { ...window(), triggered: true });
    expect(fired.every((r) => r.event === 'triggered')).toBe(true);
    const user = all[0].user_address;
    const mine = await walk('/v1/perpx/orders/BTC/tpsl', { ...window(), user: user.toUpperCase().replace('0X', '0x') });
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((r) => r.user_address === user)).toBe(true);
    const ignored = await walk('/v1/perpx/orders/BTC/tpsl', { ...window(), user_address: user });
    expect(ignored.length).toBe(all.length);
  });

  it('counts order events per bucket, ignores granularity, and has no cursor', async () => {
    const oneMinute = await get('/v1/perpx/orders/BTC/flow', { ...window(), granularity: '1h' });
    const hourly = await get('/v1/perpx/orders/BTC/flow', { ...window(), interval: '1h' });
    expect(oneMinute.body.meta).toMatchObject({ interval: '1m' });
    expect(oneMinute.body.meta).not.toHaveProperty('next_cursor');
    expect(oneMinute.body.meta).not.toHaveProperty('has_more');
    const sum = (rows: any[], key: string) => rows.reduce((s, r) => s + r[key], 0);
    for (const key of ['limit_orders_placed', 'orders_canceled', 'orders_filled', 'tpsl_orders_placed']) {
      expect(sum(hourly.body.data, key), key).toBe(sum(oneMinute.body.data, key));
    }
    expect(Object.keys(oneMinute.body.data[0]).sort()).toEqual([
      'limit_orders_placed',
      'orders_canceled',
      'orders_filled',
      'orders_force_canceled',
      'orders_triggered',
      'timestamp',
      'tpsl_orders_placed',
      'trigger_orders_placed',
    ]);
  });

  it('has no trigger-order or order-flow routes for spot, and says where they are', async () => {
    expect((await get('/v1/perpx/spot/orders/HYPE-USDC/tpsl')).body).toMatchObject({
      code: 404,
      error_code: 'unsupported_for_venue',
      datatype: 'trigger_orders',
      venue: 'spot',
    });
  });
});

describe('instruments and legacy routes', () => {
  it('lists the registry and finds one instrument, 404 for an unknown one', async () => {
    const list = await get('/v1/altx/instruments');
    expect(list.body.data.map((i: any) => i.symbol)).toEqual(expect.arrayContaining(['BTC', 'ETH']));
    expect((await get('/v1/perpx/hip3/instruments/xyz:TSLA')).body.data).toMatchObject({
      symbol: 'xyz:TSLA',
      dex: 'xyz',
      instrument_type: 'perp',
      coin: 'xyz:TSLA',
      namespace: 'xyz',
      ticker: 'TSLA',
    });
    // A hip4 side carries its outcome's ids, as the outcomes route lists them; core rows have none of those members.
    const side = (await get('/v1/perpx/hip4/instruments')).body.data[0];
    const outcome = (await get(`/v1/perpx/hip4/outcomes/${side.outcome_id}`)).body.data;
    expect(side).toMatchObject({ coin: side.symbol, instrument_type: 'outcome', asset_id: expect.any(Number) });
    expect(outcome.outcome_pair[side.side]).toBe(side.symbol);
    expect(list.body.data[0]).not.toHaveProperty('coin');
    expect((await get('/v1/perpx/instruments/NOPE')).body).toMatchObject({ code: 404, error_code: 'not_found' });
  });

  it('answers the deprecated routes like their core replacements, with a Deprecation header', async () => {
    const legacy = await get('/v1/trades/BTC', { ...window(), limit: 20 });
    const core = await get('/v1/perpx/trades/BTC', { ...window(), limit: 20 });
    expect(legacy.body.data).toEqual(core.body.data);
    expect(legacy.headers.get('deprecation')).toBe('true');
    expect(legacy.headers.get('link')).toBe('</v1/perpx/trades/BTC>; rel="successor-version"');
    expect((await get('/v1/trades/BTC/cursor', { ...window(), limit: 20 })).body.data).toEqual(core.body.data);
    expect((await get('/v1/instruments/BTC')).body.data.symbol).toBe('BTC');
  });

  it('answers a route its family lacks with 404 unsupported_for_venue naming where the data is', async () => {
    // Act
    const flow = await get('/v1/perpx/spot/orders/HYPE-USDC/flow', window());
    const funding = await get('/v1/perpx/hip4/funding/%2310');
    // Assess
    expect(flow.status).toBe(404);
    expect(flow.body).toMatchObject({
      success: false,
      code: 404,
      error_code: 'unsupported_for_venue',
      datatype: 'order_flow',
      venue: 'spot',
      available_on: [
        { venue: 'perpx', route: '/v1/perpx/orders/{symbol}/flow' },
        { venue: 'hip3', route: '/v1/perpx/hip3/orders/{symbol}/flow' },
        { venue: 'hip4', route: '/v1/perpx/hip4/orders/{symbol}/flow' },
      ],
    });
    expect(funding).toMatchObject({ status: 404, body: { error_code: 'unsupported_for_venue', datatype: 'funding', venue: 'hip4' } });
    expect(funding.body.available_on.map((a: any) => a.venue)).toEqual(familiesOf('funding'));
  });

  it('documents every market route in the OpenAPI document', async () => {
    const doc = (await get('/v1/openapi.json')).body;
    for (const route of ROUTES.filter((r) => r.group === 'market' && !r.hidden)) {
      expect(doc.paths[route.path]?.get?.operationId, route.path).toBe(route.operationId);
    }
    expect(doc.paths['/v1/trades/{symbol}'].get.deprecated).toBe(true);
  });
});

describe('spot pairs and hip4 outcomes', () => {
  it('lists spot pairs from the token registry, by pair index, and reads one', async () => {
    const pairs = (await get('/v1/perpx/spot/pairs')).body.data;
    const instruments = (await get('/v1/perpx/spot/instruments')).body.data;
    expect(pairs.map((p: any) => p.symbol).sort()).toEqual(instruments.map((i: any) => i.symbol).sort());
    expect(pairs.map((p: any) => p.pair_index)).toEqual([...pairs.map((p: any) => p.pair_index)].sort((a, b) => a - b));
    expect(pairs.filter((p: any) => p.is_canonical).map((p: any) => p.name)).toEqual(['PURR/USDC']);
    const hype = (await get('/v1/perpx/spot/pairs/HYPE-USDC')).body.data;
    expect(hype).toMatchObject({
      symbol: 'HYPE-USDC',
      coin: 'HYPE-USDC',
      base_token_name: 'HYPE',
      quote_token_name: 'USDC',
      name: expect.stringMatching(/^@\d+$/),
    });
    expect((await get('/v1/perpx/spot/pairs/NOPE-USDC')).body).toMatchObject({ code: 404, error_code: 'not_found' });
    expect((await get('/v1/perpx/pairs')).body).toMatchObject({ code: 404, error_code: 'unsupported_for_venue', datatype: 'spot_pairs' });
  });

  it('pages hip4 outcomes with both sides, filters by settlement and slug, and adds open interest on the single read', async () => {
    // Act
    const all = await walk('/v1/perpx/hip4/outcomes', { limit: 1 });
    const live = await walk('/v1/perpx/hip4/outcomes', { is_settled: false });
    const first = all[0];
    const bySideSlug = (await get('/v1/perpx/hip4/outcomes', { slug: first.side_specs[1].slug })).body.data;
    const one = (await get(`/v1/perpx/hip4/outcomes/${first.outcome_id}`)).body.data;
    const oi = await Promise.all(
      first.outcome_pair.map(async (coin: string) => (await get(`/v1/perpx/hip4/openinterest/${encodeURIComponent(coin)}/current`)).body.data),
    );
    // Assess
    expect(all.map((o) => o.outcome_id)).toEqual([0, 1, 2, 3]);
    expect(live.length + all.filter((o) => o.is_settled).length).toBe(all.length);
    expect(first).toMatchObject({
      outcome_pair: ['#0', '#1'],
      status: first.is_settled ? 'settled' : 'live',
      class: 'priceBinary',
      period: '1d',
      target_price: expect.any(Number),
      expiry: expect.stringMatching(/^\d{4}-\d\d-\d\dT08:00:00\.000Z$/),
      side_specs: [
        { side: 0, name: 'Yes', coin: '#0' },
        { side: 1, name: 'No', coin: '#1' },
      ],
    });
    expect(first).not.toHaveProperty('aggregated_oi');
    expect(bySideSlug.map((o: any) => o.outcome_id)).toEqual([first.outcome_id]);
    expect(one.aggregated_oi).toMatchObject({ currency: 'USDH', side0_open_interest_contracts: expect.any(Number) });
    // The single read takes each side's newest sample: at least as new as /current read just before.
    expect(Date.parse(one.aggregated_oi.side0_as_of)).toBeGreaterThanOrEqual(Date.parse(oi[0].timestamp));
    expect((await get('/v1/perpx/hip4/outcomes/99')).body).toMatchObject({ code: 404, error_code: 'not_found' });
    expect((await get('/v1/perpx/hip4/outcomes', { is_settled: 'maybe' })).body).toMatchObject({ code: 400, param: 'is_settled' });
  });
});
