import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCloud, KEYS } from '../helpers/local-cloud.ts';

let cloud: Awaited<ReturnType<typeof startTestCloud>>;
beforeAll(async () => { cloud = await startTestCloud(); });
afterAll(async () => { await cloud?.stop(); });

async function call(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(cloud.url + path, {
    method, headers: { 'X-API-Key': key, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() as any };
}

// An IP literal needs no DNS (this machine has no network); 93.184.216.34 is a public address.
const PUBLIC_URL = 'https://93.184.216.34/hooks/market';

describe('the event-type catalogue', () => {
  it('serves 28 declarations, 24 live, with every member', async () => {
    const { status, body } = await call(KEYS.free, 'GET', '/v1/webhooks/event-types');
    expect(status).toBe(200);
    expect(body.data).toHaveLength(28);
    expect(body.data.filter((d: any) => d.live)).toHaveLength(24);
    expect(body.data.find((d: any) => d.type === 'market.breadth_cross')).toMatchObject({
      scope: 'public', venues: ['perpx', 'hip3'], params: { threshold: { default: 30, min: 1, max: 99 }, hysteresis_pct: { default: 5, min: 0, max: 50 } },
    });
  });
});

describe('limits', () => {
  it('reports the plan, delivery inclusion and used versus limit', async () => {
    expect((await call(KEYS.build, 'GET', '/v1/webhooks/limits')).body.data).toMatchObject({
      plan: 'build', included: true, endpoints: { used: 0, limit: 1, remaining: 1 }, subscriptions: { limit: 8 }, watched_addresses: { limit: 2 },
      deliveries_per_day: { limit: 5000, unlimited: false },
    });
    expect((await call(KEYS.free, 'GET', '/v1/webhooks/limits')).body.data).toMatchObject({ plan: 'free', included: false, endpoints: { limit: 0 }, notice: expect.any(String) });
  });
});

describe('endpoints', () => {
  let endpointId: string;
  let firstSecret: string;

  it('creates an active endpoint and shows its secret once', async () => {
    const { status, body } = await call(KEYS.build, 'POST', '/v1/webhooks/endpoints', { url: PUBLIC_URL, description: 'desk alerts' });
    expect(status).toBe(201);
    expect(body.data).toMatchObject({ url: PUBLIC_URL, description: 'desk alerts', status: 'active', consecutive_failures: 0 });
    expect(body.data.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(body.note).toMatch(/shown once/);
    endpointId = body.data.id;
    firstSecret = body.data.secret;
  });

  it('never returns the secret from list or read', async () => {
    const list = await call(KEYS.build, 'GET', '/v1/webhooks/endpoints');
    const one = await call(KEYS.build, 'GET', `/v1/webhooks/endpoints/${endpointId}`);
    expect(list.body.data.map((e: any) => e.id)).toEqual([endpointId]);
    for (const text of [JSON.stringify(list.body), JSON.stringify(one.body)]) {
      expect(text).not.toContain('whsec_');
      expect(text).not.toContain('secret');
    }
  });

  it('refuses a second endpoint on the build plan, naming the limit', async () => {
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/endpoints', { url: PUBLIC_URL })).body).toMatchObject({
      code: 400, error_code: 'plan_limit', limit: 1, error: expect.stringContaining('1 endpoints'),
    });
  });

  it('refuses endpoints on the free plan, naming the plan that includes delivery', async () => {
    expect((await call(KEYS.free, 'POST', '/v1/webhooks/endpoints', { url: PUBLIC_URL })).body).toMatchObject({
      code: 400, error_code: 'plan_no_webhooks', error: expect.stringContaining('Build'),
    });
  });

  it('rotates: a new secret once, the previous one valid for 24 hours', async () => {
    const { body } = await call(KEYS.build, 'POST', `/v1/webhooks/endpoints/${endpointId}/rotate`);
    expect(body.data.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(body.data.secret).not.toBe(firstSecret);
    expect(Date.parse(body.data.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
  });

  it('enables an endpoint', async () => {
    expect((await call(KEYS.build, 'POST', `/v1/webhooks/endpoints/${endpointId}/enable`)).body.data).toMatchObject({ id: endpointId, status: 'active' });
  });

  it('answers 404 for another account\'s endpoint, never its data', async () => {
    for (const [method, path] of [['GET', ''], ['POST', '/rotate'], ['POST', '/enable'], ['DELETE', '']] as const) {
      expect((await call(KEYS.pro, method, `/v1/webhooks/endpoints/${endpointId}${path}`)).body, `${method} ${path}`).toMatchObject({ code: 404, error_code: 'not_found' });
    }
  });

  it('deletes an endpoint and gives its allowance back', async () => {
    expect((await call(KEYS.build, 'DELETE', `/v1/webhooks/endpoints/${endpointId}`)).status).toBe(200);
    expect((await call(KEYS.build, 'GET', `/v1/webhooks/endpoints/${endpointId}`)).status).toBe(404);
    expect((await call(KEYS.build, 'GET', '/v1/webhooks/limits')).body.data.endpoints).toEqual({ used: 0, limit: 1, remaining: 1 });
  });

  it('holds the allowance under concurrent creates', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => call(KEYS.pro, 'POST', '/v1/webhooks/endpoints', { url: PUBLIC_URL })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(4);
    expect(results.filter((r) => r.body.error_code === 'plan_limit')).toHaveLength(6);
    expect((await call(KEYS.pro, 'GET', '/v1/webhooks/endpoints')).body.data).toHaveLength(4);
  });

  it('refuses destinations that are not public HTTPS, naming url', async () => {
    const urls = [
      'http://93.184.216.34/hook', 'https://127.0.0.1/hook', 'https://[::1]/hook', 'https://169.254.169.254/latest/meta-data',
      'https://user:pass@93.184.216.34/hook', 'https://2130706433/hook', 'https://0x7f000001/hook', 'https://localhost/hook',
      'https://10.0.0.8/hook', 'https://[::ffff:127.0.0.1]/hook', 'not a url',
    ];
    for (const url of urls) {
      expect((await call(KEYS.build, 'POST', '/v1/webhooks/endpoints', { url })).body, url).toMatchObject({ code: 400, param: 'url' });
    }
  });

  it('refuses a body without url or with unknown members', async () => {
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/endpoints', {})).body).toMatchObject({ code: 400, param: 'url' });
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/endpoints', { url: PUBLIC_URL, secret: 'mine' })).body).toMatchObject({ code: 400, error_code: 'invalid_parameter' });
  });
});
