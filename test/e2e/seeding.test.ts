/**
 * A first `npm start` answers while it seeds: the simulation and the ingest of its batches run in
 * processes of their own at `npm start`'s lower priority. Judged by order, not by time: every request sent
 * while the seed runs is answered before the simulation moves on by more than a few simulated
 * minutes (seeding in the gateway's process, a request waited for a whole batch: 180 of them),
 * the newest hour is readable while the older ones are still being simulated, and the routes that
 * need the seed's derived data answer as soon as it is done.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeedingDemoCloud } from '../helpers/local-cloud.ts';
import type { SeedProgress } from '#local/demo-feed.ts';
import { BACKGROUND_NICENESS } from '#local/sandbox.ts';

const KEY = 'seeding-key';
const MIN = 60_000;
/** How far the simulation may move while one request waits: a few of its minutes, of 180 a batch. */
const MOST_SIMULATED_WHILE_WAITING = 15 * MIN;

let cloud: Awaited<ReturnType<typeof startSeedingDemoCloud>>;
let latest: SeedProgress | undefined;
const seen: SeedProgress[] = [];

beforeAll(async () => {
  // Two or three hours (from the hour before), the newest one or two first (as npm start's DEMO_NEAR_HOURS), schedules
  // on (the breadth history is part of the seed only with them), no order-level history, nothing live after the seed.
  cloud = await startSeedingDemoCloud({
    key: KEY,
    hours: 2,
    nearHours: 1,
    seed: 11,
    intensity: 0.3,
    l2IntervalMs: 300_000,
    orderLevelHours: 0,
    schedules: true,
    live: false,
    niceness: BACKGROUND_NICENESS,
    onProgress: (progress) => {
      latest = progress;
      seen.push(progress);
    },
  });
});
afterAll(() => cloud?.stop());

/** Simulated time so far, over both spans (each phase's clock runs from its own start): grows as the seed does. */
function simulated(): number {
  const span = (phase: SeedProgress['phase']) => {
    const clocks = seen.filter((p) => p.phase === phase).map((p) => p.simulatedTo);
    return clocks.length === 0 ? 0 : Math.max(...clocks) - Math.min(...clocks);
  };
  return span('near') + span('history');
}

const tradesOf = async (from: number, to: number) => {
  const res = await fetch(`${cloud.url}/v1/perpx/trades/BTC?start=${from}&end=${to}&limit=10`, { headers: { 'X-API-Key': KEY } });
  return { status: res.status, count: res.ok ? ((await res.json()) as { data: unknown[] }).data.length : 0 };
};

describe('a first start while it seeds', () => {
  it('answers every request before the simulation moves on by more than a few minutes, and breadth as soon as the seed is done', async () => {
    let done = false;
    void cloud.demo!.seeded.finally(() => {
      done = true;
    });
    const requests: { path: string; status: number; sentAt: number; answeredAt: number }[] = [];
    const call = async (method: string, path: string, body?: unknown) => {
      const sentAt = simulated();
      const res = await fetch(cloud.url + path, {
        method,
        headers: { 'X-API-Key': KEY, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await res.arrayBuffer();
      requests.push({ path, status: res.status, sentAt, answeredAt: simulated() });
    };
    /** The newest hour's trades, read while the older hours were still being seeded. */
    let nearWhileOlder: { count: number; olderStillSeeding: boolean } | undefined;
    // Act: a client's first calls, over and over until the seed is done.
    for (let round = 0; !done; round++) {
      if (!nearWhileOlder && latest?.phase === 'history') {
        const nearSpan = seen.filter((p) => p.phase === 'near');
        const read = await tradesOf(Math.min(...nearSpan.map((p) => p.simulatedTo)) - MIN, nearSpan.at(-1)!.seedingTo);
        nearWhileOlder = { count: read.count, olderStillSeeding: !done && latest!.ingested < latest!.total };
      }
      await call('GET', '/v1/nope');
      await call('GET', '/v1/perpx/instruments');
      await call('GET', '/v1/perpx/trades/BTC');
      await call('POST', '/v1/webhooks/addresses', { address: `0x${'5'.repeat(40)}`, label: `round ${round}` });
      await call('GET', '/health');
    }
    // Assess: the newest hour was seeded and ingested first, and read while the older ones were still on their way.
    const firstOlder = seen.findIndex((p) => p.phase === 'history');
    expect(firstOlder).toBeGreaterThan(0);
    expect(seen.slice(firstOlder).every((p) => p.phase === 'history')).toBe(true);
    expect(seen[firstOlder]!.ingested).toBe(seen[firstOlder - 1]!.written);
    expect(nearWhileOlder).toEqual({ count: expect.any(Number), olderStillSeeding: true });
    expect(nearWhileOlder!.count).toBeGreaterThan(0);
    const olderSpan = seen.slice(firstOlder);
    expect((await tradesOf(Math.min(...olderSpan.map((p) => p.simulatedTo)) - MIN, olderSpan.at(-1)!.seedingTo)).count).toBeGreaterThan(0);
    // Requests went out while the simulation ran through at least half an hour.
    const during = requests.filter((r) => r.sentAt > 0);
    expect(during.at(-1)!.sentAt - during[0]!.sentAt).toBeGreaterThanOrEqual(30 * MIN);
    for (const r of requests) {
      expect(r.status, r.path).toBe(r.path === '/v1/nope' ? 404 : r.path === '/v1/webhooks/addresses' ? 201 : 200);
      expect(
        r.answeredAt - r.sentAt,
        `${r.path} waited from ${new Date(r.sentAt).toISOString()} to ${new Date(r.answeredAt).toISOString()} simulated`,
      ).toBeLessThanOrEqual(MOST_SIMULATED_WHILE_WAITING);
    }
    // The breadth history of the seeded span is part of the seed: the current snapshot and the
    // seeded span's history answer at once, the history counting the seeded markets.
    const current = await fetch(`${cloud.url}/v1/perpx/breadth/above-vwap/current`, { headers: { 'X-API-Key': KEY } });
    expect(current.status).toBe(200);
    const seedingTo = Math.floor(seen.filter((p) => p.phase === 'near').at(-1)!.seedingTo / MIN) * MIN;
    const history = await fetch(`${cloud.url}/v1/perpx/breadth/above-vwap?start=${seedingTo - 30 * MIN}&end=${seedingTo - 5 * MIN}&limit=1000`, {
      headers: { 'X-API-Key': KEY },
    });
    const snapshots = ((await history.json()) as { data: { counts: { candidates: number } }[] }).data;
    expect(snapshots).toHaveLength(26);
    expect(snapshots.every((s) => s.counts.candidates > 0)).toBe(true);
  });
});
