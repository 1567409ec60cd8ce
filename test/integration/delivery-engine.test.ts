/**
 * The delivery engine against dynalite, local-aws-sqs and real HTTPS receivers, with a clock the
 * test moves: signing, the ladder, exhaustion, auto-disable, rotation, crash recovery, duplicates,
 * and queue-time counting with daily-cap pauses.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { startReceiver, type Receiver, type ReceivedRequest } from '#local/receiver.ts';
import { dynamoDocumentClient, queueSender, timerStore, webhookStores } from '#shared/deps.ts';
import { config, requireSetting } from '#shared/config.ts';
import { dynamoDeliveryStore } from '#adapters/dynamodb-deliveries.ts';
import { answersLost } from '../helpers/answers-lost.ts';
import { TABLES } from '#functions/resources.ts';
import { createHttpsSender } from '#adapters/https-sender.ts';
import { attemptDelivery, LEASE_MS, SLOW_ANSWER_MS, type DeliveryLane, type EngineDeps } from '#core/webhooks/engine.ts';
import type { QueueName } from '#functions/resources.ts';
import { deliveryJob, queueOccurrence, utcDay, type DeliveryDeps } from '#core/webhooks/deliveries.ts';
import { redeliver } from '#core/webhooks/manual-deliveries.ts';
import { OVERDUE_GRACE_MS, sweepOverdueDeliveries } from '#core/webhooks/overdue.ts';
import { createEndpoint, enableEndpoint, rotateSecret } from '#core/webhooks/endpoints.ts';
import type { Caller } from '#core/accounts.ts';
import { createSubscription, resumeSubscription } from '#core/webhooks/subscriptions.ts';
import { minuteOf } from '#core/timers.ts';
import { deliveryIdOf, eventIdOf, type Occurrence } from '#core/webhooks/envelope.ts';
import type { DeliveryRecord, WebhookStores } from '#ports/webhooks.ts';
import type { DeliveryJobMessage } from '#schemas/messages.ts';

const HOUR = 3_600_000;
let env: ScratchEmulators;
let receiver: Receiver;
let now: number;
const clock = { now: () => now };

beforeAll(async () => {
  env = await startScratchEmulators();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await env?.stop();
});
beforeEach(() => {
  now = Date.parse('2026-11-21T12:00:00.000Z');
  receiver.requests.length = 0;
  receiver.respond = () => 200;
});

function engine(overrides: Partial<EngineDeps> = {}): EngineDeps {
  return {
    store: webhookStores(),
    queues: queueSender(),
    timers: timerStore(),
    clock,
    timeScale: 1,
    lane: 'delivery',
    send: createHttpsSender({ resolve: async () => ['127.0.0.1'], allowHosts: ['127.0.0.1'], timeoutMs: 2_000 }),
    ...overrides,
  };
}
const queueDeps = (): DeliveryDeps => ({ store: webhookStores(), queues: queueSender(), clock });

/** A fresh account on the Build plan with one endpoint (at the receiver) and one liquidation rule. */
async function setUp(params: Record<string, unknown> = {}) {
  const caller: Caller = { id: `acct_${randomUUID().slice(0, 8)}`, plan: 'build' };
  const created = await createEndpoint({ store: webhookStores(), clock, resolve: async () => ['127.0.0.1'], allowHosts: ['127.0.0.1'] }, caller, {
    url: receiver.url(`/${caller.id}`),
  });
  const rule = await createSubscription({ store: webhookStores(), clock }, caller, {
    endpoint_id: created.id,
    event_type: 'market.liquidation',
    filters: params,
  });
  return { caller, secret: created.secret, endpointId: created.id, subscriptionId: rule.id };
}

async function ruleOf(caller: Caller, subscriptionId: string) {
  const subscription = (await webhookStores().rules.get(caller.id, subscriptionId))!;
  const endpoint = (await webhookStores().endpoints.get(caller.id, subscription.endpointId))!;
  return { plan: caller.plan, subscription, endpoint };
}

function occurrence(key: string = randomUUID(), occurredAt: number | null = now): Occurrence {
  return { key, type: 'market.liquidation', occurredAt, data: { venue: 'perpx', symbol: 'BTC', notional_usd: 250_000, api_url: '/v1/perpx/liquidations/BTC' } };
}

