/**
 * The cloud misbehaving underneath the real flows (issue 44): the local cloud with the fault proxy
 * (functions/local/fault-proxy.ts) between its functions and the emulators, under the plans of
 * functions/local/fault-plans.ts. Batches are landed twice, compaction and reads run while they
 * ingest, deliveries are queued, an export runs; then the archive is read back row by row against
 * what was landed (none lost, none twice), deliveries against what was accepted, the export
 * against the archive, and S3 against the manifest (no orphan left once its deletion is due).
 */
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCloud, KEYS } from '../helpers/local-cloud.ts';
import { eventually } from '../helpers/api.ts';
import { startReceiver, type Receiver } from '#local/receiver.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';
import { invoke } from '#local/invoke.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { RETRY_SETTINGS, exportObjects, exportStore } from '#shared/deps.ts';
import {
  everyMessageTwice,
  exportCancelUndeleted,
  exportKilledAtWritePoints,
  flakyStores,
  killedAtWritePoints,
  writesLandUnanswered,
} from '#local/fault-plans.ts';
import { NO_FAULTS, parseFaultPlan } from '#schemas/fault-plan.ts';
import {
  SYMBOLS,
  call,
  callPatiently,
  checkArchive,
  checkExport,
  checkExportObjects,
  checkObjects,
  landBatch,
  newTally,
  readTrades,
  tradeBatches,
  type CallTally,
  type FlowTarget,
} from '#local/fault-flows.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';

const DAY = 86_400_000;

const liquidation = (ts: number, tradeId: number): NormalizedRecord =>
  ({
    dataset: 'liquidations',
    family: 'perpx',
    symbol: 'BTC',
    ts,
    trade_id: tradeId,
    liquidated_user: '0x2222222222222222222222222222222222222223',
    liquidator_user: '0x3333333333333333333333333333333333333333',
    price: '90000',
    size: '0.5',
    side: 'A',
    closed_pnl: '-150',
    direction: 'Close Long',
  }) as NormalizedRecord;
/** Two closed UTC days inside coverage. */
const DAY1 = Date.UTC(2026, 10, 20);
const DAYS = ['2026-11-20', '2026-11-21'];
const WINDOW = { from: DAY1, to: DAY1 + 2 * DAY };

let cloud: Awaited<ReturnType<typeof startTestCloud>>;
let receiver: Receiver;
let target: FlowTarget;
const landed: NormalizedRecord[] = [];
const accepted = new Set<string>();
let endpointId: string;
const refusedOnce = new Set<string>();
const delivered = new Set<string>();
/** The minute detection job's deliveries: each body by its event id (a duplicate must carry the same). */
const detected = new Map<string, string>();
const differingDuplicates: string[] = [];

/** Compaction as its schedule runs it; a run the plan kills fails, and the next one goes on. */
async function compactOnce(): Promise<boolean> {
  try {
    const report = (await invoke('compact', {})) as { skippedLeased: number; filesWritten: number };
    lastCompaction = JSON.stringify(report);
    return true;
  } catch (error) {
    lastCompaction = String(error);
    return false;
  }
}
let lastCompaction = '';

async function queueDeliveries(count: number, tally = newTally()): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const res = await callPatiently(target, tally, 'POST', `/v1/webhooks/endpoints/${endpointId}/test`);
    // A 503 after all the client's tries is a refusal the client saw: not accepted, not owed.
    if (res.status === 202) ids.push(res.body.data.event_id);
  }
  for (const id of ids) accepted.add(id);
  return ids;
}

/** Subscriptions and watched addresses created and deleted as a client would, retrying each 503. */
async function churnAllowances(tally = newTally()): Promise<void> {
  const created: string[] = [];
  for (let i = 0; i < 5; i += 1) {
    const res = await callPatiently(target, tally, 'POST', '/v1/webhooks/subscriptions', {
      endpoint_id: endpointId,
      event_type: 'market.liquidation',
      filters: { venue: 'perpx', min_notional_usd: 1_000_000 + i },
    });
    if (res.status === 201) created.push(res.body.data.id);
  }
  for (const id of created.slice(0, 2)) await callPatiently(target, tally, 'DELETE', `/v1/webhooks/subscriptions/${id}`);
  const address = (i: number) => `0x${String(i).repeat(40)}`;
  for (const i of [1, 2]) await callPatiently(target, tally, 'POST', '/v1/webhooks/addresses', { address: address(i) });
  await callPatiently(target, tally, 'DELETE', `/v1/webhooks/addresses/${address(1)}`);
}

