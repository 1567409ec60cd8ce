/**
 * The delivery engine in the local cloud, seen as a receiver and a client see it: real HTTPS
 * receivers in this process, LOCAL_TIME_SCALE=3600 (the 24-hour ladder takes about half a minute),
 * WEBHOOK_ALLOWED_TARGETS=127.0.0.1, and every state change read back through the API.
 * WEBHOOK_ATTEMPT_TIMEOUT_S is raised past the longest wait for a condition here, so an attempt a
 * receiver hangs ends only when the test answers it, never because a loaded machine ran slowly.
 * Every scenario has an account and a receiver of its own, so the scenarios run at once: the file
 * takes as long as its longest wait (the ladder's), not the sum of them.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { startTestCloud } from '../helpers/local-cloud.ts';
import { apiClient, eventually } from '../helpers/api.ts';
import { startReceiver, type Receiver, type ReceivedRequest } from '#local/receiver.ts';
import { localAccountId, type LocalKey } from '#local/accounts.ts';
import { clock, queueSender, webhookStores } from '#shared/deps.ts';
import { queueOccurrence, utcDay } from '#core/webhooks/deliveries.ts';

const TIME_SCALE = 3_600;
/** Longer than `eventually` waits (5 minutes): no hung attempt times out while a test is waiting. */
const ATTEMPT_TIMEOUT_S = 600;
/** The scenarios' accounts: a Build account has one endpoint, so each Build scenario has its own. */
const ACCOUNTS = {
  signed: { key: 'signed-build-key', plan: 'build' },
  recovers: { key: 'recovers-build-key', plan: 'build' },
  ladder: { key: 'ladder-build-key', plan: 'build' },
  failing: { key: 'failing-pro-key', plan: 'pro' },
  cap: { key: 'cap-pro-key', plan: 'pro' },
  isolation: { key: 'isolation-pro-key', plan: 'pro' },
} as const satisfies Record<string, LocalKey>;
type Scenario = keyof typeof ACCOUNTS;

let cloud: Awaited<ReturnType<typeof startTestCloud>>;
const receivers = {} as Record<Scenario, Receiver>;

beforeAll(async () => {
  // Function settings of the local cloud, read when it starts.
  process.env.LOCAL_TIME_SCALE = String(TIME_SCALE);
  process.env.WEBHOOK_ALLOWED_TARGETS = '127.0.0.1';
  process.env.WEBHOOK_ATTEMPT_TIMEOUT_S = String(ATTEMPT_TIMEOUT_S);
  for (const scenario of Object.keys(ACCOUNTS) as Scenario[]) receivers[scenario] = await startReceiver();
  cloud = await startTestCloud({ extraKeys: Object.values(ACCOUNTS) });
});
afterAll(async () => {
  await cloud?.stop();
  await Promise.all(Object.values(receivers).map((receiver) => receiver.close()));
  delete process.env.LOCAL_TIME_SCALE;
  delete process.env.WEBHOOK_ALLOWED_TARGETS;
  delete process.env.WEBHOOK_ATTEMPT_TIMEOUT_S;
});

const call = apiClient(() => cloud.url);
/**
 * For the isolation test's setup on a loaded machine: the authorizer can run past its deadline (503,
 * nothing done, so asking again is safe), and a 5xx `/test` may or may not have queued its delivery
 * (an extra test delivery is harmless). The test is about delivery, not about those deadlines.
 */
const callUntilAuthorized: typeof call = (...args) =>
  eventually(
    () => call(...args),
    (r) => r.status !== 503,
  );
const testUntilQueued = (key: string, endpointId: string) =>
  eventually(
    () => call(key, 'POST', `/v1/webhooks/endpoints/${endpointId}/test`),
    (r) => r.status < 500,
  );

/** The scenario's endpoint at its own receiver; answers its id and secret. */
async function createEndpoint(scenario: Scenario, path = '/hook'): Promise<{ id: string; secret: string }> {
  const created = await callUntilAuthorized(ACCOUNTS[scenario].key, 'POST', '/v1/webhooks/endpoints', { url: receivers[scenario].url(path) });
  expect(created.status).toBe(201);
  return created.body.data;
}

