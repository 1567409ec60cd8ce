/** Open interest and funding over HTTP against the demo market: shapes, buckets, cursors, current, coverage, legacy. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoCloud } from '../helpers/local-cloud.ts';
import { keyedGet, walkPages } from '../helpers/api.ts';
import { newestRow, readWindow } from '#core/archive/read-pages.ts';
import { archiveDeps } from '#shared/archive-deps.ts';

const KEY = 'derivatives-test-key';
let cloud: Awaited<ReturnType<typeof startDemoCloud>>;
const end = Date.now() - 5_000;
const window = { start: end - 2 * 3_600_000, end };

beforeAll(async () => {
  cloud = await startDemoCloud({ key: KEY });
});
afterAll(async () => {
  await cloud?.stop();
});

const get = keyedGet(() => cloud.url, KEY);

const walk = (path: string, query: Record<string, string | number>) => walkPages(get, path, query);

describe('open interest', () => {
  it('serves every ingested sample of the window in order, as strings, once at every page size', async () => {
    // Prepare
    const stored = (
      await readWindow(archiveDeps(), { dataset: 'open_interest', family: 'perpx', symbol: 'BTC', from: window.start, to: window.end, limit: 10_000 })
    ).rows;
    // Act
    const all = await walk('/v1/perpx/openinterest/BTC', { ...window, limit: 1000 });
    const small = await walk('/v1/perpx/openinterest/BTC', { ...window, limit: 7 });
    // Assess
    expect(all.map((r) => r.open_interest)).toEqual(stored.map((r) => r.open_interest));
    expect(small).toEqual(all);
    expect(all[0]).toMatchObject({ symbol: 'BTC', coin: 'BTC', open_interest: expect.any(String), mark_price: expect.any(String) });
    for (const row of all) expect(Object.values(row)).not.toContain(null);
  });

  it('takes the last sample of each bucket with interval, never an average', async () => {
    const raw = await walk('/v1/perpx/openinterest/BTC', { ...window, limit: 1000 });
    const hourly = await walk('/v1/perpx/openinterest/BTC', { ...window, interval: '15m', limit: 3 });
    const lastOfBucket = new Map<number, any>();
    for (const row of raw) lastOfBucket.set(Math.floor(Date.parse(row.timestamp) / 900_000), row);
    expect(hourly).toEqual([...lastOfBucket.values()]);
  });

  it('serves hip4 sides in the #N and bare N forms, with outcome and side and no oracle price', async () => {
    const hash = await get('/v1/perpx/hip4/openinterest/%2311', { ...window, limit: 2 });
    const bare = await get('/v1/perpx/hip4/openinterest/11', { ...window, limit: 2 });
    expect(hash.body.data[0]).toMatchObject({ symbol: '#11', outcome_id: 1, side: 1 });
    expect(hash.body.data[0]).not.toHaveProperty('oracle_price');
    expect(bare.body.data).toEqual(hash.body.data);
  });

  it('answers /current with the newest sample and its age', async () => {
    const current = await get('/v1/altx/openinterest/ETH/current');
    const newest = await walk('/v1/altx/openinterest/ETH', { start: Date.now() - 600_000, limit: 1000 });
    expect(current.status).toBe(200);
    expect(current.body.data.timestamp >= newest.at(-1).timestamp).toBe(true);
    expect(current.body.meta.age_ms).toBeGreaterThanOrEqual(0);
    expect(current.body.meta.age_ms).toBeLessThan(10 * 60_000);
  });

  it('says where coverage starts for a window wholly before it', async () => {
    const res = await get('/v1/perpx/hip3/openinterest/xyz:TSLA', { start: Date.parse('2025-01-01T00:00:00Z'), end: Date.parse('2025-01-02T00:00:00Z') });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta).toMatchObject({ coverage_from: '2026-02-01T00:00:00.000Z', notice: expect.stringContaining('open interest') });
  });
});

describe('funding', () => {
  it('serves decimal-string rates with the premium, on every perpetual family, and 404 unsupported_for_venue elsewhere', async () => {
    for (const [prefix, symbol] of [
      ['/v1/perpx', 'BTC'],
      ['/v1/perpx/hip3', 'xyz:TSLA'],
      ['/v1/altx', 'ETH'],
      ['/v1/altx-rh', 'BTC'],
    ] as const) {
      const res = await get(`${prefix}/funding/${symbol}`, { ...window, limit: 3 });
      expect(res.body.data.length, prefix).toBeGreaterThan(0);
      expect(res.body.data[0]).toMatchObject({ symbol, coin: symbol, funding_rate: expect.stringMatching(/^-?\d+(\.\d+)?$/) });
    }
    const spot = await get('/v1/perpx/spot/funding/HYPE-USDC');
    expect(spot.body).toMatchObject({ code: 404, error_code: 'unsupported_for_venue', datatype: 'funding', venue: 'spot' });
  });

  it('answers the deprecated core routes like the core ones, marked deprecated', async () => {
    const legacy = await get('/v1/funding/BTC', { ...window, limit: 5 });
    const core = await get('/v1/perpx/funding/BTC', { ...window, limit: 5 });
    expect(legacy.body.data).toEqual(core.body.data);
    expect(legacy.headers.get('deprecation')).toBe('true');
    expect(legacy.headers.get('link')).toBe('</v1/perpx/funding/BTC>; rel="successor-version"');
    expect((await get('/v1/openinterest/BTC/current')).body.data.symbol).toBe('BTC');
  });

  it('refuses an interval it does not have, naming the ones it has', async () => {
    const res = await get('/v1/perpx/funding/BTC', { interval: '2h' });
    expect(res.body).toMatchObject({ code: 400, error_code: 'invalid_interval', param: 'interval', valid_values: ['5m', '15m', '30m', '1h', '4h', '1d'] });
  });
});

describe('liquidations', () => {
  const stored = async (family: 'perpx' | 'hip3') =>
    (await readWindow(archiveDeps(), { dataset: 'liquidations', family, from: window.start, to: window.end, limit: 100_000 })).rows;
  /** The market with the most liquidation fills in the window, and its fills in serving order. */
  async function busiest(family: 'perpx' | 'hip3') {
    const rows = await stored(family);
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(String(row.symbol), (counts.get(String(row.symbol)) ?? 0) + 1);
    const symbol = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    return { symbol, rows: rows.filter((r) => r.symbol === symbol) };
  }
  const prefix = { perpx: '/v1/perpx', hip3: '/v1/perpx/hip3' } as const;

  it('serves every liquidation fill of the window once, in order, at every page size, on core and hip3', async () => {
    for (const family of ['perpx', 'hip3'] as const) {
      // Prepare
      const { symbol, rows } = await busiest(family);
      // Act
      const all = await walk(`${prefix[family]}/liquidations/${symbol}`, { ...window, limit: 1000 });
      const small = await walk(`${prefix[family]}/liquidations/${symbol}`, { ...window, limit: 2 });
      // Assess
      expect(all.map((r) => [r.trade_id, r.liquidated_user])).toEqual(rows.map((r) => [r.trade_id, r.liquidated_user]));
      expect(small).toEqual(all);
      expect(all[0]).toMatchObject({ symbol, coin: symbol, side: expect.stringMatching(/^[AB]$/), price: expect.any(String), size: expect.any(String) });
      for (const row of all) expect(Object.values(row)).not.toContain(null);
    }
  });

  it("sums each bucket's fills into its volume, long for side A and short for side B", async () => {
    // Prepare
    const { symbol, rows } = await busiest('perpx');
    const expected = new Map<string, { total: number; long: number; short: number; count: number; long_count: number }>();
    for (const row of rows) {
      const key = new Date(Math.floor(Number(row.ts) / 900_000) * 900_000).toISOString();
      const bucket = expected.get(key) ?? { total: 0, long: 0, short: 0, count: 0, long_count: 0 };
      const usd = Number(row.price) * Number(row.size);
      bucket.total += usd;
      bucket.count += 1;
      if (row.side === 'A') {
        bucket.long += usd;
        bucket.long_count += 1;
      } else bucket.short += usd;
      expected.set(key, bucket);
    }
    // Act
    const buckets = await walk(`/v1/perpx/liquidations/${symbol}/volume`, { ...window, interval: '15m', limit: 2 });
    // Assess
    expect(buckets.map((b) => b.timestamp)).toEqual([...expected.keys()]);
    for (const bucket of buckets) {
      const want = expected.get(bucket.timestamp)!;
      expect(bucket.total_usd).toBeCloseTo(want.total, 2);
      expect(bucket.long_usd).toBeCloseTo(want.long, 2);
      expect(bucket.short_usd).toBeCloseTo(want.short, 2);
      expect(bucket).toMatchObject({ symbol, count: want.count, long_count: want.long_count, short_count: want.count - want.long_count });
    }
  });

  it("finds a wallet's liquidations across markets, as liquidated or liquidator, filtered by symbol or coin", async () => {
    // Prepare
    const rows = await stored('perpx');
    const user = String(rows[0]!.liquidated_user);
    const mine = rows.filter((r) => r.liquidated_user === user || r.liquidator_user === user);
    const symbol = String(mine[0]!.symbol);
    // Act
    const all = await walk(`/v1/perpx/liquidations/user/${user.toUpperCase().replace('0X', '0x')}`, { ...window, limit: 1 });
    const bySymbol = await walk(`/v1/perpx/liquidations/user/${user}`, { ...window, symbol });
    const byCoin = await walk(`/v1/perpx/liquidations/user/${user}`, { ...window, coin: symbol });
    // Assess
    expect(all.map((r) => [r.timestamp, r.trade_id]).sort()).toEqual(mine.map((r) => [new Date(Number(r.ts)).toISOString(), r.trade_id]).sort());
    expect(bySymbol).toEqual(all.filter((r) => r.symbol === symbol));
    expect(byCoin).toEqual(bySymbol);
  });

  it("serves altx liquidations in the venue's own shape, with totals per bucket", async () => {
    // Prepare: liquidations come in bursts (two hours of the demo's altx may have none), so the
    // window is the two hours up to the newest of the whole seeded archive.
    const newest = (await newestRow(archiveDeps(), { dataset: 'altx_liquidations', family: 'altx', from: end - 12 * 3_600_000, to: end }))!;
    const span = { start: Number(newest.ts) - 2 * 3_600_000, end: Number(newest.ts) };
    const rows = (await readWindow(archiveDeps(), { dataset: 'altx_liquidations', family: 'altx', from: span.start, to: span.end, limit: 100_000 })).rows;
    const symbol = String(rows[0]!.symbol);
    const mine = rows.filter((r) => r.symbol === symbol);
    // Act
    const all = await walk(`/v1/altx/liquidations/${symbol}`, { ...span, limit: 2 });
    const hourly = await walk(`/v1/altx/liquidations/${symbol}/volume`, { ...span, interval: '1h' });
    // Assess
    expect(all.map((r) => r.trade_id)).toEqual(mine.map((r) => r.trade_id));
    expect(all[0]).toMatchObject({
      symbol,
      timestamp_ms: Number(mine[0]!.ts),
      price: Number(mine[0]!.price),
      usd_amount: expect.any(Number),
      ask_account: expect.stringMatching(/^\d+$/),
      bid_account: expect.stringMatching(/^\d+$/),
      is_maker_ask: expect.any(Boolean),
      raw_json: '',
      source: 'bucket',
    });
    expect(all[0]).not.toHaveProperty('liquidated_user');
    expect(hourly.reduce((sum, b) => sum + b.count, 0)).toBe(mine.length);
    expect(hourly.reduce((sum, b) => sum + b.total_usd, 0)).toBeCloseTo(
      mine.reduce((sum, r) => sum + Number(r.usd_amount), 0),
      2,
    );
    expect(Object.keys(hourly[0])).toEqual(['symbol', 'timestamp', 'timestamp_ms', 'total_usd', 'count']);
  });

  it('answers 404 unsupported_for_venue where a family has no liquidations, naming where they are', async () => {
    const spot = await get('/v1/perpx/spot/liquidations/HYPE-USDC');
    const hip3User = await get('/v1/perpx/hip3/liquidations/user/0x1111111111111111111111111111111111111111');
    expect(spot.body).toMatchObject({ code: 404, error_code: 'unsupported_for_venue', datatype: 'liquidations', venue: 'spot' });
    expect(spot.body.available_on.map((a: any) => a.venue)).toEqual(['perpx', 'hip3', 'altx']);
    expect(hip3User.body).toMatchObject({
      error_code: 'unsupported_for_venue',
      datatype: 'user_liquidations',
      available_on: [{ venue: 'perpx', route: '/v1/perpx/liquidations/user/{user}' }],
    });
  });

  it('says where coverage starts, and refuses a malformed wallet', async () => {
    const before = await get('/v1/perpx/liquidations/BTC/volume', { start: Date.parse('2025-06-01T00:00:00Z'), end: Date.parse('2025-06-02T00:00:00Z') });
    const bad = await get('/v1/perpx/liquidations/user/0x123');
    const conflicting = await get('/v1/perpx/liquidations/user/0x1111111111111111111111111111111111111111', { symbol: 'BTC', coin: 'ETH' });
    expect(conflicting.body).toMatchObject({ code: 400, error_code: 'invalid_parameter', param: 'coin' });
    expect(before.body).toMatchObject({ data: [], meta: { coverage_from: '2025-12-01T00:00:00.000Z', has_more: false } });
    expect(bad.body).toMatchObject({ code: 400, param: 'user' });
  });
});