/** The account's allowances and day's count against what it holds: its subscriptions, addresses, endpoints and deliveries. */
async function checkAllowances() {
  const tally = newTally();
  const [limits, subscriptions, addresses, deliveries] = await Promise.all(
    ['/v1/webhooks/limits', '/v1/webhooks/subscriptions', '/v1/webhooks/addresses', `/v1/webhooks/endpoints/${endpointId}/deliveries?limit=200`].map((path) =>
      call(target, tally, 'GET', path),
    ),
  );
  const day = new Date(Date.parse(limits!.body.data.deliveries_per_day.resets_at) - DAY).toISOString().slice(0, 10);
  return {
    counted: {
      endpoints: limits!.body.data.endpoints.used,
      subscriptions: limits!.body.data.subscriptions.used,
      addresses: limits!.body.data.watched_addresses.used,
      deliveries: limits!.body.data.deliveries_per_day.used,
    },
    held: {
      endpoints: 1,
      subscriptions: subscriptions!.body.data.length,
      addresses: addresses!.body.data.length,
      deliveries: deliveries!.body.data.filter((d: { created_at: string }) => d.created_at.startsWith(day)).length,
    },
  };
}

beforeAll(async () => {
  process.env.WEBHOOK_ALLOWED_TARGETS = '127.0.0.1';
  // Each event is refused once, so every delivery climbs the ladder's first rung under the faults.
  receiver = await startReceiver((request) => {
    const id = String(request.headers['svc-event-id']);
    if (request.path === '/detect') {
      if (detected.has(id) && detected.get(id) !== request.body) differingDuplicates.push(id);
      detected.set(id, request.body);
    }
    if (!refusedOnce.has(id)) {
      refusedOnce.add(id);
      return 503;
    }
    delivered.add(id);
    return 200;
  });
  cloud = await startTestCloud({ faults: NO_FAULTS });
  const s3 = new S3Client({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: cloud.emulators.endpoints.s3, forcePathStyle: true });
  target = { url: cloud.url, key: KEYS.build, s3, bucket: cloud.emulators.names.buckets.archive };
  const endpoint = await call(target, newTally(), 'POST', '/v1/webhooks/endpoints', { url: receiver.url('/faults') });
  expect(endpoint.status).toBe(201);
  endpointId = endpoint.body.data.id;
});

afterAll(async () => {
  await cloud?.stop();
  await receiver?.close();
  target?.s3.destroy();
  delete process.env.WEBHOOK_ALLOWED_TARGETS;
});

/** The faults suite's export: every symbol's trades over the window, created through the SDK's retries. */
const createTradesExport = (tally: CallTally) =>
  callPatiently(target, tally, 'POST', '/v1/exports', { schema: 'trades', family: 'perpx', symbols: [...SYMBOLS], start: WINDOW.from, end: WINDOW.to });

