import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoCloud, startFreshDemoCloud } from '../helpers/local-cloud.ts';
import { eventually } from '../helpers/api.ts';
import { invoke } from '#local/invoke.ts';
import { CopyObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { everyMessageTwice, flakyStores } from '#local/fault-plans.ts';
import { call, newTally, type FlowTarget } from '#local/fault-flows.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';
import { NO_FAULTS } from '#schemas/fault-plan.ts';

const KEY = 'breadth-test-key';
const MIN = 60_000;
let cloud: Awaited<ReturnType<typeof startDemoCloud>>;
let lastCutoff: number;
beforeAll(async () => {
  // Behind the fault proxy, off until the test of AWS's faults turns a plan on (issue 44).
  cloud = await startDemoCloud({ key: KEY, faults: NO_FAULTS });
  // The last 25 minute cutoffs, at least 5 s after the last (so every live batch before it has been
  // ingested): the minute job at the last, the backfill (the same snapshots, a day per query) before it.
  lastCutoff = Math.floor((Date.now() - 5_000) / MIN) * MIN;
  await invoke('breadth', { backfill: { from: lastCutoff - 24 * MIN, to: lastCutoff - MIN } });
  await invoke('breadth', { time: new Date(lastCutoff).toISOString() });
});
afterAll(async () => {
  await cloud?.stop();
});

async function get(path: string, query: Record<string, string | number> = {}) {
  const url = new URL(cloud.url + path);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  const res = await fetch(url, { headers: { 'X-API-Key': KEY } });
  return { status: res.status, body: (await res.json()) as any };
}

function expectInvariants(s: any) {
  const c = s.counts;
  expect(c.above + c.at + c.below).toBe(c.eligible);
  expect(c.eligible + c.excluded_no_session_volume + c.excluded_stale_price).toBe(c.candidates);
  expect(s.value_pct === null ? c.eligible === 0 : Math.abs(s.value_pct - (100 * c.above) / c.eligible) < 1e-4).toBe(true);
}

const CORE = '/v1/perpx/breadth/above-vwap';
const HIP3 = '/v1/perpx/hip3/breadth/above-vwap';

describe('breadth routes', () => {
  it('serves the latest snapshot on /current, one object, count 1', async () => {
    const res = await get(`${CORE}/current`);
    expect(res.status).toBe(200);
    expect(res.body.meta.count).toBe(1);
    expect(res.body.data.calculated_at).toBe(new Date(lastCutoff).toISOString());
    expectInvariants(res.body.data);
    expect(res.body.data.counts.eligible).toBeGreaterThan(0);
    expect(res.body.data.namespaces).toEqual({ eligible: {}, above: {}, at: {}, below: {} });
  });

  it('counts hip3 per dex and omits dexes with no count', async () => {
    const { body } = await get(`${HIP3}/current`);
    expectInvariants(body.data);
    const dexes = Object.keys(body.data.namespaces.eligible);
    expect(dexes.length).toBeGreaterThan(0);
    for (const map of Object.values(body.data.namespaces) as Record<string, number>[]) expect(Object.values(map).every((n) => n > 0)).toBe(true);
  });

  it('matches a snapshot recomputed independently from the candle routes', async () => {
    const { body: current } = await get(`${CORE}/current`);
    const { body: registry } = await get('/v1/perpx/instruments');
    const session = lastCutoff - (lastCutoff % 86_400_000);
    let above = 0;
    let below = 0;
    let at = 0;
    let noVolume = 0;
    let stale = 0;
    const candidates = registry.data.filter((i: any) => i.is_active && Date.parse(i.listed_at) <= lastCutoff);
    for (const instrument of candidates) {
      const { body } = await get(`/v1/perpx/candles/${instrument.symbol}`, { interval: '1m', start: session, end: lastCutoff - MIN + 1, limit: 10_000 });
      const candles = body.data.filter((c: any) => Date.parse(c.timestamp) + MIN <= lastCutoff);
      const base = candles.reduce((s: number, c: any) => s + c.volume, 0);
      const quote = candles.reduce((s: number, c: any) => s + c.quote_volume, 0);
      if (!(base > 0)) {
        noVolume++;
        continue;
      }
      const last = candles[candles.length - 1];
      if (lastCutoff - (Date.parse(last.timestamp) + MIN) > 5 * MIN) {
        stale++;
        continue;
      }
      const vwap = quote / base;
      if (Math.abs(last.close - vwap) < 1e-9 * vwap) at++;
      else if (last.close > vwap) above++;
      else below++;
    }
    expect(current.data.counts).toEqual({
      candidates: candidates.length,
      eligible: above + at + below,
      above,
      at,
      below,
      excluded_no_session_volume: noVolume,
      excluded_stale_price: stale,
    });
  });

  it('serves ascending minute history with every snapshot consistent, and pages with an exclusive epoch-ms cursor', async () => {
    const window = { start: lastCutoff - 30 * MIN, end: lastCutoff };
    const all = await get(CORE, { ...window, limit: 1000 });
    expect(all.body.data).toHaveLength(25);
    all.body.data.forEach(expectInvariants);
    const times = all.body.data.map((s: any) => Date.parse(s.calculated_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const walked: any[] = [];
    let cursor: string | undefined;
    do {
      const res = await get(CORE, { ...window, limit: 7, ...(cursor && { cursor }) });
      walked.push(...res.body.data);
      expect('next_cursor' in res.body.meta).toBe(res.body.meta.has_more);
      cursor = res.body.meta.next_cursor;
      if (cursor) expect(cursor).toBe(String(Date.parse(res.body.data.at(-1).calculated_at)));
    } while (cursor);
    expect(walked.map((s) => s.calculated_at)).toEqual(all.body.data.map((s: any) => s.calculated_at));
  });

  it('takes the last snapshot of each bucket with interval, never an average', async () => {
    const window = { start: lastCutoff - 30 * MIN, end: lastCutoff };
    const raw = (await get(CORE, { ...window, limit: 1000 })).body.data;
    const bucketed = (await get(CORE, { ...window, interval: '5m' })).body.data;
    const expected = new Map<number, any>();
    for (const s of raw) expected.set(Math.floor(Date.parse(s.calculated_at) / (5 * MIN)), s);
    expect(bucketed).toEqual([...expected.values()]);
  });

  it('clamps limit above 1000 silently and refuses an unsupported interval naming the accepted ones', async () => {
    expect((await get(CORE, { limit: 50_000 })).status).toBe(200);
    expect((await get(CORE, { interval: '2m' })).body).toMatchObject({
      code: 400,
      error_code: 'invalid_interval',
      param: 'interval',
      valid_values: ['5m', '15m', '30m', '1h', '4h', '1d'],
    });
  });

  it('returns an empty series for a window ending before the first snapshot, and before coverage', async () => {
    expect((await get(CORE, { start: lastCutoff - 5 * 86_400_000, end: lastCutoff - 2 * 86_400_000 })).body.data).toEqual([]);
    expect((await get(HIP3, { start: Date.UTC(2026, 0, 1), end: Date.UTC(2026, 7, 1) })).body.data).toEqual([]);
    // An older end alone keeps the default start (empty series); a window spelled out backwards is refused.
    expect((await get(CORE, { end: lastCutoff - 2 * 86_400_000 })).body.data).toEqual([]);
    expect((await get(CORE, { start: lastCutoff, end: lastCutoff - 60_000 })).body).toMatchObject({
      code: 400,
      error_code: 'invalid_time_range',
      param: 'start',
    });
  });

  it('rewrites the same snapshot when a minute is recomputed', async () => {
    const before = (await get(CORE, { start: lastCutoff, end: lastCutoff })).body.data;
    await invoke('breadth', { time: new Date(lastCutoff + 5_000).toISOString() });
    const after = (await get(CORE, { start: lastCutoff, end: lastCutoff })).body.data;
    expect(after).toHaveLength(1);
    expect(after[0].counts).toEqual(before[0].counts);
  });

  it('writes the same snapshots (backfill and minute job) under the 5% plan as without faults', async () => {
    const window = { start: lastCutoff - 24 * MIN, end: lastCutoff + 1, limit: 1000 };
    const clean = (await get(CORE, window)).body.data;
    const cleanMinute = await invoke('breadth', { time: new Date(lastCutoff).toISOString() });
    cloud.faults!.setPlan(flakyStores(61, 0.05));
    // Run as the schedule runs them: a failed run is run again with the same event.
    const runAsScheduled = async (event: unknown) => {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await invoke('breadth', event);
        } catch (error) {
          if (attempt >= 10) throw error;
        }
      }
    };
    let faultedMinute: unknown;
    try {
      await runAsScheduled({ backfill: { from: lastCutoff - 24 * MIN, to: lastCutoff - MIN } });
      faultedMinute = await runAsScheduled({ time: new Date(lastCutoff).toISOString() });
    } finally {
      const injected = Object.values(cloud.faults!.report().injected).reduce((a, b) => a + b, 0);
      cloud.faults!.setPlan(NO_FAULTS);
      expect(injected).toBeGreaterThan(0);
    }
    expect(faultedMinute).toEqual(cleanMinute);
    expect((await get(CORE, window)).body.data).toEqual(clean);
  });

  it("answers breadth reads 200, or 503 with Retry-After and the spec's body, under the 5% plan: never a 500", async () => {
    const s3 = new S3Client({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: cloud.emulators.endpoints.s3, forcePathStyle: true });
    const target: FlowTarget = { url: cloud.url, key: KEY, s3, bucket: cloud.emulators.names.buckets.archive };
    const tally = newTally();
    // A higher rate than the plan's 5%, so that some reads meet a store failing through every SDK retry.
    cloud.faults!.setPlan(flakyStores(67, 0.3));
    try {
      for (let i = 0; i < 15; i += 1) {
        await Promise.all([
          call(target, tally, 'GET', `${CORE}/current`),
          call(target, tally, 'GET', `${HIP3}/current`),
          call(target, tally, 'GET', `${CORE}?start=${lastCutoff - 24 * MIN}&end=${lastCutoff}&limit=1000`),
          call(target, tally, 'GET', `${HIP3}?start=${lastCutoff - 24 * MIN}&end=${lastCutoff}&interval=5m`),
        ]);
      }
    } finally {
      const injected = Object.values(cloud.faults!.report().injected).reduce((a, b) => a + b, 0);
      cloud.faults!.setPlan(NO_FAULTS);
      s3.destroy();
      expect(injected).toBeGreaterThan(0);
    }
    expect(Object.keys(tally.statuses).sort()).toEqual(expect.arrayContaining(['200']));
    expect(Object.keys(tally.statuses).filter((status) => status !== '200' && status !== '503')).toEqual([]);
    expect(tally.badUnavailable).toEqual([]);
  });

  it('writes the same snapshots when batches land twice and every SQS message is handed out twice', async () => {
    const window = { start: lastCutoff - 24 * MIN, end: lastCutoff + 1, limit: 1000 };
    const clean = (await get(CORE, window)).body.data;
    const cleanMinute = await invoke('breadth', { time: new Date(lastCutoff).toISOString() });
    const s3 = new S3Client({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: cloud.emulators.endpoints.s3, forcePathStyle: true });
    const bucket = cloud.emulators.names.buckets.archive;
    try {
      // The newest batches the demo landed before the last cutoff, landed again under other names: the same bytes, so the same batches.
      const prefix = `landing/normalized/${new Date(lastCutoff - MIN).toISOString().slice(0, 10)}/demo-`;
      const keys: string[] = [];
      let ContinuationToken: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken }));
        keys.push(...(page.Contents ?? []).map((o) => o.Key!));
        ContinuationToken = page.NextContinuationToken;
      } while (ContinuationToken);
      const recent = keys
        .filter((key) => Number(/demo-(\d+)-/.exec(key)?.[1]) < lastCutoff - MIN)
        .sort()
        .slice(-3);
      expect(recent.length).toBeGreaterThan(0);
      cloud.faults!.setPlan(everyMessageTwice(71, 3_000));
      for (const key of recent) {
        await s3.send(new CopyObjectCommand({ Bucket: bucket, CopySource: `${bucket}/${key}`, Key: key.replace('/demo-', '/again-demo-') }));
      }
      // Each copy's notification, and its duplicate, ingested (the duplicates find their batch done).
      await eventually(
        () => cloud.faults!.report().injected['sqs ReceiveMessage duplicate'] ?? 0,
        (n) => n >= recent.length,
        60_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    } finally {
      cloud.faults!.setPlan(NO_FAULTS);
      s3.destroy();
    }
    await invoke('breadth', { backfill: { from: lastCutoff - 24 * MIN, to: lastCutoff - MIN } });
    expect(await invoke('breadth', { time: new Date(lastCutoff).toISOString() })).toEqual(cleanMinute);
    expect((await get(CORE, window)).body.data).toEqual(clean);
  });

  it('has no spot or hip4 breadth', async () => {
    expect((await get('/v1/perpx/spot/breadth/above-vwap/current')).status).toBe(404);
    expect((await get('/v1/perpx/hip4/breadth/above-vwap')).status).toBe(404);
  });
});

