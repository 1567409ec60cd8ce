import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCloud, KEYS } from '../helpers/local-cloud.ts';
import { apiClient } from '../helpers/api.ts';
import { localAccountId } from '#local/accounts.ts';
import { webhookStores } from '#shared/deps.ts';

let cloud: Awaited<ReturnType<typeof startTestCloud>>;
// The management API only: no delivery engine, so queued jobs stay on the queue to be inspected.
beforeAll(async () => {
  cloud = await startTestCloud({ pollers: false });
});
afterAll(async () => {
  await cloud?.stop();
});

const call = apiClient(() => cloud.url);

// An IP literal needs no DNS (this machine has no network); 93.184.216.34 is a public address.
const PUBLIC_URL = 'https://93.184.216.34/hooks/market';

describe('the event-type catalogue', () => {
  it('serves 28 declarations, 24 live, with every member', async () => {
    const { status, body } = await call(KEYS.free, 'GET', '/v1/webhooks/event-types');
    expect(status).toBe(200);
    expect(body.data).toHaveLength(28);
    expect(body.data.filter((d: any) => d.live)).toHaveLength(24);
    expect(body.data.find((d: any) => d.type === 'market.breadth_cross')).toMatchObject({
      scope: 'public',
      venues: ['perpx', 'hip3'],
      params: { threshold: { default: 30, min: 1, max: 99 }, hysteresis_pct: { default: 5, min: 0, max: 50 } },
    });
  });
});

describe('limits', () => {
  it('reports the plan, delivery inclusion and used versus limit', async () => {
    expect((await call(KEYS.build, 'GET', '/v1/webhooks/limits')).body.data).toMatchObject({
      plan: 'build',
      included: true,
      endpoints: { used: 0, limit: 1, remaining: 1 },
      subscriptions: { limit: 8 },
      watched_addresses: { limit: 2 },
      deliveries_per_day: { limit: 5000, unlimited: false },
    });
    expect((await call(KEYS.free, 'GET', '/v1/webhooks/limits')).body.data).toMatchObject({
      plan: 'free',
      included: false,
      endpoints: { limit: 0 },
      notice: expect.any(String),
    });
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
      code: 400,
      error_code: 'plan_limit',
      limit: 1,
      error: expect.stringContaining('allows 1 endpoint;'),
    });
  });

  it('refuses endpoints on the free plan, naming the plan that includes delivery', async () => {
    expect((await call(KEYS.free, 'POST', '/v1/webhooks/endpoints', { url: PUBLIC_URL })).body).toMatchObject({
      code: 400,
      error_code: 'plan_no_webhooks',
      error: expect.stringContaining('Build'),
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

  it("answers 404 for another account's endpoint, never its data", async () => {
    for (const [method, path] of [
      ['GET', ''],
      ['POST', '/rotate'],
      ['POST', '/enable'],
      ['DELETE', ''],
    ] as const) {
      expect((await call(KEYS.pro, method, `/v1/webhooks/endpoints/${endpointId}${path}`)).body, `${method} ${path}`).toMatchObject({
        code: 404,
        error_code: 'not_found',
      });
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
      'http://93.184.216.34/hook',
      'https://127.0.0.1/hook',
      'https://[::1]/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://user:pass@93.184.216.34/hook',
      'https://2130706433/hook',
      'https://0x7f000001/hook',
      'https://localhost/hook',
      'https://10.0.0.8/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'not a url',
    ];
    for (const url of urls) {
      expect((await call(KEYS.build, 'POST', '/v1/webhooks/endpoints', { url })).body, url).toMatchObject({ code: 400, param: 'url' });
    }
    // The local cloud says which setting allows a receiver on this machine, only where it would.
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/endpoints', { url: 'https://127.0.0.1/hook' })).body.error).toContain('set WEBHOOK_ALLOWED_TARGETS');
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/endpoints', { url: 'http://93.184.216.34/hook' })).body.error).not.toContain(
      'WEBHOOK_ALLOWED_TARGETS',
    );
  });

  it('refuses a body without url or with unknown members', async () => {
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/endpoints', {})).body).toMatchObject({ code: 400, param: 'url' });
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/endpoints', { url: PUBLIC_URL, secret: 'mine' })).body).toMatchObject({
      code: 400,
      error_code: 'invalid_parameter',
    });
  });
});

