/**
 * Seconds-class detection in the local cloud: a raw batch dropped under landing/ is ingested, its
 * liquidations and a watched wallet's fills are detected, matched against rules made through the
 * API, and delivered to a real HTTPS receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startTestCloud, KEYS } from '../helpers/local-cloud.ts';
import { apiClient, eventually } from '../helpers/api.ts';
import { startReceiver, type Receiver } from '#local/receiver.ts';
import { jsonl, trade } from '../helpers/records.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';
import { invoke } from '#local/invoke.ts';
import { localAccountId } from '#local/accounts.ts';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { NormalizedRecord } from '#schemas/datasets.ts';

const WALLET = '0x1111111111111111111111111111111111111111';
const VICTIM = '0x2222222222222222222222222222222222222223';
const OTHER = '0x4444444444444444444444444444444444444444';
let cloud: Awaited<ReturnType<typeof startTestCloud>>;
let receiver: Receiver;
let s3: S3Client;

beforeAll(async () => {
  process.env.WEBHOOK_ALLOWED_TARGETS = '127.0.0.1';
  receiver = await startReceiver();
  cloud = await startTestCloud();
  s3 = new S3Client({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: cloud.emulators.endpoints.s3, forcePathStyle: true });
});
afterAll(async () => {
  s3?.destroy();
  await cloud?.stop();
  await receiver?.close();
  delete process.env.WEBHOOK_ALLOWED_TARGETS;
});

const call = apiClient(() => cloud.url);

const transfer = (
  ts: number,
  fields: { role: 'source' | 'destination'; usdc: string; tx: string; kind: string; user?: string; counterparty?: string },
): NormalizedRecord =>
  ({
    dataset: 'transfers',
    family: 'perpx',
    symbol: 'USDC',
    ts,
    user_address: fields.user ?? WALLET,
    kind: fields.kind,
    role: fields.role,
    amount: fields.usdc,
    usdc_value: fields.usdc,
    tx_hash: fields.tx,
    ...(fields.counterparty && { counterparty: fields.counterparty }),
  }) as NormalizedRecord;

const liquidation = (ts: number, tradeId: number, size: string, user = VICTIM): NormalizedRecord =>
  ({
    dataset: 'liquidations',
    family: 'perpx',
    symbol: 'BTC',
    ts,
    trade_id: tradeId,
    liquidated_user: user,
    liquidator_user: '0x3333333333333333333333333333333333333333',
    price: '90000',
    size,
    side: 'A',
    closed_pnl: '-150',
    direction: 'Close Long',
  }) as NormalizedRecord;

describe('seconds-class detection from ingest to receiver', () => {
  it("delivers one market.liquidation per cascade and a watched wallet's fill, matched by the rules' filters", async () => {
    const endpoint = (await call(KEYS.build, 'POST', '/v1/webhooks/endpoints', { url: receiver.url('/detect') })).body.data;
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/addresses', { address: WALLET })).status).toBe(201);
    const liquidations = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', {
      endpoint_id: endpoint.id,
      event_type: 'market.liquidation',
      filters: { symbols: ['BTC'], min_notional_usd: 1_000 },
    });
    const fills = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', { endpoint_id: endpoint.id, event_type: 'account.fill' });
    const transfers = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', {
      endpoint_id: endpoint.id,
      event_type: 'account.transfer',
      filters: { min_notional_usd: 100 },
    });
    expect([liquidations.status, fills.status, transfers.status]).toEqual([201, 201, 201]);
    liquidationRule = liquidations.body.data.id;

    const ts = Math.floor(Date.now() / 1000) * 1000 - 30_000;
    const batch = [
      // A cascade: two fills of one account at one instant (1,800 USD together), and a small one later (90 USD, under the floor).
      liquidation(ts, 9_001, '0.01'),
      liquidation(ts, 9_002, '0.01'),
      liquidation(ts + 1_000, 9_003, '0.001'),
      // The watched wallet's order sweeps two levels at one instant; someone else's fill is not watched.
      trade({ ts: ts + 2_000, trade_id: 9_101, user_address: WALLET, price: '90000', size: '0.5', order_id: 77 }),
      trade({ ts: ts + 2_000, trade_id: 9_102, user_address: WALLET, price: '90010', size: '0.5', order_id: 77 }),
      trade({ ts: ts + 2_000, trade_id: 9_103, user_address: '0x4444444444444444444444444444444444444444', price: '90000', size: '1' }),
      // A send from the watched wallet (both ledger rows), and a deposit too small for the rule's 100 USD bound.
      transfer(ts + 3_000, { role: 'source', usdc: '2500', tx: '0xaa', kind: 'send', counterparty: OTHER }),
      transfer(ts + 3_000, { role: 'destination', usdc: '2500', tx: '0xaa', kind: 'send', user: OTHER, counterparty: WALLET }),
      transfer(ts + 4_000, { role: 'destination', usdc: '50', tx: '0xbb', kind: 'deposit' }),
    ];
    await s3.send(
      new PutObjectCommand({
        Bucket: cloud.emulators.names.buckets.archive,
        Key: `landing/normalized/${new Date(ts).toISOString().slice(0, 10)}/detect-1.jsonl`,
        Body: jsonl(batch),
      }),
    );

    const received = await eventually(
      () => receiver.requests.filter((r) => r.path === '/detect'),
      (r) => r.length >= 3,
    );
    await new Promise((r) => setTimeout(r, 1_000)); // nothing else should follow
    const events = receiver.requests.filter((r) => r.path === '/detect').map((r) => JSON.parse(r.body));
    expect(events.map((e) => e.type).sort()).toEqual(['account.fill', 'account.transfer', 'market.liquidation']);
    expect(events.find((e) => e.type === 'account.transfer').data).toMatchObject({
      address: WALLET,
      token: 'USDC',
      amount: 2_500,
      kind: 'send',
      role: 'source',
      usdc_value: 2_500,
      counterparty: OTHER,
    });
    expect(received.every((r) => r.headers['svc-signature'])).toBe(true);
    const liq = events.find((e) => e.type === 'market.liquidation');
    expect(liq.data).toMatchObject({
      venue: 'perpx',
      symbol: 'BTC',
      notional_usd: 1_800,
      side: 'long',
      liquidated_user: VICTIM,
      fill_count: 2,
      closed_pnl: -300,
      api_url: `/v1/perpx/trades/BTC?start=${ts}&end=${ts + 1}`,
    });
    expect(liq).toMatchObject({ late: false, late_ms: expect.any(Number) });
    const fill = events.find((e) => e.type === 'account.fill');
    expect(fill.data).toMatchObject({ account: WALLET, side: 'buy', size: 1, fill_count: 2, order_ids: ['77'], notional_usd: 90_005 });

    // The same rows again in another batch (a replay upstream): the occurrences are recognised and nothing new is delivered.
    const replay = [...batch, trade({ ts: ts + 3_000, trade_id: 9_104, user_address: '0x4444444444444444444444444444444444444444' })];
    await s3.send(
      new PutObjectCommand({
        Bucket: cloud.emulators.names.buckets.archive,
        Key: `landing/normalized/${new Date(ts).toISOString().slice(0, 10)}/detect-2.jsonl`,
        Body: jsonl(replay),
      }),
    );
    await new Promise((r) => setTimeout(r, 2_000));
    expect(receiver.requests.filter((r) => r.path === '/detect')).toHaveLength(3);
    delivered = events;
    batchAt = ts;
  });
});

let delivered: any[] = [];
let liquidationRule = '';
let batchAt = 0;

describe('dry-run and estimate', () => {
  it('dry-run returns exactly what the live rules delivered over the same window, newest first', async () => {
    const fills = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions/dry-run', { event_type: 'account.fill', config: {}, lookback_s: 600 });
    const liquidations = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions/dry-run', {
      event_type: 'market.liquidation',
      config: { symbols: ['BTC'], min_notional_usd: 1_000 },
      lookback_s: 600,
    });

    expect(fills.status).toBe(200);
    expect(fills.body.data).toMatchObject({ event_type: 'account.fill', matched: 1, truncated: false });
    expect(fills.body.data.occurrences.map((o: any) => o.data)).toEqual([delivered.find((e) => e.type === 'account.fill').data]);
    expect(liquidations.body.data.occurrences.map((o: any) => o.data)).toEqual([delivered.find((e) => e.type === 'market.liquidation').data]);
    const transfers = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions/dry-run', {
      event_type: 'account.transfer',
      filters: { min_notional_usd: 100 },
      lookback_s: 600,
    });
    expect(transfers.body.data.occurrences.map((o: any) => o.data)).toEqual([delivered.find((e) => e.type === 'account.transfer').data]);
    const everything = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions/dry-run', { event_type: 'market.liquidation', lookback_s: 600, limit: 1 });
    // Without the 1,000 USD bound the 90 USD liquidation is still under the 100 USD floor: one match.
    expect(everything.body.data).toMatchObject({ matched: 1, truncated: false });
  });

  it("estimates daily rates oldest first with a threshold ladder and the metric's distribution", async () => {
    const { status, body } = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions/estimate', {
      event_type: 'market.liquidation',
      config: { symbols: ['BTC'] },
      lookback_days: 3,
    });

    expect(status).toBe(200);
    expect(body.data.per_day.map((d: any) => d.count)).toEqual([0, 0, 1]);
    expect(body.data.per_day.at(-1).date).toBe(new Date().toISOString().slice(0, 10));
    expect(body.data).toMatchObject({
      // Read from the hourly rollup (nothing folded yet: the hour is replayed); the 100 USD floor is a bucket edge, so exact.
      days: 3,
      total: 1,
      per_day_max: 1,
      primary_metric: 'notional_usd',
      basis: { mode: 'exact', note: expect.stringMatching(/hourly rollups/) },
      // Percentiles are the lower edge of their bucket (16 a decade); max is exact.
      distribution: { n: 1, p50: 1_778, max: 1_800 },
    });
    expect(body.data.sample).toHaveLength(1);
    expect(body.data.sample[0].data).toMatchObject({ notional_usd: 1_800 });
    // Ten rungs around the 100 USD floor, each the histogram bucket edge at or below 0.25x to 10x; the one 1,800 USD liquidation clears all of them.
    expect(body.data.ladder.map((r: any) => r.value)).toEqual([23.71, 48.7, 74.99, 100, 133.4, 177.8, 273.8, 487, 749.9, 1_000]);
    expect(new Set(body.data.ladder.map((r: any) => r.per_day)).size).toBe(1);
    expect(body.data.ladder[0].per_day).toBeGreaterThan(0);
  });

  it('refuses unsupported types naming the list, account events without watched addresses, and a seventh call in a minute', async () => {
    const unsupported = await call(KEYS.pro, 'POST', '/v1/webhooks/subscriptions/dry-run', { event_type: 'market.oi_delta' });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error).toContain('account.fill, account.transfer, market.liquidation');
    expect((await call(KEYS.pro, 'POST', '/v1/webhooks/subscriptions/dry-run', { event_type: 'account.fill' })).body).toMatchObject({
      code: 400,
      param: 'event_type',
    });
    expect((await call(KEYS.free, 'POST', '/v1/webhooks/subscriptions/estimate', { event_type: 'webhook.test' })).body.error).toContain('market.funding_flip');

    // The budget is a fixed minute window: start well inside one.
    if (Date.now() % 60_000 > 55_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 100));
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1)
      statuses.push((await call(KEYS.free, 'POST', '/v1/webhooks/subscriptions/dry-run', { event_type: 'market.liquidation', lookback_s: 60 })).status);
    expect(statuses.slice(0, 6).every((s) => s === 200)).toBe(true);
    expect(statuses[6]).toBe(429);
  });
});

describe('rule replay', () => {
  it('replays a subscription over its window as a job: what live delivery sent, with the same event ids, and delivers it late to a rule made after the fact', async () => {
    const window = { start: batchAt - 60_000, end: Date.now() - 1_000 };
    const created = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions/replay', { subscription_id: liquidationRule, ...window });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body.data).toMatchObject({ state: 'running', event_type: 'market.liquidation', subscription_id: liquidationRule, deliver: false });
    const done = await eventually(
      () => call(KEYS.build, 'GET', `/v1/webhooks/subscriptions/replays/${created.body.data.id}`),
      (r) => r.body.data?.state !== 'running',
    );
    const live = delivered.find((e) => e.type === 'market.liquidation');
    expect(done.body.data.state).toBe('completed');
    expect(done.body.data.occurrences).toEqual([{ event_id: live.id, occurred_at: live.data.timestamp, data: live.data }]);
    expect(done.body.data.progress).toMatchObject({ matched: 1, delivered: 0, partitions_done: done.body.data.progress.partitions_total });
    // The cascade's two fills and the 90 USD one were read (the repeated batch collapses on the unique key).
    expect(done.body.data.progress.rows_scanned).toBe(3);

    // Another account's rule, made after the fact: live detection sent it nothing; its replay delivers the liquidation late.
    const endpoint = (await call(KEYS.pro, 'POST', '/v1/webhooks/endpoints', { url: receiver.url('/replay') })).body.data;
    const rule = (
      await call(KEYS.pro, 'POST', '/v1/webhooks/subscriptions', {
        endpoint_id: endpoint.id,
        event_type: 'market.liquidation',
        filters: { symbols: ['BTC'], min_notional_usd: 1_000 },
      })
    ).body.data;
    const delivering = await call(KEYS.pro, 'POST', '/v1/webhooks/subscriptions/replay', { subscription_id: rule.id, ...window, deliver: true });
    expect(delivering.status, JSON.stringify(delivering.body)).toBe(202);
    const received = await eventually(
      () => receiver.requests.filter((r) => r.path === '/replay'),
      (r) => r.length >= 1,
    );
    // The same params: the same event id live delivery gave the occurrence.
    expect(JSON.parse(received[0]!.body)).toMatchObject({ id: live.id, type: 'market.liquidation', late: true, replay: true, data: live.data });
    const finished = await eventually(
      () => call(KEYS.pro, 'GET', `/v1/webhooks/subscriptions/replays/${delivering.body.data.id}`),
      (r) => r.body.data?.state === 'completed',
    );
    expect(finished.body.data.progress).toMatchObject({ matched: 1, delivered: 1 });

    // Refused: a window reaching into the future, delivery without a subscription, another account's job.
    expect(
      (await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions/replay', { subscription_id: liquidationRule, start: window.start, end: Date.now() + 60_000 }))
        .body,
    ).toMatchObject({ code: 400, param: 'end' });
    expect(
      (await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions/replay', { event_type: 'market.liquidation', ...window, deliver: true })).body,
    ).toMatchObject({ code: 400, param: 'deliver' });
    expect((await call(KEYS.free, 'GET', `/v1/webhooks/subscriptions/replays/${created.body.data.id}`)).status).toBe(404);
  });

  it('cancels a running replay once (409 after), leaving it canceled; another account cannot cancel it', async () => {
    // A year of days, so the job is still running when the cancel comes.
    const end = Date.now() - 1_000;
    const created = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions/replay', {
      subscription_id: liquidationRule,
      start: end - 365 * 86_400_000,
      end,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const path = `/v1/webhooks/subscriptions/replays/${created.body.data.id}`;
    expect((await call(KEYS.free, 'DELETE', path)).status).toBe(404);
    const canceled = await call(KEYS.build, 'DELETE', path);
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    expect(canceled.body.data).toMatchObject({ id: created.body.data.id, state: 'canceled', finished_at: expect.any(String) });
    expect((await call(KEYS.build, 'DELETE', path)).body).toMatchObject({ code: 409, error_code: 'conflict' });
    // Days already running when the cancel came are not counted; the job stays canceled.
    await new Promise((r) => setTimeout(r, 3_000));
    const after = await call(KEYS.build, 'GET', path);
    expect(after.body.data.state).toBe('canceled');
    expect(after.body.data.progress.partitions_done).toBeLessThan(after.body.data.progress.partitions_total);
  });
});

describe('minute-class detection', () => {
  it('delivers a funding flip and a listing from the settled minute, each once', async () => {
    const [endpoint] = (await call(KEYS.build, 'GET', '/v1/webhooks/endpoints')).body.data;
    for (const event_type of ['market.funding_flip', 'market.listed']) {
      expect((await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', { endpoint_id: endpoint.id, event_type })).status).toBe(201);
    }
    // Funding settles hourly: the last two hourly rates of ETH change sign at the hour `hour`.
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const batch = [
      { dataset: 'funding', family: 'perpx', symbol: 'ETH', ts: hour - 3_600_000, funding_rate: '0.0000125' },
      { dataset: 'funding', family: 'perpx', symbol: 'ETH', ts: hour - 60_000, funding_rate: '0.0000090' }, // a prediction, not compared
      { dataset: 'funding', family: 'perpx', symbol: 'ETH', ts: hour, funding_rate: '-0.0000031' },
      { dataset: 'instruments', family: 'perpx', symbol: 'NEWCOIN', ts: hour + 20_000, market_type: 'perp', sz_decimals: 2, max_leverage: 5 },
    ] as NormalizedRecord[];
    await s3.send(
      new PutObjectCommand({
        Bucket: cloud.emulators.names.buckets.archive,
        Key: `landing/normalized/${new Date(hour).toISOString().slice(0, 10)}/minute-1.jsonl`,
        Body: jsonl(batch),
      }),
    );
    await new Promise((r) => setTimeout(r, 3_000)); // ingested through the queue
    // The run at hour + 2.5 min judges the settled minute [hour, hour + 1 min).
    const now = hour + 150_000;

    const before = receiver.requests.length;
    await invoke('detect', { time: new Date(now).toISOString() });
    await invoke('detect', { time: new Date(now).toISOString() }); // a retried run covers nothing new

    const events = await eventually(
      () => receiver.requests.slice(before).map((r) => JSON.parse(r.body)),
      (e) => e.length >= 2,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.requests.slice(before)).toHaveLength(2);
    expect(events.find((e) => e.type === 'market.funding_flip')?.data).toMatchObject({
      venue: 'perpx',
      symbol: 'ETH',
      flipped_to: 'negative',
      previous_rate: 0.0000125,
    });
    expect(events.find((e) => e.type === 'market.listed')?.data).toMatchObject({ venue: 'perpx', symbol: 'NEWCOIN', api_url: '/v1/perpx/instruments/NEWCOIN' });
  });
});

describe('account events', () => {
  it("fires billing.credit_low when a data request takes the month's remaining credits to a configured level", async () => {
    const [endpoint] = (await call(KEYS.build, 'GET', '/v1/webhooks/endpoints')).body.data;
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', { endpoint_id: endpoint.id, event_type: 'billing.credit_low' })).status).toBe(201);
    // 20,000,001 of the Build plan's 80,000,000 credits left: the next request reaches the 25% level.
    const month = new Date().toISOString().slice(0, 7);
    await cloud.dynamo.send(
      new PutCommand({ TableName: process.env.TABLE_USAGE!, Item: { pk: `ACCT#${localAccountId(KEYS.build)}`, sk: `CREDITS#${month}`, used: 59_999_999 } }),
    );
    const before = receiver.requests.length;

    expect((await call(KEYS.build, 'GET', '/v1/perpx/trades/BTC?limit=5')).status).toBe(200);

    const [event] = await eventually(
      () => receiver.requests.slice(before).map((r) => JSON.parse(r.body)),
      (e) => e.length >= 1,
    );
    expect(event).toMatchObject({ type: 'billing.credit_low', data: { level_pct: 25, credits_remaining: 20_000_000, credits_limit: 80_000_000, month } });
    expect((await call(KEYS.build, 'GET', '/v1/perpx/trades/BTC?limit=5')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(receiver.requests.slice(before)).toHaveLength(1); // 24.99…% is not a configured level
  });
});