async function queueOne(ctx: Awaited<ReturnType<typeof setUp>>, occ = occurrence()): Promise<DeliveryRecord> {
  const rule = await ruleOf(ctx.caller, ctx.subscriptionId);
  expect(await queueOccurrence(queueDeps(), rule, occ)).toBe('queued');
  return (await webhookStores().deliveries.get(ctx.caller.id, deliveryIdOf(eventIdOf(occ.key, rule.subscription.triggerId), ctx.endpointId)))!;
}

const jobOf = (d: Pick<DeliveryRecord, 'accountId' | 'id' | 'run' | 'attempts'>): DeliveryJobMessage => ({
  type: 'deliver.v1',
  account_id: d.accountId,
  delivery_id: d.id,
  run: d.run,
  attempt: d.attempts,
});

const reload = async (d: DeliveryRecord) => (await webhookStores().deliveries.get(d.accountId, d.id))!;

/** A receiver's verifier written from the specification alone (not the service's own module). */
function independentlyVerify(req: ReceivedRequest, secret: string, nowS: number): boolean {
  const parts = String(req.headers['svc-signature'])
    .split(',')
    .map((p) => p.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  if (!t || Math.abs(nowS - Number(t)) > 300) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${req.body}`).digest('hex'));
  return parts.filter(([k]) => k === 'v1').some(([, v]) => v !== undefined && v.length === expected.length && timingSafeEqual(Buffer.from(v), expected));
}

describe('sending', () => {
  it('delivers the signed envelope with event id and type headers, verifiable by an independent verifier', async () => {
    const ctx = await setUp();
    const queued = await queueOne(ctx);

    const result = await attemptDelivery(engine(), jobOf(queued));

    expect(result.outcome).toBe('delivered');
    const [req] = receiver.requests;
    expect(req!.headers).toMatchObject({ 'svc-event-id': queued.eventId, 'svc-event-type': 'market.liquidation', 'content-type': 'application/json' });
    expect(independentlyVerify(req!, ctx.secret, Math.floor(now / 1000))).toBe(true);
    expect(JSON.parse(req!.body)).toEqual({
      id: queued.eventId,
      type: 'market.liquidation',
      schema_version: 1,
      observed_at: new Date(now).toISOString(),
      late_ms: 0,
      late: false,
      data: { venue: 'perpx', symbol: 'BTC', notional_usd: 250_000, api_url: '/v1/perpx/liquidations/BTC' },
    });
    expect(await reload(queued)).toMatchObject({
      state: 'delivered',
      attempts: 1,
      lastStatusCode: 200,
      lastError: null,
      nextAttemptAt: null,
      deliveredAt: new Date(now).toISOString(),
    });
  });

  it('reads the endpoint a queued job names alongside the delivery, not after it', async () => {
    const ctx = await setUp();
    const queued = await queueOne(ctx);
    const stores = webhookStores();
    // The delivery's read answers only once the endpoint's has begun: a read after it never would.
    let endpointRead!: () => void;
    const endpointReadBegun = new Promise<void>((resolve) => {
      endpointRead = resolve;
    });
    const store = {
      deliveries: {
        ...stores.deliveries,
        get: async (accountId: string, id: string) => {
          await endpointReadBegun;
          return stores.deliveries.get(accountId, id);
        },
      },
      endpoints: {
        ...stores.endpoints,
        get: (accountId: string, id: string) => {
          endpointRead();
          return stores.endpoints.get(accountId, id);
        },
      },
    };

    const result = await attemptDelivery(engine({ store }), JSON.parse(deliveryJob(queued)) as DeliveryJobMessage);

    expect(result.outcome).toBe('delivered');
    expect(receiver.requests.map((r) => r.headers['svc-event-id'])).toEqual([queued.eventId]);
  });

  it('retries a 500 after 5 s with the same body and event id and a fresh timestamp, then records the success', async () => {
    const ctx = await setUp();
    const queued = await queueOne(ctx);
    receiver.respond = () => (receiver.requests.length === 1 ? 500 : 200);

    const first = await attemptDelivery(engine(), jobOf(queued));
    const failed = await reload(queued);
    now += 5_000;
    const second = await attemptDelivery(engine(), jobOf(failed));

    expect(first.outcome).toBe('retry_scheduled');
    expect(failed).toMatchObject({
      state: 'failed',
      attempts: 1,
      lastStatusCode: 500,
      lastError: 'receiver returned 500',
      nextAttemptAt: new Date(now).toISOString(),
    });
    expect((await webhookStores().endpoints.get(ctx.caller.id, ctx.endpointId))!.consecutiveFailures).toBe(0);
    expect(second.outcome).toBe('delivered');
    const [a, b] = receiver.requests;
    expect(b!.body).toBe(a!.body);
    expect(b!.headers['svc-event-id']).toBe(a!.headers['svc-event-id']);
    expect(b!.headers['svc-signature']).not.toBe(a!.headers['svc-signature']);
    expect(String(b!.headers['svc-signature'])).toContain(`t=${Math.floor(now / 1000)},`);
  });

  it('records a 3xx as a failure without following it', async () => {
    const ctx = await setUp();
    const queued = await queueOne(ctx);
    receiver.respond = (req) => (req.path.endsWith('/moved') ? 200 : 308);

    await attemptDelivery(engine(), jobOf(queued));

    expect(receiver.requests.map((r) => r.path)).toEqual([`/${ctx.caller.id}`]);
    expect(await reload(queued)).toMatchObject({ state: 'failed', lastStatusCode: 308, lastError: 'receiver answered 308; redirects are not followed' });
  });
});

describe('the retry ladder', () => {
  it('makes 28 attempts at the planned offsets, parks the hourly waits as timers, then exhausts with nothing scheduled', async () => {
    const ctx = await setUp();
    const failing = await queueOne(ctx);
    receiver.respond = (req) => (req.headers['svc-event-id'] === failing.eventId ? 503 : 200);
    const start = now;
    const offsets: number[] = [];
    let record = failing;
    let parkedHourly = 0;
    for (;;) {
      offsets.push((now - start) / 1000);
      const result = await attemptDelivery(engine(), jobOf(record));
      record = await reload(record);
      if (result.outcome === 'exhausted') break;
      expect(result.outcome).toBe('retry_scheduled');
      const due = Date.parse(record.nextAttemptAt!);
      if (due - now > 900_000) {
        const timers = await timerStore().listDue(minuteOf(due), due + 1, 1_000);
        if (timers.some((t) => t.id === `${record.id}:${record.run}:${record.attempts}`)) parkedHourly += 1;
      }
      // Other events keep succeeding at this endpoint, so its failure streak never lasts.
      now = due;
      await attemptDelivery(engine(), jobOf(await queueOne(ctx)));
    }

    expect(offsets).toHaveLength(28);
    expect(offsets.slice(0, 7)).toEqual([0, 5, 35, 155, 755, 4_355, 7_955]);
    expect(offsets.at(-1)).toBeLessThanOrEqual(86_400);
    expect(parkedHourly).toBe(23); // the waits after attempts 5 to 27
    expect(record).toMatchObject({ state: 'exhausted', attempts: 28, nextAttemptAt: null, lastStatusCode: 503 });
    expect((await webhookStores().endpoints.get(ctx.caller.id, ctx.endpointId))!.status).toBe('active');
  });
});

describe('auto-disable', () => {
  it('disables an endpoint after 10 consecutive failures sustained 6 hours; deliveries then stop and nothing is buffered', async () => {
    const ctx = await setUp();
    let record = await queueOne(ctx);
    receiver.respond = () => 500;
    const disabledAt: number[] = [];
    for (let attempt = 1; attempt <= 11; attempt += 1) {
      const result = await attemptDelivery(engine(), jobOf(record));
      if ('autoDisabled' in result && result.autoDisabled) disabledAt.push(attempt);
      record = await reload(record);
      now = Date.parse(record.nextAttemptAt!);
    }

    // Attempt 10 falls 5.2 h after the first failure; attempt 11, at 6.2 h, meets both conditions.
    expect(disabledAt).toEqual([11]);
    const endpoint = (await webhookStores().endpoints.get(ctx.caller.id, ctx.endpointId))!;
    expect(endpoint).toMatchObject({ status: 'auto_disabled', consecutiveFailures: 11 });
    const sent = receiver.requests.length;
    expect((await attemptDelivery(engine(), jobOf(record))).outcome).toBe('endpoint_unavailable');
    expect(await reload(record)).toMatchObject({ state: 'failed', nextAttemptAt: null, lastError: 'endpoint auto-disabled; not attempted' });
    expect(await queueOccurrence(queueDeps(), await ruleOf(ctx.caller, ctx.subscriptionId), occurrence())).toBe('endpoint_disabled');
    expect(receiver.requests).toHaveLength(sent);

    const enabled = await enableEndpoint(webhookStores(), ctx.caller, ctx.endpointId);
    expect(enabled).toMatchObject({ status: 'active', consecutive_failures: 0, failing_since: null });
    expect(await queueOccurrence(queueDeps(), await ruleOf(ctx.caller, ctx.subscriptionId), occurrence())).toBe('queued');
  });

  it('does not disable on 10 failures inside 6 hours, and a success resets the stored streak', async () => {
    const ctx = await setUp();
    receiver.respond = () => 500;
    for (let i = 0; i < 10; i += 1) {
      await attemptDelivery(engine(), jobOf(await queueOne(ctx)));
      now += 30 * 60_000;
    }
    expect((await webhookStores().endpoints.get(ctx.caller.id, ctx.endpointId))!).toMatchObject({ status: 'active', consecutiveFailures: 10 });

    receiver.respond = () => 200;
    await attemptDelivery(engine(), jobOf(await queueOne(ctx)));
    now += 2 * HOUR;
    receiver.respond = () => 500;
    const late = await attemptDelivery(engine(), jobOf(await queueOne(ctx)));

    expect(late).toMatchObject({ outcome: 'retry_scheduled', autoDisabled: false });
    expect((await webhookStores().endpoints.get(ctx.caller.id, ctx.endpointId))!).toMatchObject({
      status: 'active',
      consecutiveFailures: 1,
      firstFailureAt: new Date(now).toISOString(),
    });
  });
});

describe('secret rotation', () => {
  it('signs with the new and the previous secret (new first) for 24 hours, then with the new one only', async () => {
    const ctx = await setUp();
    const rotated = await rotateSecret({ store: webhookStores(), clock }, ctx.caller, ctx.endpointId);

    await attemptDelivery(engine(), jobOf(await queueOne(ctx)));
    now += 24 * HOUR + 1_000;
    await attemptDelivery(engine(), jobOf(await queueOne(ctx)));

    const [during, after] = receiver.requests;
    const v1s = (r: ReceivedRequest) =>
      String(r.headers['svc-signature'])
        .split(',')
        .filter((p) => p.startsWith('v1='));
    expect(v1s(during!)).toHaveLength(2);
    expect(
      independentlyVerify(
        { ...during!, headers: { 'svc-signature': `t=${String(during!.headers['svc-signature']).split(',')[0]!.slice(2)},${v1s(during!)[0]}` } },
        rotated.secret,
        Math.floor((now - 24 * HOUR) / 1000),
      ),
    ).toBe(true);
    expect(independentlyVerify(during!, ctx.secret, Math.floor((now - 24 * HOUR) / 1000))).toBe(true);
    expect(v1s(after!)).toHaveLength(1);
    expect(independentlyVerify(after!, rotated.secret, Math.floor(now / 1000))).toBe(true);
    expect(independentlyVerify(after!, ctx.secret, Math.floor(now / 1000))).toBe(false);
  });
});

describe('at least once', () => {
  it('sends again when the worker died between sending and recording, with the same event id', async () => {
    const ctx = await setUp();
    const queued = await queueOne(ctx);
    const stores = webhookStores();
    const crashing: WebhookStores = {
      ...stores,
      deliveries: {
        ...stores.deliveries,
        recordAttempt: async () => {
          throw new Error('worker lost before recording');
        },
      },
    };

    await expect(attemptDelivery(engine({ store: crashing }), jobOf(queued))).rejects.toThrow('worker lost');
    now += LEASE_MS + 60_000; // the message reappears after the visibility timeout
    const retried = await attemptDelivery(engine(), jobOf(queued));

    expect(retried.outcome).toBe('delivered');
    expect(receiver.requests.map((r) => r.headers['svc-event-id'])).toEqual([queued.eventId, queued.eventId]);
    expect(await reload(queued)).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('drops a duplicate job while another worker holds the attempt, and jobs for attempts already made', async () => {
    const ctx = await setUp();
    const queued = await queueOne(ctx);
    expect(await webhookStores().deliveries.claimAttempt(ctx.caller.id, queued.id, { run: 0, attempts: 0 }, 'another worker', now + LEASE_MS, now)).toBe(true);

    expect((await attemptDelivery(engine(), jobOf(queued))).outcome).toBe('busy');
    now += LEASE_MS + 1;
    expect((await attemptDelivery(engine(), jobOf(queued))).outcome).toBe('delivered');
    expect((await attemptDelivery(engine(), jobOf(queued))).outcome).toBe('stale');
    expect(receiver.requests).toHaveLength(1);
  });

  it('makes the attempt whose claim landed and lost its answer (sent again by the SDK) instead of dropping it as busy', async () => {
    const ctx = await setUp();
    const queued = await queueOne(ctx);
    const deliveries = dynamoDeliveryStore({ client: answersLost(dynamoDocumentClient()), tableName: requireSetting(config(), TABLES.webhooks.envVar) });
    expect((await attemptDelivery(engine({ store: { ...webhookStores(), deliveries } }), jobOf(queued))).outcome).toBe('delivered');
    expect(receiver.requests).toHaveLength(1);
    expect(await reload(queued)).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('sends a job that arrived before the record of the attempt it follows back to the queue', async () => {
    const ctx = await setUp();
    const queued = await queueOne(ctx);

    await expect(attemptDelivery(engine(), { ...jobOf(queued), attempt: 1 })).rejects.toThrow(/has not recorded attempt 1/);
    expect(receiver.requests).toHaveLength(0);
  });

  it("redelivers with the same event id and makes the earlier run's jobs stale", async () => {
    const ctx = await setUp();
    const queued = await queueOne(ctx);
    receiver.respond = () => 500;
    await attemptDelivery(engine(), jobOf(queued));
    const failed = await reload(queued);
    receiver.respond = () => 200;

    const again = await redeliver(queueDeps(), ctx.caller, queued.id);
    const reset = await reload(queued);

    expect(again).toMatchObject({ delivery_id: queued.id, event_id: queued.eventId, state: 'pending', attempts: 0 });
    expect((await attemptDelivery(engine(), jobOf(failed))).outcome).toBe('stale');
    expect((await attemptDelivery(engine(), jobOf(reset))).outcome).toBe('delivered');
    expect(receiver.requests.map((r) => r.headers['svc-event-id'])).toEqual([queued.eventId, queued.eventId]);
  });
});

describe('the slow lane', () => {
  it('moves an endpoint whose answer is late to the slow lane, its waiting jobs there without an attempt, and back once it answers quickly', async () => {
    // Prepare: one endpoint that hangs, one that answers.
    const hung = await setUp();
    const healthy = await setUp();
    receiver.respond = (req) => (req.path === `/${hung.caller.id}` ? 'hang' : 200);
    const sentTo: string[] = [];
    const queues = {
      send: async (queue: QueueName, body: string, delay?: number) => {
        sentTo.push(`${queue} ${JSON.parse(body).delivery_id}`);
        await queueSender().send(queue, body, delay);
      },
    };
    // A sender budget past SLOW_ANSWER_MS, as the real one's 10 s is.
    const lane = (name: DeliveryLane) =>
      engine({
        queues,
        lane: name,
        send: createHttpsSender({ resolve: async () => ['127.0.0.1'], allowHosts: ['127.0.0.1'], timeoutMs: SLOW_ANSWER_MS + 1_500 }),
      });
    const first = await queueOne(hung);
    const waiting = await queueOne(hung);
    const other = await queueOne(healthy);

    // Act
    const timedOut = await attemptDelivery(lane('delivery'), jobOf(first));
    const moved = await attemptDelivery(lane('delivery'), jobOf(waiting));
    const unaffected = await attemptDelivery(lane('delivery'), jobOf(other));
    receiver.respond = () => 200;
    const fromSlowLane = await attemptDelivery(lane('delivery-slow'), jobOf(waiting));

    // Assess
    expect(timedOut.outcome).toBe('retry_scheduled');
    expect(sentTo).toContain(`delivery-slow ${first.id}`);
    expect(moved.outcome).toBe('moved_to_slow_lane');
    expect(sentTo).toContain(`delivery-slow ${waiting.id}`);
    expect(receiver.requests.filter((r) => r.headers['svc-event-id'] === waiting.eventId)).toHaveLength(1);
    expect(unaffected.outcome).toBe('delivered');
    expect(fromSlowLane.outcome).toBe('delivered');
    expect((await webhookStores().endpoints.get(hung.caller.id, hung.endpointId))!.slowUntil).toBeNull();
    expect((await webhookStores().endpoints.get(healthy.caller.id, healthy.endpointId))!.slowUntil).toBeNull();
  });
});

describe('the delivery log written before state and envelope were apart', () => {
  it('attempts, records and lists a delivery stored as one item, once', async () => {
    const ctx = await setUp();
    const queued = await queueOne(ctx);
    const table = config()[TABLES.webhooks.envVar] as string;
    const pk = `ACCT#${ctx.caller.id}`;
    // As the store wrote it before: one item with the whole record, in gsi1 and gsi2.
    await env.dynamo.send(new DeleteCommand({ TableName: table, Key: { pk, sk: `DLV#${queued.id}#E` } }));
    await env.dynamo.send(
      new PutCommand({
        TableName: table,
        Item: {
          pk,
          sk: `DLV#${queued.id}`,
          gsi1pk: `EPD#${ctx.endpointId}`,
          gsi1sk: `${queued.createdAt}#${queued.id}`,
          gsi2pk: 'DUE#0',
          gsi2sk: `${queued.nextAttemptAt}#${queued.id}`,
          run: 0,
          attempts: 0,
          record: JSON.stringify(queued),
          expires_at: Math.floor(Date.now() / 1000) + 86_400,
        },
      }),
    );
    const logged = () => webhookStores().deliveries.list(ctx.caller.id, ctx.endpointId, 10);
    expect((await logged()).map((d) => d.id)).toEqual([queued.id]);

    expect((await attemptDelivery(engine(), jobOf(queued))).outcome).toBe('delivered');

    expect(await logged()).toMatchObject([{ id: queued.id, state: 'delivered', attempts: 1, payload: queued.payload }]);
  });
});