describe('watched addresses', () => {
  const address = (n: number) => `0x${String(n).repeat(40).slice(0, 40)}`;

  it('stores an address lowercase, ignoring whitespace and case, truncating the label to 64', async () => {
    const { status, body } = await call(KEYS.build, 'POST', '/v1/webhooks/addresses', { address: `  0xAbCd${'e'.repeat(36)} `, label: 'x'.repeat(100) });
    expect(status).toBe(201);
    expect(body.data).toMatchObject({ address: `0xabcd${'e'.repeat(36)}`, label: 'x'.repeat(64) });
    expect(body.limit).toBe(2);
  });

  it('re-adding is idempotent and does not spend the cap', async () => {
    await call(KEYS.build, 'POST', '/v1/webhooks/addresses', { address: `0xABCD${'E'.repeat(36)}` });
    expect((await call(KEYS.build, 'GET', '/v1/webhooks/limits')).body.data.watched_addresses).toMatchObject({ used: 1, limit: 2 });
  });

  it('refuses malformed and bridge system addresses, and a third address on the build plan naming the cap', async () => {
    for (const bad of ['0x123', 'abcd'.repeat(10), `0x${'g'.repeat(40)}`, '0x2Df1c51E09aECF9cacB7bc98cB1742757f163dF7']) {
      expect((await call(KEYS.build, 'POST', '/v1/webhooks/addresses', { address: bad })).body, bad).toMatchObject({ code: 400, param: 'address' });
    }
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/addresses', { address: address(7) })).status).toBe(201);
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/addresses', { address: address(8) })).body).toMatchObject({
      code: 400,
      error_code: 'plan_limit',
      limit: 2,
    });
  });

  it('lists with the plan cap beside the data, and deletes', async () => {
    const list = await call(KEYS.build, 'GET', '/v1/webhooks/addresses');
    expect(list.body).toMatchObject({ limit: 2, data: [{ address: `0xabcd${'e'.repeat(36)}` }, { address: address(7) }] });
    expect((await call(KEYS.build, 'DELETE', `/v1/webhooks/addresses/${address(7)}`)).status).toBe(200);
    expect((await call(KEYS.build, 'DELETE', `/v1/webhooks/addresses/${address(7)}`)).status).toBe(404);
  });

  it('takes twenty parallel adds of one address with room for one as one row, refusing none and spending one slot', async () => {
    // Act
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(KEYS.build, 'POST', '/v1/webhooks/addresses', { address: address(9) })));
    // Assess
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    expect((await call(KEYS.build, 'GET', '/v1/webhooks/addresses')).body.data.filter((a: { address: string }) => a.address === address(9))).toHaveLength(1);
    expect((await call(KEYS.build, 'GET', '/v1/webhooks/limits')).body.data.watched_addresses).toMatchObject({ used: 2, limit: 2 });
    expect((await call(KEYS.build, 'DELETE', `/v1/webhooks/addresses/${address(9)}`)).status).toBe(200);
  });
});

