/** Open interest and funding over HTTP against the demo market: shapes, buckets, cursors, current, coverage, legacy. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoCloud } from '../helpers/local-cloud.ts';
import { walkPages } from '../helpers/api.ts';
import { readWindow } from '../../functions/core/archive/read.ts';
import { archiveDeps } from '../../functions/shared/archive-deps.ts';

const KEY = 'derivatives-test-key';
let cloud: Awaited<ReturnType<typeof startDemoCloud>>;
const end = Date.now() - 5_000;
const window = { start: end - 2 * 3_600_000, end };

beforeAll(async () => {
  cloud = await startDemoCloud({ key: KEY, hours: 2, seed: 17, intensity: 0.3, l2IntervalMs: 300_000 });
}, 180_000);
afterAll(async () => { await cloud?.stop(); });

async function get(path: string, query: Record<string, string | number | boolean> = {}) {
  const url = new URL(cloud.url + path);
  for (const [k, val] of Object.entries(query)) url.searchParams.set(k, String(val));
  const res = await fetch(url, { headers: { 'X-API-Key': KEY } });
  return { status: res.status, headers: res.headers, body: await res.json() as any };
}

const walk = (path: string, query: Record<string, string | number>) => walkPages(get, path, query);

describe('open interest', () => {
  it('serves every ingested sample of the window in order, as strings, once at every page size', async () => {
    // Prepare
    const stored = (await readWindow(archiveDeps(), { dataset: 'open_interest', family: 'perpx', symbol: 'BTC', from: window.start, to: window.end, limit: 10_000 })).rows;
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
    expect(res.body.meta).toMatchObject({ coverage_from: '2026-02-01T00:00:00.000Z', notice: expect.stringContaining('open_interest') });
  });
});

describe('funding', () => {
  it('serves decimal-string rates with the premium, on every perpetual family, and 404 unsupported_for_venue elsewhere', async () => {
    for (const [prefix, symbol] of [['/v1/perpx', 'BTC'], ['/v1/perpx/hip3', 'xyz:TSLA'], ['/v1/altx', 'ETH'], ['/v1/altx-rh', 'BTC']] as const) {
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
    expect(legacy.headers.get('link')).toContain('/v1/perpx/funding/{symbol}');
    expect((await get('/v1/openinterest/BTC/current')).body.data.symbol).toBe('BTC');
  });

  it('refuses an interval it does not have, naming the ones it has', async () => {
    const res = await get('/v1/perpx/funding/BTC', { interval: '2h' });
    expect(res.body).toMatchObject({ code: 400, error_code: 'invalid_interval', param: 'interval', valid_values: ['5m', '15m', '30m', '1h', '4h', '1d'] });
  });
});