describe('the overdue sweep', () => {
  it('sends the job of every delivery whose attempt is overdue again from the store, once it is past the grace, and nothing else', async () => {
    const ctx = await setUp();
    const pending = await queueOne(ctx);
    const retrying = await queueOne(ctx);
    const delivered = await queueOne(ctx);
    receiver.respond = () => 500;
    await attemptDelivery(engine(), jobOf(retrying));
    receiver.respond = () => 200;
    await attemptDelivery(engine(), jobOf(delivered));
    // Whatever the queue held is gone (a crash of the local queue, a send lost after the record's write).
    const sent: DeliveryJobMessage[] = [];
    const sweep = () =>
      sweepOverdueDeliveries({
        store: webhookStores(),
        clock,
        timeScale: 1,
        queues: {
          send: async (_queue, body) => {
            sent.push(JSON.parse(body));
          },
        },
      });
    const ours = () => sent.filter((job) => job.account_id === ctx.caller.id);

    await sweep();
    expect(ours()).toEqual([]);
    now += OVERDUE_GRACE_MS + 10_000;
    await sweep();
    expect(
      ours()
        .map((job) => job.delivery_id)
        .sort(),
    ).toEqual([pending.id, retrying.id].sort());
    expect(ours().find((job) => job.delivery_id === retrying.id)).toMatchObject({ run: 0, attempt: 1 });

    for (const job of ours()) expect((await attemptDelivery(engine(), job)).outcome).toBe('delivered');
    // A second copy of a job the engine already acted on is dropped, and the index no longer holds either.
    expect((await attemptDelivery(engine(), ours()[0]!)).outcome).toBe('stale');
    sent.length = 0;
    await sweep();
    expect(ours()).toEqual([]);
    expect(receiver.requests.filter((r) => r.path === `/${ctx.caller.id}`)).toHaveLength(4);
  });
});