describe('cursors', () => {
  it("are the real service's, and the one a client builds from the last row pages as next_cursor does", async () => {
    // Prepare: five hours, the whole archive (from the seed's first hour, at most four hours
    // before the run's seed, to this file's start). The simulation is the same from that hour on,
    // so what two hours up to now held depended on when the file ran: late in the hour no wallet
    // had two liquidations there (at times no market two 5-minute buckets), and limit 1 was
    // rightly the last page.
    const span = { start: end - 5 * 3_600_000, end };
    const rows = (await readWindow(archiveDeps(), { dataset: 'liquidations', family: 'perpx', from: span.start, to: span.end, limit: 100_000 })).rows;
    /**
     * Of the values `keys` gives the rows (a market; a wallet, liquidated or liquidating, as the
     * route finds it), the one whose rows hold the most distinct `position`s: what the route's cursor
     * names, so that with limit 1 a next page has rows.
     */
    const most = (keys: (row: any) => string[], position: (row: any) => number | string) => {
      const positions = new Map<string, Set<number | string>>();
      for (const row of rows) for (const key of keys(row)) positions.set(key, (positions.get(key) ?? new Set()).add(position(row)));
      const [value, held] = [...positions].sort((a, b) => b[1].size - a[1].size)[0] ?? ['', new Set()];
      return { value, positions: held.size };
    };
    // A market liquidated in two 5-minute buckets (so at two `<ts_ms>_<trade_id>` too); a wallet at two instants (`<ts_ms>`).
    const market = most(
      (row) => [String(row.symbol)],
      (row) => Math.floor(Number(row.ts) / 300_000),
    );
    const wallet = most(
      (row) => [String(row.liquidated_user), String(row.liquidator_user)],
      (row) => Number(row.ts),
    );
    expect(market.positions, 'a market liquidated in two 5-minute buckets of the seeded archive').toBeGreaterThan(1);
    expect(wallet.positions, 'a wallet liquidated or liquidating at two instants of the seeded archive').toBeGreaterThan(1);
    const [symbol, user] = [market.value, wallet.value];
    const ms = (row: any) => String(Date.parse(row.timestamp));
    // A candle's quote volume is a float sum, whose last digit may differ between two reads of it.
    const stable = (rows: unknown) => JSON.parse(JSON.stringify(rows, (_key, value) => (typeof value === 'number' ? Number(value.toPrecision(12)) : value)));
    for (const [path, query, build] of [
      ['/v1/perpx/openinterest/BTC', { ...span, limit: 5 }, ms],
      ['/v1/perpx/openinterest/BTC', { ...span, interval: '15m', limit: 1 }, ms], // the last sample's time is in its bucket
      ['/v1/perpx/funding/BTC', { ...span, limit: 5 }, ms],
      ['/v1/perpx/prices/BTC', { ...span, limit: 5 }, ms],
      ['/v1/perpx/candles/BTC', { ...span, interval: '5m', limit: 3 }, ms],
      [`/v1/perpx/liquidations/${symbol}`, { ...span, limit: 1 }, (row: any) => `${ms(row)}_${row.trade_id}`],
      [`/v1/perpx/liquidations/${symbol}/volume`, { ...span, interval: '5m', limit: 1 }, ms],
      [`/v1/perpx/liquidations/user/${user}`, { ...span, limit: 1 }, ms],
    ] as const) {
      // Act
      const first = await get(path, query);
      const followed = await get(path, { ...query, cursor: first.body.meta.next_cursor });
      const resumed = await get(path, { ...query, cursor: build(first.body.data.at(-1)) });
      // Assess
      expect(first.body.meta.has_more, path).toBe(true);
      // Only a market's liquidations page by trade (`<ts_ms>_<trade_id>`); the others by instant.
      expect(first.body.meta.next_cursor, path).toMatch(path === `/v1/perpx/liquidations/${symbol}` ? /^\d+_\d+$/ : /^\d+$/);
      expect(followed.body.data.length, path).toBeGreaterThan(0);
      expect(stable(resumed.body.data), path).toEqual(stable(followed.body.data));
      expect(resumed.body.meta.next_cursor, path).toBe(followed.body.meta.next_cursor);
    }
  });
});