describe('the cloud failing under the flows', () => {
  it('loses and doubles nothing when 5% of store calls fail, and reads answer 200 or 503 with Retry-After, never 500', async () => {
    cloud.faults!.setPlan(flakyStores(11, 0.05));
    const batches = tradeBatches(11, 6, DAY1, 2);
    const reads = newTally();
    const queued = queueDeliveries(6);
    const churned = churnAllowances();
    // Each batch twice, under two names: the same bytes, so the same batch.
    for (const [i, batch] of batches.entries()) {
      landed.push(...batch);
      await landBatch(target, DAYS[0]!, `flaky-${i}`, batch);
      await landBatch(target, DAYS[0]!, `flaky-${i}-again`, batch);
      // Reads and compaction while the batches ingest.
      await Promise.all([readTrades(target, reads, 'BTC', WINDOW.from, WINDOW.to), i % 2 === 1 ? compactOnce() : undefined]);
    }
    await Promise.all([queued, churned]);
    const report = cloud.faults!.report();
    cloud.faults!.setPlan(NO_FAULTS);
    expect(Object.values(report.injected).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    // Allowances against what was used: each counted once, however many writes landed unanswered.
    const allowances = await checkAllowances();
    expect(allowances.counted).toEqual(allowances.held);
    expect(allowances.held.subscriptions).toBeGreaterThan(0);
    expect(reads.statuses[500]).toBeUndefined();
    expect(reads.badUnavailable).toEqual([]);

    const expectedRows = new Set(landed.map((r) => `${r.symbol}#${(r as { trade_id: number }).trade_id}`)).size;
    await eventually(
      () => checkArchive(target, newTally(), landed, WINDOW.from, WINDOW.to),
      (c) => c.read >= expectedRows,
      120_000,
    );
    expect(await compactOnce()).toBe(true);
    const check = await checkArchive(target, newTally(), landed, WINDOW.from, WINDOW.to);
    expect(check).toMatchObject({ expected: expectedRows, read: expectedRows, lost: [], twice: [], differing: [] });
  });

  it("counts allowances and the day's deliveries once each when counting writes land unanswered and are sent again", async () => {
    cloud.faults!.setPlan(writesLandUnanswered(13, 0.2));
    await Promise.all([queueDeliveries(3), churnAllowances()]);
    const report = cloud.faults!.report();
    cloud.faults!.setPlan(NO_FAULTS);
    expect(report.injected['dynamodb UpdateItem reset landed']).toBeGreaterThan(0);
    const allowances = await checkAllowances();
    expect(allowances.counted).toEqual(allowances.held);
  });

  it('detects each liquidation burst once and delivers it once per subscription under the 5% plan and duplicate deliveries', async () => {
    const pro = { ...target, key: KEYS.pro };
    const endpoint = await call(pro, newTally(), 'POST', '/v1/webhooks/endpoints', { url: receiver.url('/detect') });
    expect(endpoint.status).toBe(201);
    // Two subscriptions whose thresholds both fire on every burst: two deliveries an occurrence.
    const subscriptions = [];
    for (const threshold of [20_000, 40_000]) {
      const res = await call(pro, newTally(), 'POST', '/v1/webhooks/subscriptions', {
        endpoint_id: endpoint.body.data.id,
        event_type: 'market.liquidation_burst',
        filters: { venue: 'perpx', symbols: ['BTC'], window_s: 60, threshold_usd: threshold },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      subscriptions.push(res.body.data.id);
    }
    const MIN = 60_000;
    const base = Math.floor(Date.now() / MIN) * MIN - 20 * MIN;
    // Three bursts (two 45,000 USD liquidations each) four minutes apart: three rising edges.
    const bursts = [1, 5, 9].flatMap((m, i) => [0, 1].map((j) => liquidation(base + m * MIN + 10_000 + j, 7_000 + 2 * i + j)));
    await landBatch(target, new Date(base).toISOString().slice(0, 10), 'bursts', bursts);
    await eventually(
      () => callPatiently(pro, newTally(), 'GET', `/v1/perpx/liquidations/BTC?start=${base}&end=${base + 15 * MIN}`),
      (r) => r.body.data?.length === bursts.length,
      60_000,
    );

    await invoke('detect', { time: new Date(base).toISOString() }); // sets the job's cursor before the bursts
    cloud.faults!.setPlan(flakyStores(41, 0.05));
    // Run as the schedule would: a failed run is retried with the same event time, so it covers the same minutes.
    const runs: unknown[] = [];
    for (let i = 0; i < 10; i += 1) {
      const result = await invoke('detect', { time: new Date(base + 15 * MIN).toISOString() }).catch((error: unknown) => ({ error: String(error) }));
      runs.push(result);
      if (!(result as { error?: string }).error) break;
    }
    expect(runs.at(-1), JSON.stringify(runs)).not.toHaveProperty('error');
    // And once more, as a retried invocation whose first run had finished.
    await invoke('detect', { time: new Date(base + 15 * MIN).toISOString() }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 5_000)); // deliveries go on under the faults
    const report = cloud.faults!.report();
    cloud.faults!.setPlan(NO_FAULTS);
    expect(Object.values(report.injected).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);

    const log = await eventually(
      () => call(pro, newTally(), 'GET', `/v1/webhooks/endpoints/${endpoint.body.data.id}/deliveries?limit=200`),
      (r) => r.body.data?.length >= 6 && r.body.data.every((d: { state: string }) => d.state === 'delivered'),
      120_000,
    );
    const records = log.body.data as { event_id: string; subscription_id: string; payload: { data: { ts?: string } } }[];
    expect(records).toHaveLength(6);
    expect(new Set(records.map((d) => d.event_id)).size).toBe(6);
    for (const id of subscriptions) expect(records.filter((d) => d.subscription_id === id)).toHaveLength(3);
    expect([...detected.keys()].sort()).toEqual(records.map((d) => d.event_id).sort());
    expect(differingDuplicates).toEqual([]);
  });

  it("answers a read the manifest cannot serve (throttled through every SDK retry) with the spec's 503 and Retry-After", async () => {
    cloud.faults!.setPlan(parseFaultPlan({ seed: 17, rules: [{ service: 'dynamodb', operation: 'Query', fault: 'throttle', rate: 1 }] }));
    const res = await fetch(`${cloud.url}/v1/perpx/trades/BTC?start=${WINDOW.from}&end=${WINDOW.to - 1}`, { headers: { 'X-API-Key': KEYS.build } });
    const report = cloud.faults!.report();
    cloud.faults!.setPlan(NO_FAULTS);
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.json()).toMatchObject({ success: false, code: 503, error_code: 'upstream_unavailable', request_id: expect.any(String) });
    expect(report.injected['dynamodb Query throttle']).toBeGreaterThan(1);
  });

  it('completes compaction killed at each of its write points on the next run, with no orphan left once its deletion is due', async () => {
    const batches = tradeBatches(23, 3, DAY1, 2);
    for (const [i, batch] of batches.entries()) {
      landed.push(...batch);
      await landBatch(target, DAYS[1]!, `killed-${i}`, batch);
    }
    // And an hour that closed lately: merged into a delta compaction (`m-`), then folded into hour files.
    const hourAgo = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;
    const recent = tradeBatches(29, 1, hourAgo, 1 / 24)[0]!;
    await landBatch(target, new Date(hourAgo).toISOString().slice(0, 10), 'killed-recent', recent);
    const recentWindow = { from: hourAgo, to: hourAgo + 3_600_000 };
    const recentRows = new Set(recent.map((r) => `${r.symbol}#${(r as { trade_id: number }).trade_id}`)).size;
    const expectedRows = new Set(landed.map((r) => `${r.symbol}#${(r as { trade_id: number }).trade_id}`)).size;
    await eventually(
      () => checkArchive(target, newTally(), landed, WINDOW.from, WINDOW.to),
      (c) => c.read >= expectedRows,
      120_000,
    );
    await eventually(
      () => checkArchive(target, newTally(), recent, recentWindow.from, recentWindow.to),
      (c) => c.read >= recentRows,
      120_000,
    );
    cloud.faults!.setPlan(killedAtWritePoints(23));
    const runs: boolean[] = [];
    for (let i = 0; i < 6 && !runs.at(-1); i += 1) runs.push(await compactOnce());
    const report = cloud.faults!.report();
    cloud.faults!.setPlan(NO_FAULTS);
    expect(runs[0], `${JSON.stringify(runs)} ${lastCompaction} ${JSON.stringify(report)}`).toBe(false);
    expect(runs.at(-1)).toBe(true);
    // Every kill point of the plan was reached: after the object's write, before and after a manifest write, the retirement.
    expect(Object.keys(report.injected).sort()).toEqual([
      'dynamodb DeleteItem server-error',
      'dynamodb PutItem reset landed',
      'dynamodb PutItem server-error',
      's3 PUT reset landed',
    ]);
    expect(await compactOnce()).toBe(true);

    const check = await checkArchive(target, newTally(), landed, WINDOW.from, WINDOW.to);
    expect(check).toMatchObject({ expected: expectedRows, read: expectedRows, lost: [], twice: [], differing: [] });
    expect(await checkArchive(target, newTally(), recent, recentWindow.from, recentWindow.to)).toMatchObject({
      expected: recentRows,
      read: recentRows,
      lost: [],
      twice: [],
      differing: [],
    });
    const objects = await checkObjects(target, archiveDeps(), [
      ...DAYS,
      ...new Set([recentWindow.from, Date.now()].map((t) => new Date(t).toISOString().slice(0, 10))),
    ]);
    expect(objects.missing).toEqual([]);
    expect(objects.orphans).toEqual([]);
  });

  it('keeps the same archive and deliveries when every SQS message is handed out twice, some after their visibility timeout', async () => {
    cloud.faults!.setPlan(everyMessageTwice(37, 5_000));
    const batches = tradeBatches(37, 3, DAY1, 2);
    for (const [i, batch] of batches.entries()) {
      landed.push(...batch);
      await landBatch(target, DAYS[1]!, `twice-${i}`, batch);
    }
    await queueDeliveries(4);
    const expectedRows = new Set(landed.map((r) => `${r.symbol}#${(r as { trade_id: number }).trade_id}`)).size;
    await eventually(
      () => checkArchive(target, newTally(), landed, WINDOW.from, WINDOW.to),
      (c) => c.read >= expectedRows,
      120_000,
    );
    // The copies handed out after the timeout are ingested too (and find their batch done).
    await eventually(
      () => cloud.faults!.report().injected['sqs ReceiveMessage duplicate'] ?? 0,
      (n) => n >= batches.length,
      60_000,
    );
    expect(cloud.faults!.report().injected['sqs ReceiveMessage visibility shortened']).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    cloud.faults!.setPlan(NO_FAULTS);
    expect(await compactOnce()).toBe(true);
    const check = await checkArchive(target, newTally(), landed, WINDOW.from, WINDOW.to);
    expect(check).toMatchObject({ expected: expectedRows, read: expectedRows, lost: [], twice: [], differing: [] });
  });

  // Every accepted delivery arrives: an attempt's claim names its holder, so a claim that landed
  // unanswered and was sent again by the SDK is its own (before, its job was dropped as another
  // worker's, and with no overdue sweep in this cloud the delivery was never sent again).
  it('delivers every accepted delivery through the ladder (a duplicate carries the same event id), and nothing not accepted', async () => {
    expect(accepted.size).toBeGreaterThan(0);
    await eventually(
      () => [...accepted].filter((id) => !delivered.has(id)),
      (missing) => missing.length === 0,
      120_000,
    );
    const received = new Set(receiver.requests.filter((r) => r.path === '/faults').map((r) => String(r.headers['svc-event-id'])));
    expect([...received].filter((id) => !accepted.has(id))).toEqual([]);
  });

  it('exports what the archive holds, under faults', async () => {
    cloud.faults!.setPlan(flakyStores(53, 0.05));
    const tally = newTally();
    const created = await callPatiently(target, tally, 'POST', '/v1/exports', {
      schema: 'trades',
      family: 'perpx',
      symbols: ['SOL'],
      start: WINDOW.from,
      end: WINDOW.to,
    });
    expect(created.status).toBe(202);
    const job = await eventually(
      () => callPatiently(target, tally, 'GET', `/v1/exports/${created.body.data.id}`),
      (r) => ['completed', 'failed', 'canceled'].includes(r.body.data?.state),
      120_000,
    );
    cloud.faults!.setPlan(NO_FAULTS);
    expect(job.body.data.state).toBe('completed');
    const rest = await readTrades(target, newTally(), 'SOL', WINDOW.from, WINDOW.to);
    expect(job.body.data.files.reduce((n: number, f: { rows: number }) => n + f.rows, 0)).toBe(rest.length);
    expect(tally.statuses[500]).toBeUndefined();
  });

  it('completes an export killed once at each of its write points, each file whole, and keeps no object its jobs do not list', async () => {
    // The job's end is announced once (a retried Finish sends the same event again).
    const subscribed = await call(target, newTally(), 'POST', '/v1/webhooks/subscriptions', { endpoint_id: endpointId, event_type: 'export.job.completed' });
    expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(201);
    cloud.faults!.setPlan(exportKilledAtWritePoints(59));
    const tally = newTally();
    const created = await createTradesExport(tally);
    expect(created.status).toBe(202);
    const job = await eventually(
      () => call(target, tally, 'GET', `/v1/exports/${created.body.data.id}`),
      (r) => ['completed', 'failed', 'canceled'].includes(r.body.data?.state),
      120_000,
    );
    expect(job.body.data.state, JSON.stringify(job.body.data)).toBe('completed');
    // The completion landed before Finish was killed; its retry announces (and is killed once more doing so).
    await eventually(
      () => cloud.faults!.report().injected['sqs SendMessage server-error'] ?? 0,
      (n) => n > 0,
      60_000,
    );
    const report = cloud.faults!.report();
    cloud.faults!.setPlan(NO_FAULTS);
    const announced = await eventually(
      () => receiver.requests.filter((r) => r.headers['svc-event-type'] === 'export.job.completed' && r.body.includes(created.body.data.id)),
      (r) => r.some((q) => delivered.has(String(q.headers['svc-event-id']))),
      120_000,
    );
    expect(new Set(announced.map((r) => r.headers['svc-event-id'])).size).toBe(1);
    expect(Object.keys(report.injected).sort()).toEqual([
      'dynamodb PutItem server-error',
      'dynamodb UpdateItem reset landed',
      's3 PUT reset landed',
      'sqs SendMessage server-error',
    ]);
    expect(report.injected['dynamodb UpdateItem reset landed']).toBeGreaterThan(RETRY_SETTINGS.background.dynamodb.maxAttempts); // both the count and the completion
    // Each file holds its symbol-day's rows as the archive reads them, counted once, and its object is the one its entry describes.
    expect(await checkExport(target, exportsBucket(), exportDeps(), created.body.data.id)).toEqual({
      state: 'completed',
      files: SYMBOLS.length,
      rowsDiffering: [],
      objectsDiffering: [],
    });
    expect(job.body.data.progress.rows_written).toBe(job.body.data.files.reduce((n: number, f: { rows: number }) => n + f.rows, 0));
    expect(await checkExportObjects(target, exportsBucket(), exportDeps())).toMatchObject({ missing: [], unlisted: [] });
  });

  it('deletes the files a cancel could not, once their checks come due', async () => {
    cloud.faults!.setPlan(exportCancelUndeleted(61, SYMBOLS.length - 1));
    const tally = newTally();
    const created = await createTradesExport(tally);
    expect(created.status).toBe(202);
    const id = created.body.data.id as string;
    const ofJob = (keys: string[]) => keys.filter((k) => k.includes(`/${id}/`));
    // The other partitions written while the last waits for its retry: then the owner cancels.
    await eventually(
      () => call(target, tally, 'GET', `/v1/exports/${id}`),
      (r) => r.body.data?.progress.partitions_done === SYMBOLS.length - 1,
      60_000,
    );
    const canceled = await call(target, tally, 'DELETE', `/v1/exports/${id}`);
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    expect(canceled.body.data.state).toBe('canceled');
    // The last partition's last retry finds the job canceled (its own deletion fails too) or never runs.
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    const report = cloud.faults!.report();
    cloud.faults!.setPlan(NO_FAULTS);
    expect(report.injected['s3 POST server-error']).toBeGreaterThan(0);
    // Not before their checks are due; gone once they are (within a day).
    expect(ofJob((await checkExportObjects(target, exportsBucket(), exportDeps(), 0)).unlisted).length).toBeGreaterThanOrEqual(SYMBOLS.length - 1);
    expect(await checkExportObjects(target, exportsBucket(), exportDeps(), 24)).toMatchObject({ missing: [], unlisted: [] });
  });
});

const exportsBucket = () => cloud.emulators.names.buckets.exports;
const exportDeps = () => ({ exports: exportStore(), exportObjects: exportObjects(), clock: { now: () => Date.now() } });