describe('subscriptions', () => {
  let endpointId: string;
  beforeAll(async () => {
    endpointId = (await call(KEYS.build, 'POST', '/v1/webhooks/endpoints', { url: PUBLIC_URL })).body.data.id;
  });

  it('echoes the stored configuration with defaults filled in', async () => {
    const { status, body } = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', {
      endpoint_id: endpointId,
      event_type: 'market.liquidation',
      filters: { venue: 'PERPX', min_notional_usd: 50_000, conditions: [{ metric: 'side', op: '==', value: 'long' }] },
    });
    expect(status).toBe(201);
    expect(body.data).toMatchObject({
      endpoint_id: endpointId,
      event_type: 'market.liquidation',
      enabled: true,
      status: 'active',
      filters: {
        venue: ['perpx'],
        min_notional_usd: 50_000,
        params: { max_age_s: 3600 },
        conditions: [
          { metric: 'side', op: 'equal', value: 'long' },
          { metric: 'notional_usd', op: 'greater_than_or_equal', value: 50_000 },
        ],
      },
    });
  });

  it('treats absent filters, {} and the config alias alike', async () => {
    const a = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', { endpoint_id: endpointId, event_type: 'market.oi_delta' });
    const b = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', { endpoint_id: endpointId, event_type: 'market.oi_delta', config: {} });
    expect(a.body.data.filters).toEqual({ conditions: [], params: { window_s: 900, threshold_pct: 10 } });
    expect(b.body.data.filters).toEqual(a.body.data.filters);
    expect(b.body.data.trigger_id).toBe(a.body.data.trigger_id);
  });

  it('gives rules with different params different triggers', async () => {
    const other = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', {
      endpoint_id: endpointId,
      event_type: 'market.oi_delta',
      filters: { threshold_pct: 25 },
    });
    const list = (await call(KEYS.build, 'GET', '/v1/webhooks/subscriptions')).body.data.filter((s: any) => s.event_type === 'market.oi_delta');
    expect(new Set(list.map((s: any) => s.trigger_id)).size).toBe(2);
    expect(other.body.data.filters.params.threshold_pct).toBe(25);
  });

  it("refuses types not yet live, unknown types, misplaced conditions and another account's endpoint", async () => {
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', { endpoint_id: endpointId, event_type: 'oracle.stall' })).body).toMatchObject({
      code: 400,
      param: 'event_type',
      error: expect.stringMatching(/not yet available/),
    });
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', { endpoint_id: endpointId, event_type: 'market.moon' })).body).toMatchObject({
      code: 400,
      param: 'event_type',
    });
    expect(
      (await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', { endpoint_id: endpointId, event_type: 'market.liquidation', conditions: [] })).body,
    ).toMatchObject({ code: 400, param: 'conditions' });
    expect((await call(KEYS.pro, 'POST', '/v1/webhooks/subscriptions', { endpoint_id: endpointId, event_type: 'market.liquidation' })).body).toMatchObject({
      code: 400,
      param: 'endpoint_id',
    });
    expect((await call(KEYS.free, 'POST', '/v1/webhooks/subscriptions', { endpoint_id: endpointId, event_type: 'market.liquidation' })).body).toMatchObject({
      error_code: 'plan_no_webhooks',
    });
  });

  it('needs watched addresses for account events', async () => {
    const watched = `0xabcd${'e'.repeat(36)}`;
    expect(
      (
        await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', {
          endpoint_id: endpointId,
          event_type: 'account.fill',
          filters: { addresses: [`0x${'9'.repeat(40)}`] },
        })
      ).body,
    ).toMatchObject({ code: 400, param: 'filters.addresses' });
    expect(
      (await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', { endpoint_id: endpointId, event_type: 'account.fill', filters: { addresses: [watched] } }))
        .body.data.filters.addresses,
    ).toEqual([watched]);
  });

  it('PATCH replaces the configuration wholesale and switches enabled without touching the pause', async () => {
    const created = (
      await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', {
        endpoint_id: endpointId,
        event_type: 'market.liquidation_burst',
        filters: { window_s: 60, threshold_mode: 'pct_oi' },
      })
    ).body.data;
    const replaced = (await call(KEYS.build, 'PATCH', `/v1/webhooks/subscriptions/${created.id}`, { config: { symbols: ['BTC'] } })).body.data;
    expect(replaced.filters).toEqual({
      symbols: ['BTC'],
      conditions: [],
      params: { window_s: 300, threshold_mode: 'usd', threshold_usd: 1_000_000, threshold_pct: 1 },
    });
    const disabled = (await call(KEYS.build, 'PATCH', `/v1/webhooks/subscriptions/${created.id}`, { enabled: false })).body.data;
    expect(disabled).toMatchObject({ enabled: false, status: 'active', filters: replaced.filters });
  });

  it('resume clears an engine pause and its counters, replays nothing and leaves enabled alone', async () => {
    // The delivery engine pauses a rule at the daily cap; here the test writes that state itself.
    const [target] = (await call(KEYS.build, 'GET', '/v1/webhooks/subscriptions')).body.data;
    const record = (await webhookStores().rules.get(localAccountId(KEYS.build), target.id))!;
    await webhookStores().rules.put({ ...record, enabled: false });
    for (let i = 0; i < 12; i += 1) {
      await webhookStores().rules.suppress(record.accountId, record.id, {
        at: '2026-11-21T10:00:00.000Z',
        missedAt: `2026-11-21T10:${String(i).padStart(2, '0')}:01.000Z`,
        reason: 'deliveries_per_day_cap',
      });
    }
    expect((await call(KEYS.build, 'GET', `/v1/webhooks/subscriptions/${target.id}`)).body.data).toMatchObject({
      status: 'auto_paused',
      suppressed_count: 12,
      pause_reason: 'deliveries_per_day_cap',
      suppressed_first_at: '2026-11-21T10:00:01.000Z',
      suppressed_last_at: '2026-11-21T10:11:01.000Z',
    });
    expect((await call(KEYS.build, 'GET', '/v1/webhooks/limits')).body.data.paused_subscriptions).toEqual({
      count: 1,
      reasons: ['deliveries_per_day_cap'],
      earliest_paused_at: '2026-11-21T10:00:00.000Z',
      message: expect.stringMatching(/deliveries per day/),
    });
    const resumed = await call(KEYS.build, 'POST', `/v1/webhooks/subscriptions/${target.id}/resume`);
    expect(resumed.body.data).toMatchObject({
      status: 'active',
      enabled: false,
      suppressed_count: null,
      last_pause_reason: 'deliveries_per_day_cap',
      last_suppressed_count: 12,
    });
    expect(resumed.body.gap).toMatchObject({ paused_at: '2026-11-21T10:00:00.000Z', suppressed_count: 12 });
    expect((await call(KEYS.build, 'GET', '/v1/webhooks/limits')).body.data.paused_subscriptions).toEqual({ count: 0, reasons: [] });
    expect((await call(KEYS.build, 'POST', `/v1/webhooks/subscriptions/${target.id}/resume`)).body).toMatchObject({
      gap: null,
      note: expect.stringMatching(/not paused/),
    });
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions/resume')).body).toMatchObject({ data: [], resumed_count: 0, gap: null });
  });

  it("answers 404 for another account's subscription and deletes with the allowance given back", async () => {
    const [target] = (await call(KEYS.build, 'GET', '/v1/webhooks/subscriptions')).body.data;
    expect((await call(KEYS.pro, 'GET', `/v1/webhooks/subscriptions/${target.id}`)).body).toMatchObject({ code: 404 });
    const before = (await call(KEYS.build, 'GET', '/v1/webhooks/limits')).body.data.subscriptions.used;
    expect((await call(KEYS.build, 'DELETE', `/v1/webhooks/subscriptions/${target.id}`)).status).toBe(200);
    expect((await call(KEYS.build, 'GET', '/v1/webhooks/limits')).body.data.subscriptions.used).toBe(before - 1);
  });

  it("deletes an endpoint's subscriptions with it", async () => {
    expect((await call(KEYS.build, 'DELETE', `/v1/webhooks/endpoints/${endpointId}`)).status).toBe(200);
    expect((await call(KEYS.build, 'GET', '/v1/webhooks/subscriptions')).body.data).toEqual([]);
    expect((await call(KEYS.build, 'GET', '/v1/webhooks/limits')).body.data.subscriptions.used).toBe(0);
  });
});