describe('queue time', () => {
  it('counts a delivery once; the same occurrence again creates and counts nothing; other params are another event', async () => {
    const ctx = await setUp();
    const second = await createSubscription({ store: webhookStores(), clock }, ctx.caller, {
      endpoint_id: ctx.endpointId,
      event_type: 'market.liquidation',
      filters: { max_age_s: 600 },
    });
    const occ = occurrence('liq:perpx:BTC:0xabc:1763726400000');

    const outcomes = [
      await queueOccurrence(queueDeps(), await ruleOf(ctx.caller, ctx.subscriptionId), occ),
      await queueOccurrence(queueDeps(), await ruleOf(ctx.caller, ctx.subscriptionId), occ),
      await queueOccurrence(queueDeps(), await ruleOf(ctx.caller, second.id), occ),
    ];

    expect(outcomes).toEqual(['queued', 'duplicate', 'queued']);
    const log = await webhookStores().deliveries.list(ctx.caller.id, ctx.endpointId, 10);
    expect(new Set(log.map((d) => d.eventId)).size).toBe(2);
    expect(await webhookStores().allowances.deliveriesCounted(ctx.caller.id, utcDay(now))).toBe(2);
  });

  it('skips occurrences older than max_age_s and marks catch-up deliveries late past 10 minutes', async () => {
    const ctx = await setUp({ max_age_s: 3_600 });
    const rule = await ruleOf(ctx.caller, ctx.subscriptionId);

    expect(await queueOccurrence(queueDeps(), rule, occurrence(undefined, now - 2 * HOUR))).toBe('too_old');
    const late = await queueOne(ctx, occurrence(undefined, now - 20 * 60_000));
    const onTime = await queueOne(ctx, occurrence(undefined, now - 5 * 60_000));

    expect(late.payload).toMatchObject({ late_ms: 1_200_000, late: true });
    expect(onTime.payload).toMatchObject({ late_ms: 300_000, late: false });
  });

  it('pauses the rule whose delivery crosses the daily cap, and every other rule when it reaches the cap; resume clears and replays nothing', async () => {
    const ctx = await setUp();
    const other = await createSubscription({ store: webhookStores(), clock }, ctx.caller, {
      endpoint_id: ctx.endpointId,
      event_type: 'market.liquidation',
      filters: { max_age_s: 900 },
    });
    await env.dynamo.send(
      new PutCommand({
        TableName: config()[TABLES.webhooks.envVar] as string,
        Item: { pk: `ACCT#${ctx.caller.id}`, sk: `DAY#${utcDay(now)}`, deliveries: 4_999 },
      }),
    );
    const queue = async (id: string, occurredAt: number) => queueOccurrence(queueDeps(), await ruleOf(ctx.caller, id), occurrence(undefined, occurredAt));

    const first = await queue(ctx.subscriptionId, now);
    now += 60_000;
    const crossing = await queue(ctx.subscriptionId, now - 1_000);
    now += 60_000;
    const whilePaused = await queue(ctx.subscriptionId, now - 1_000);
    const otherAtCap = await queue(other.id, now);

    expect([first, crossing, whilePaused, otherAtCap]).toEqual(['queued', 'capped', 'paused', 'capped']);
    const paused = (await ruleOf(ctx.caller, ctx.subscriptionId)).subscription.pause;
    expect(paused).toMatchObject({
      reason: 'deliveries_per_day_cap',
      suppressedCount: 2,
      suppressedFirstAt: new Date(now - 61_000).toISOString(),
      suppressedLastAt: new Date(now - 1_000).toISOString(),
    });
    expect((await ruleOf(ctx.caller, other.id)).subscription.pause).toMatchObject({ suppressedCount: 1 });
    await expect(resumeSubscription({ store: webhookStores(), clock }, ctx.caller, ctx.subscriptionId)).rejects.toMatchObject({ code: 'conflict' });

    now = Date.parse('2026-11-22T00:00:05.000Z');
    const logBefore = await webhookStores().deliveries.list(ctx.caller.id, ctx.endpointId, 50);
    const resumed = await resumeSubscription({ store: webhookStores(), clock }, ctx.caller, ctx.subscriptionId);

    expect(resumed.subscription).toMatchObject({ status: 'active', enabled: true, suppressed_count: null, last_suppressed_count: 2 });
    expect(resumed.gap).toMatchObject({ suppressed_count: 2 });
    expect(await webhookStores().deliveries.list(ctx.caller.id, ctx.endpointId, 50)).toHaveLength(logBefore.length);
    expect((await ruleOf(ctx.caller, other.id)).subscription.pause).not.toBeNull();
    expect(await queue(ctx.subscriptionId, now)).toBe('queued');
  });
});