describe('market state', () => {
  const newestStored = async (dataset: 'open_interest' | 'funding' | 'trades' | 'l2_snapshots' | 'liquidations', family: any, symbol: string) =>
    (await readWindow(archiveDeps(), { dataset, family, symbol, from: Date.now() - 86_400_000, to: Date.now(), limit: 1, direction: 'desc' })).rows[0];

  it('serves prices from the open-interest samples, native or last per interval', async () => {
    const samples = await walk('/v1/perpx/openinterest/ETH', { ...window, limit: 1000 });
    const prices = await walk('/v1/perpx/prices/ETH', { ...window, limit: 9 });
    const hourly = await walk('/v1/perpx/prices/ETH', { ...window, interval: '1h' });
    const hip4 = await get('/v1/perpx/hip4/prices/10', { ...window, limit: 1 });
    expect(prices).toEqual(samples.map(({ timestamp, mark_price, oracle_price, mid_price }) => ({ timestamp, mark_price, oracle_price, mid_price })));
    expect(hourly.length).toBeLessThanOrEqual(3);
    expect(hourly.at(-1)).toEqual(prices.at(-1));
    expect(hip4.body.data[0]).not.toHaveProperty('oracle_price');
  });

  it('summarizes the newest samples, 24-hour notional traded and liquidated, omitting what a family lacks', async () => {
    // Prepare: the demo keeps writing, so the summary is compared with the samples stored on both sides of it, once no new one
    // arrived in between.
    const newestPair = async () => [await newestStored('open_interest', 'perpx', 'BTC'), await newestStored('funding', 'perpx', 'BTC')];
    const candles = await walk('/v1/perpx/candles/BTC', { start: Date.now() - 86_400_000, interval: '1h', limit: 100 });
    // Act
    let [oi, funding] = await newestPair();
    let core = (await get('/v1/perpx/summary/BTC')).body.data;
    for (let attempt = 0; JSON.stringify(await newestPair()) !== JSON.stringify([oi, funding]) && attempt < 10; attempt++) {
      [oi, funding] = await newestPair();
      core = (await get('/v1/perpx/summary/BTC')).body.data;
    }
    const hip4 = (await get('/v1/perpx/hip4/summary/%2310')).body.data;
    const altx = (await get('/v1/altx/summary/ETH')).body.data;
    const spot = await get('/v1/perpx/spot/summary/HYPE-USDC');
    // Assess
    expect(core).toMatchObject({
      symbol: 'BTC',
      coin: 'BTC',
      mark_price: oi!.mark_price,
      oracle_price: oi!.oracle_price,
      open_interest: oi!.open_interest,
      funding_rate: funding!.funding_rate,
      liquidation_volume_24h: expect.any(Number),
    });
    expect(Number(core.volume_24h)).toBeGreaterThanOrEqual(candles.reduce((sum, c) => sum + c.quote_volume, 0) * 0.999);
    expect(core.long_liquidation_volume_24h + core.short_liquidation_volume_24h).toBeCloseTo(core.liquidation_volume_24h, 2);
    for (const member of ['funding_rate', 'premium', 'oracle_price', 'liquidation_volume_24h']) expect(hip4).not.toHaveProperty(member);
    expect(hip4).toMatchObject({ symbol: '#10', open_interest: expect.any(String) });
    expect(altx).not.toHaveProperty('liquidation_volume_24h');
    expect(spot.body).toMatchObject({ code: 404, error_code: 'unsupported_for_venue', datatype: 'summary' });
  });

  it('measures freshness from the newest stored record of each dataset the family has', async () => {
    // Prepare
    const newestTrade = await newestStored('trades', 'perpx', 'BTC');
    // Act
    const core = (await get('/v1/perpx/freshness/BTC')).body.data;
    const hip4 = (await get('/v1/perpx/hip4/freshness/10')).body.data;
    const spot = (await get('/v1/perpx/spot/freshness/HYPE-USDC')).body.data;
    // Assess
    expect(Object.keys(core)).toEqual(['symbol', 'coin', 'exchange', 'measured_at', 'orderbook', 'trades', 'funding', 'open_interest', 'liquidations']);
    expect(Date.parse(core.trades.last_updated)).toBeGreaterThanOrEqual(Number(newestTrade!.ts));
    expect(core.trades.lag_ms).toBe(Date.parse(core.measured_at) - Date.parse(core.trades.last_updated));
    expect(Object.keys(hip4)).toEqual(['symbol', 'coin', 'exchange', 'measured_at', 'orderbook', 'trades', 'open_interest']);
    expect(Object.keys(spot)).toEqual(['symbol', 'coin', 'exchange', 'measured_at', 'orderbook', 'trades', 'twap']);
    expect(spot.exchange).toBe('spot');
  });
});