/** The receiver side, written from the specification alone: constant-time, tolerance 300 s, any v1. */
function verifiesWith(req: ReceivedRequest, secret: string): boolean {
  const parts = String(req.headers['svc-signature'])
    .split(',')
    .map((p) => p.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  if (!t || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${req.body}`).digest('hex'));
  return parts.some(([k, v]) => k === 'v1' && v !== undefined && v.length === expected.length && timingSafeEqual(Buffer.from(v), expected));
}

const eventRequests = (scenario: Scenario, eventId: string) => receivers[scenario].requests.filter((r) => r.headers['svc-event-id'] === eventId);
const deliveries = (scenario: Scenario, endpointId: string) =>
  call(ACCOUNTS[scenario].key, 'GET', `/v1/webhooks/endpoints/${endpointId}/deliveries?limit=200`).then((r) => r.body.data as any[]);
const deliveryOf = async (scenario: Scenario, endpointId: string, deliveryId: string) =>
  (await deliveries(scenario, endpointId)).find((d) => d.id === deliveryId);

describe.concurrent('delivery to a healthy endpoint (Build plan)', () => {
  it('receives a signed webhook.test at once, verified by an independent verifier, and the log says delivered', async () => {
    const { id: endpointId, secret } = await createEndpoint('signed');
    const queued = await call(ACCOUNTS.signed.key, 'POST', `/v1/webhooks/endpoints/${endpointId}/test`);

    const [req] = await eventually(
      async () => eventRequests('signed', queued.body.data.event_id),
      (r) => r.length === 1,
    );
    expect(req!.headers).toMatchObject({ 'svc-event-type': 'webhook.test', 'svc-event-id': queued.body.data.event_id });
    expect(verifiesWith(req!, secret)).toBe(true);
    expect(JSON.parse(req!.body)).toMatchObject({
      id: queued.body.data.event_id,
      type: 'webhook.test',
      schema_version: 1,
      data: { message: expect.any(String) },
    });
    const logged = await eventually(
      () => deliveryOf('signed', endpointId, queued.body.data.delivery_id),
      (d) => d?.state === 'delivered',
    );
    expect(logged).toMatchObject({
      id: queued.body.data.delivery_id,
      state: 'delivered',
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
    });
  });

  it('moves a delivery from failed to delivered when the receiver recovers, and redelivers with the same id', async () => {
    const { id: endpointId } = await createEndpoint('recovers');
    // The receiver refuses each event's first request only.
    receivers.recovers.respond = (req) => (eventRequests('recovers', String(req.headers['svc-event-id'])).length === 1 ? 500 : 200);
    const queued = await call(ACCOUNTS.recovers.key, 'POST', `/v1/webhooks/endpoints/${endpointId}/test`);
    const eventId = queued.body.data.event_id;

    const byId = () => deliveryOf('recovers', endpointId, queued.body.data.delivery_id);
    const delivered = await eventually(byId, (d) => d?.state === 'delivered');
    expect(delivered).toMatchObject({ attempts: 2, last_status_code: 200 });
    const again = await call(ACCOUNTS.recovers.key, 'POST', `/v1/webhooks/deliveries/${delivered.id}/redeliver`);
    expect(again.body.data).toMatchObject({ delivery_id: delivered.id, event_id: eventId, state: 'pending', attempts: 0 });
    await eventually(
      async () => eventRequests('recovers', eventId),
      (r) => r.length === 3,
    );
    expect(await eventually(byId, (d) => d?.state === 'delivered')).toMatchObject({ attempts: 1 });
  });

  it('climbs the whole ladder under the time scale and ends exhausted after 28 attempts', async () => {
    const { id: endpointId } = await createEndpoint('ladder');
    // One event the receiver always refuses; test events keep succeeding, as traffic on a busy endpoint would.
    let refused: string | undefined;
    receivers.ladder.respond = (req) => (req.headers['svc-event-id'] === refused ? 503 : 200);
    const queued = await call(ACCOUNTS.ladder.key, 'POST', `/v1/webhooks/endpoints/${endpointId}/test`);
    refused = queued.body.data.event_id;
    const sent: Promise<unknown>[] = [];
    const traffic = setInterval(() => sent.push(call(ACCOUNTS.ladder.key, 'POST', `/v1/webhooks/endpoints/${endpointId}/test`)), 1_500);
    try {
      const exhausted = await eventually(
        () => deliveryOf('ladder', endpointId, queued.body.data.delivery_id),
        (d) => d?.state === 'exhausted',
      );
      expect(exhausted).toMatchObject({ attempts: 28, last_status_code: 503, last_error: 'receiver returned 503', next_attempt_at: null });
    } finally {
      clearInterval(traffic);
      // Answered before the test ends: the ladder ends last, and the file then stops the cloud.
      await Promise.all(sent);
    }
    const attempts = eventRequests('ladder', refused!);
    expect(attempts).toHaveLength(28);
    expect(new Set(attempts.map((r) => r.body)).size).toBe(1);
    // No attempt comes before its (scaled) rung; SQS delays are whole seconds, so each waits at least ~1 s.
    const gaps = attempts.slice(1).map((r, i) => r.receivedAt - attempts[i]!.receivedAt);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(900);
    expect((await call(ACCOUNTS.ladder.key, 'GET', `/v1/webhooks/endpoints/${endpointId}`)).body.data.status).toBe('active');
  });
});

describe.concurrent('a failing endpoint, the daily cap and a hung endpoint (Pro plan)', () => {
  it('is auto-disabled after 10 consecutive failures sustained 6 (scaled) hours, stops, refuses manual sends, and comes back with enable', async () => {
    const { key } = ACCOUNTS.failing;
    const { id: endpointId } = await createEndpoint('failing');
    receivers.failing.respond = () => 500;
    const queued = await call(key, 'POST', `/v1/webhooks/endpoints/${endpointId}/test`);

    const disabled = await eventually(
      () => call(key, 'GET', `/v1/webhooks/endpoints/${endpointId}`).then((r) => r.body.data),
      (e) => e.status === 'auto_disabled',
    );
    expect(disabled.consecutive_failures).toBeGreaterThanOrEqual(10);
    const stopped = await eventually(
      () => deliveryOf('failing', endpointId, queued.body.data.delivery_id),
      (d) => d?.next_attempt_at === null,
    );
    expect(stopped).toMatchObject({ state: 'failed', last_error: 'endpoint auto-disabled; not attempted' });
    const sent = eventRequests('failing', queued.body.data.event_id).length;
    expect((await call(key, 'POST', `/v1/webhooks/endpoints/${endpointId}/test`)).status).toBe(409);
    expect((await call(key, 'POST', `/v1/webhooks/deliveries/${queued.body.data.delivery_id}/redeliver`)).status).toBe(409);

    receivers.failing.respond = () => 200;
    expect((await call(key, 'POST', `/v1/webhooks/endpoints/${endpointId}/enable`)).body.data).toMatchObject({ status: 'active', consecutive_failures: 0 });
    const revived = await call(key, 'POST', `/v1/webhooks/deliveries/${queued.body.data.delivery_id}/redeliver`);
    expect(revived.status).toBe(202);
    await eventually(
      () => deliveryOf('failing', endpointId, queued.body.data.delivery_id),
      (d) => d?.state === 'delivered',
    );
    expect(eventRequests('failing', queued.body.data.event_id)).toHaveLength(sent + 1);
  });

  it('pauses the rule that crosses the daily cap, counts what it misses, refuses resume while spent, and resumes after the reset without replaying', async () => {
    const { key } = ACCOUNTS.cap;
    const account = localAccountId(key);
    const endpoint = await createEndpoint('cap');
    const rule = (await call(key, 'POST', '/v1/webhooks/subscriptions', { endpoint_id: endpoint.id, event_type: 'market.liquidation' })).body.data;
    const day = { TableName: process.env.TABLE_WEBHOOKS!, Key: { pk: `ACCT#${account}`, sk: `DAY#${utcDay(Date.now())}` } };
    await cloud.dynamo.send(new PutCommand({ TableName: day.TableName, Item: { ...day.Key, deliveries: 50_000 } }));
    // Stand-in for a detector: the queueing call every detector makes for a matched occurrence.
    const match = async () => {
      const subscription = (await webhookStores().rules.get(account, rule.id))!;
      const target = (await webhookStores().endpoints.get(account, endpoint.id))!;
      const occurrence = {
        key: randomUUID(),
        type: 'market.liquidation',
        occurredAt: Date.now(),
        data: { symbol: 'BTC', api_url: '/v1/perpx/liquidations/BTC' },
      };
      return queueOccurrence({ store: webhookStores(), queues: queueSender(), clock }, { plan: 'pro', subscription, endpoint: target }, occurrence);
    };

    expect([await match(), await match(), await match()]).toEqual(['capped', 'paused', 'paused']);
    expect((await call(key, 'GET', `/v1/webhooks/subscriptions/${rule.id}`)).body.data).toMatchObject({
      status: 'auto_paused',
      enabled: true,
      pause_reason: 'deliveries_per_day_cap',
      suppressed_count: 3,
    });
    expect((await call(key, 'POST', `/v1/webhooks/subscriptions/${rule.id}/resume`)).status).toBe(409);
    expect((await call(key, 'POST', '/v1/webhooks/subscriptions/resume')).status).toBe(409);

    await cloud.dynamo.send(new DeleteCommand(day)); // the budget resets at 00:00 UTC
    const resumed = await call(key, 'POST', '/v1/webhooks/subscriptions/resume');
    expect(resumed.body).toMatchObject({ resumed_count: 1, gap: { suppressed_count: 3, reasons: ['deliveries_per_day_cap'] } });
    expect(resumed.body.data[0]).toMatchObject({ id: rule.id, status: 'active', enabled: true, last_suppressed_count: 3 });
    expect((await call(key, 'GET', '/v1/webhooks/limits')).body.data.deliveries_per_day.used).toBe(0);
    expect(await match()).toBe('queued');
  });

  it("attempts a healthy endpoint's deliveries while a hung endpoint holds dozens of attempts open", async () => {
    // Prepare: two endpoints of one account; the receiver never answers the first.
    const { key } = ACCOUNTS.isolation;
    const receiver = receivers.isolation;
    receiver.respond = (req) => (req.path === '/hung' ? 'hang' : 200);
    const { id: hung } = await createEndpoint('isolation', '/hung');
    const { id: healthy } = await createEndpoint('isolation', '/healthy');
    // Act: the hung endpoint's deliveries are queued first.
    for (let i = 0; i < 40; i += 1) await testUntilQueued(key, hung);
    const queued: string[] = [];
    for (let i = 0; i < 8; i += 1) queued.push((await testUntilQueued(key, healthy)).body.data.event_id);
    // Assess: every healthy delivery arrives while the hung endpoint's attempts are still open and
    // unanswered (with the raised budget, the receiver answering is the only way one ends), so none
    // of them waited for a hung attempt to end.
    await eventually(
      () => queued.filter((id) => eventRequests('isolation', id).length === 0),
      (missing) => missing.length === 0,
    );
    // Read together (no await between): a hung job the slow lane attempts meanwhile would count in both.
    const open = receiver.hanging().length;
    const sentToHung = receiver.requests.filter((r) => r.path === '/hung').length;
    const hungLog = await deliveries('isolation', hung);
    expect(open).toBeGreaterThan(0);
    expect(open).toBe(sentToHung);
    expect(hungLog.filter((d) => d.attempts > 0)).toEqual([]);
    // Release them, so the hung attempts end now and not at the raised budget.
    receiver.respond = () => 200;
    receiver.answerHanging(503);
    // Settled before the file ends: every hung delivery retried and delivered.
    await eventually(
      () => deliveries('isolation', hung),
      (log) => log.every((d) => d.state === 'delivered'),
    );
  });
});

describe.concurrent('poison messages', () => {
  it('parks a job that can never be processed in the dead-letter queue with the reason', async () => {
    await cloud.sqs.send(new SendMessageCommand({ QueueUrl: cloud.emulators.names.queueUrls.delivery, MessageBody: '{"type":"deliver.v0"}' }));

    const parked = await eventually(
      () =>
        cloud.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: cloud.emulators.names.dlqUrls.delivery, MessageAttributeNames: ['All'], MaxNumberOfMessages: 10 }),
        ),
      (r) => (r.Messages?.length ?? 0) > 0,
    );
    expect(parked.Messages![0]!.Body).toBe('{"type":"deliver.v0"}');
    expect(parked.Messages![0]!.MessageAttributes?.failure_reason?.StringValue).toMatch(/^invalid message: type/);
  });
});