describe('breadth history of a first start', () => {
  it('covers the seeded span when the schedules run, as `npm start` does', async () => {
    // Prepare: 40 minutes seeded, schedules on (the minute job writes only the minutes after the seed);
    // no order-level history and no live batches after the seed, which this reads none of (the
    // schedules would compact and detect over them all the while).
    const first = await startFreshDemoCloud({
      key: KEY,
      hours: 40 / 60,
      seed: 6,
      intensity: 0.3,
      l2IntervalMs: 300_000,
      orderLevelHours: 0,
      schedules: true,
      live: false,
    });
    try {
      const seededTo = Math.floor(Date.now() / MIN) * MIN;
      const call = async (query: Record<string, number>) => {
        const url = new URL(`${first.url}${CORE}`);
        for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
        return (await (await fetch(url, { headers: { 'X-API-Key': KEY } })).json()) as any;
      };
      // Act: the span's backfill is part of the seed: readable as soon as the seed is done.
      const window = { start: seededTo - 30 * MIN, end: seededTo - 5 * MIN, limit: 1000 };
      const history = (await call(window)).data as any[];
      // Assess: one consistent snapshot a minute across the seeded span.
      expect(history.map((s) => Date.parse(s.calculated_at))).toEqual(Array.from({ length: 26 }, (_, i) => window.start + i * MIN));
      history.forEach(expectInvariants);
      expect(history.some((s) => s.counts.eligible > 0)).toBe(true);
    } finally {
      await first.stop();
    }
  });
});