describe('test deliveries, the delivery log and redelivery', () => {
  let endpointId: string;
  beforeAll(async () => {
    endpointId = (await call(KEYS.build, 'POST', '/v1/webhooks/endpoints', { url: PUBLIC_URL })).body.data.id;
  });

  it('queues a signed webhook.test at once and counts it against today', async () => {
    const { ReceiveMessageCommand } = await import('@aws-sdk/client-sqs');
    const { status, body } = await call(KEYS.build, 'POST', `/v1/webhooks/endpoints/${endpointId}/test`);
    expect(status).toBe(202);
    const queued = await cloud.sqs.send(new ReceiveMessageCommand({ QueueUrl: cloud.emulators.names.queueUrls.delivery, MaxNumberOfMessages: 10 }));
    expect(queued.Messages?.map((m) => JSON.parse(m.Body!))).toContainEqual({
      type: 'deliver.v1',
      account_id: expect.any(String),
      delivery_id: body.data.delivery_id,
      run: 0,
      attempt: 0,
      endpoint_id: endpointId,
    });
    expect((await call(KEYS.build, 'GET', '/v1/webhooks/limits')).body.data.deliveries_per_day).toMatchObject({ used: 1, limit: 5000, remaining: 4999 });
  });

  it('lists the log newest first with the full payload, and clamps limit', async () => {
    await call(KEYS.build, 'POST', `/v1/webhooks/endpoints/${endpointId}/test`);
    const log = (await call(KEYS.build, 'GET', `/v1/webhooks/endpoints/${endpointId}/deliveries`)).body.data;
    expect(log).toHaveLength(2);
    expect(Date.parse(log[0].created_at)).toBeGreaterThanOrEqual(Date.parse(log[1].created_at));
    expect(log[0]).toMatchObject({
      event_type: 'webhook.test',
      state: 'pending',
      attempts: 0,
      payload: { type: 'webhook.test', id: log[0].event_id, data: { message: expect.any(String) } },
    });
    expect((await call(KEYS.build, 'GET', `/v1/webhooks/endpoints/${endpointId}/deliveries?limit=1`)).body.data).toHaveLength(1);
    expect((await call(KEYS.build, 'GET', `/v1/webhooks/endpoints/${endpointId}/deliveries?limit=5000`)).status).toBe(200);
  });

  it('redelivers with the same event id, and refuses with 409 when the endpoint is disabled', async () => {
    const [latest] = (await call(KEYS.build, 'GET', `/v1/webhooks/endpoints/${endpointId}/deliveries`)).body.data;
    const again = await call(KEYS.build, 'POST', `/v1/webhooks/deliveries/${latest.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body.data).toMatchObject({ delivery_id: latest.id, event_id: latest.event_id, state: 'pending', attempts: 0 });
    const record = (await webhookStores().endpoints.get(localAccountId(KEYS.build), endpointId))!;
    await webhookStores().endpoints.put({ ...record, status: 'auto_disabled' });
    expect((await call(KEYS.build, 'POST', `/v1/webhooks/deliveries/${latest.id}/redeliver`)).body).toMatchObject({ code: 409, error_code: 'conflict' });
    expect((await call(KEYS.build, 'POST', `/v1/webhooks/endpoints/${endpointId}/test`)).body).toMatchObject({ code: 409 });
    expect((await call(KEYS.pro, 'POST', `/v1/webhooks/deliveries/${latest.id}/redeliver`)).body).toMatchObject({ code: 404 });
    expect((await call(KEYS.pro, 'GET', `/v1/webhooks/endpoints/${endpointId}/deliveries`)).body).toMatchObject({ code: 404 });
  });
});
