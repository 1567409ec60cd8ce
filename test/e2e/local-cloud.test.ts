import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { sharedTemplate, startTestCloud, KEYS } from '../helpers/local-cloud.ts';
import { SERVICE_VERSION } from '#shared/openapi.ts';

let cloud: Awaited<ReturnType<typeof startTestCloud>>;
beforeAll(async () => {
  cloud = await startTestCloud();
});
afterAll(async () => {
  await cloud?.stop();
});

async function get(path: string, init: RequestInit = {}) {
  const res = await fetch(cloud.url + path, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const withKey = (key: string): RequestInit => ({ headers: { 'X-API-Key': key } });

describe('the local cloud over HTTP', () => {
  it('answers GET /health without a key', async () => {
    const res = await get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('does not validate a key on /health, even a wrong one', async () => {
    const res = await get('/health', withKey('not-a-key'));
    expect(res.status).toBe(200);
  });

  it('serves the OpenAPI document without a key', async () => {
    const res = await get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ openapi: '3.0.3', info: { version: '1.5.0', 'x-service-version': SERVICE_VERSION } });
    expect(res.body.servers[0].variables.base_url.default).toBe(cloud.url);
  });

  it('serves the API reference page and its renderer without a key, needing nothing beyond this API', async () => {
    // Act
    const page = await fetch(`${cloud.url}/docs`);
    const html = await page.text();
    const script = await fetch(`${cloud.url}/docs/redoc.standalone.js`);
    const code = await script.text();
    // Assess: the page loads only the document and the renderer, both from this base URL.
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html).toContain(`<redoc spec-url="${cloud.url}/v1/openapi.json">`);
    expect([...html.matchAll(/(?:src|href|spec-url)="([^"]+)"/g)].map((m) => m[1])).toEqual([
      `${cloud.url}/v1/openapi.json`,
      `${cloud.url}/docs/redoc.standalone.js`,
    ]);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(code.length).toBeGreaterThan(500_000);
    expect(code).toContain('Redoc');
  });

  it('takes built-in object property names as plain parameter and header names', async () => {
    // Prepare
    const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
    const query = names.map((name) => `${name}=1`).join('&');
    const headers = Object.fromEntries(names.filter((n) => n !== '__proto__').map((name) => [name, 'x']));
    // Act
    const health = await get(`/health?${query}`, { headers });
    const data = await get(`/v1/perpx/trades/BTC?${query}&constructor=2`, { headers: { ...headers, 'X-API-Key': KEYS.build } });
    // Assess
    expect(health.status).toBe(200);
    expect(data.status).toBe(200);
  });

  it('refuses a path whose percent-encoding does not decode with 400, before any key check', async () => {
    for (const path of ['/v1/perpx/trades/%ZZ', '/v1/perpx/trades/%E0%A4%A', '/v1/perpx/trades/%ED%A0%80', '/v1/no/such/%ZZ']) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.body, path).toMatchObject({ success: false, code: 400, error_code: 'invalid_parameter' });
    }
  });

  it('refuses times past what the archive can date with 400 naming the parameter', async () => {
    const res = await get('/v1/perpx/trades/BTC?end=9999999999999999', withKey(KEYS.build));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 400, param: 'end' });
  });

  it('answers 404 route_not_found for an unknown path with a valid key', async () => {
    const res = await get('/v1/no/such/route', withKey(KEYS.build));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 404, error_code: 'route_not_found' });
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('answers 401 with the error body for an unknown path without a key or with a wrong key', async () => {
    for (const init of [{}, withKey('wrong-key'), withKey('')]) {
      const res = await get('/v1/no/such/route', init);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, code: 401, error_code: 'unauthorized' });
      expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
      expect(res.headers.get('svc-version')).toBe('2026-10-01');
    }
  });

  it('answers 401 on a data route without a key or with a wrong key, before validating anything', async () => {
    for (const init of [{}, withKey('wrong-key')]) {
      const res = await get('/v1/perpx/trades/BTC?limit=abc', init);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 401, error_code: 'unauthorized' });
    }
  });

  it('answers a validation 400 with the spec error body naming the parameter', async () => {
    const res = await get('/v1/perpx/trades/BTC?limit=abc', withKey(KEYS.build));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 400, error_code: 'invalid_parameter', param: 'limit' });
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('answers 405 with Allow for a known path and another method', async () => {
    const res = await get('/health', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(res.body).toMatchObject({ code: 405, error_code: 'method_not_allowed' });
  });

  it('answers 405 with Allow before any key check on a route a greedy resource serves, and the route itself through its group', async () => {
    // Prepare: /v1/perpx/orderbook/{proxy+} serves every order book route of the core family.
    const path = '/v1/perpx/orderbook/BTC/l4';
    // Act
    const wrongMethod = await get(path, { method: 'POST' });
    const served = await get(`${path}?timestamp=abc`, withKey(KEYS.build));
    // Assess
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expect(served.body).toMatchObject({ code: 400, param: 'timestamp' });
  });

  it('reads the key header whatever case the client sends it in', async () => {
    // fetch lowercases header names; node:http sends them as written, as curl and urllib do.
    for (const name of ['X-API-Key', 'x-api-key', 'X-Api-Key', 'X-API-KEY']) {
      const status = await new Promise<number>((resolve, reject) => {
        request(`${cloud.url}/v1/webhooks/event-types`, { headers: { [name]: KEYS.free } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        })
          .on('error', reject)
          .end();
      });
      expect(status, name).toBe(200);
    }
  });

  it('accepts every seeded local key', async () => {
    for (const key of Object.values(KEYS)) {
      expect((await get('/v1/no/such/route', withKey(key))).status).toBe(404);
    }
  });
});

describe('restarting the local cloud', () => {
  it('keeps queued messages and DynamoDB data in the data directory', async () => {
    // Prepare: a second cloud on its own data directory, with a queued message and a minted key.
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { startLocalCloud } = await import('#local/cloud.ts');
    const { SendMessageCommand, ReceiveMessageCommand } = await import('@aws-sdk/client-sqs');
    const dataDir = mkdtempSync(join(tmpdir(), 'archive-restart-'));
    const options = {
      port: 0,
      dataDir,
      apiKeys: [{ key: 'restart-key-1', plan: 'pro' as const }],
      schedules: false,
      pollers: false,
      template: await sharedTemplate(),
    };
    const first = await startLocalCloud(options);
    await first.sqs.send(new SendMessageCommand({ QueueUrl: first.emulators.names.queueUrls.ingest, MessageBody: 'survives' }));
    await first.stop();
    // Act
    const second = await startLocalCloud(options);
    try {
      const received = await second.sqs.send(new ReceiveMessageCommand({ QueueUrl: second.emulators.names.queueUrls.ingest, MaxNumberOfMessages: 10 }));
      const res = await fetch(`${second.url}/v1/unknown`, { headers: { 'X-API-Key': 'restart-key-1' } });
      // Assess
      expect(received.Messages?.map((m) => m.Body)).toEqual(['survives']);
      expect(res.status).toBe(404);
    } finally {
      await second.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
