/**
 * A first start stopped while it writes the older days (Ctrl-C during the seed) and started again on
 * the same data directory: the second start simulates the older days again (the same market: the
 * seed decides it) and ingest skips the batches it already has, so the archive ends with every trade
 * of those days exactly once, as a simulation of them from scratch makes them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalCloud, type LocalCloud } from '#local/cloud.ts';
import type { SeedProgress } from '#local/demo-feed.ts';
import { createDemoMarket } from '#local/demo/market.ts';
import { createUpstream } from '#local/demo/upstream.ts';
import { sharedTemplate } from '../helpers/local-cloud.ts';
import { eventually, keyedGet, walkPages } from '../helpers/api.ts';

const KEY = 'seeding-resume-key';
const HOUR = 3_600_000;
// Five hours, the newest one first: the older four or more are a batch of three hours and a shorter one, so a stop can fall between them.
const DEMO = { days: 5 / 24, nearHours: 1, seed: 5, intensity: 0.05, l2IntervalMs: 600_000, orderLevelHours: 0, live: false };
const dataDir = mkdtempSync(join(tmpdir(), 'archive-resume-'));
let cloud: LocalCloud | undefined;

afterAll(async () => {
  await cloud?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const start = async (onProgress?: (p: SeedProgress) => void) =>
  (cloud = await startLocalCloud({
    port: 0,
    dataDir,
    logLevel: 'ERROR',
    template: await sharedTemplate(),
    apiKeys: [{ key: KEY, plan: 'pro' }],
    schedules: false,
    demo: { ...DEMO, onProgress },
  }));

type FeedState = { history?: { from: number; to: number } };
const feedState = (): FeedState => JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8'));

describe('a first start stopped while it writes the older days', () => {
  it('is completed by the next start: every trade of those days once, as a simulation of them from scratch makes them', async () => {
    // Prepare: stopped once an older batch is written and before the last is.
    const seen: SeedProgress[] = [];
    await start((p) => seen.push(p));
    await eventually(
      () =>
        seen
          .filter((p) => p.phase === 'history')
          .map((p) => p.written)
          .at(-1) ?? 0,
      (written) => {
        const nearBatches = seen.find((p) => p.phase === 'history')?.written ?? Infinity;
        return written > nearBatches;
      },
      600_000,
    );
    await cloud!.stop();
    cloud = undefined;
    const history = feedState().history!;
    expect(history.to - history.from).toBeGreaterThan(3 * HOUR);
    // Act
    await start();
    await cloud!.demo!.seeded;
    // Assess
    expect(feedState().history).toBeUndefined();
    const market = createDemoMarket({ seed: DEMO.seed, startMs: history.from, intensity: DEMO.intensity, l2IntervalMs: DEMO.l2IntervalMs });
    const upstream = createUpstream(DEMO.seed);
    const expected: number[] = [];
    for (let from = history.from; from < history.to; from += 3 * HOUR) {
      const until = Math.min(from + 3 * HOUR, history.to);
      const batch = upstream.apply(market.advance(until, { orderLevel: false }), from, until);
      for (const r of batch)
        if (r.dataset === 'trades' && r.family === 'perpx' && r.symbol === 'BTC') expected.push(Number((r as { trade_id: number }).trade_id));
    }
    const get = keyedGet(() => cloud!.url, KEY);
    const archived = await walkPages(get, '/v1/perpx/trades/BTC', { start: history.from, end: history.to - 1, limit: 1000 });
    expect(expected.length).toBeGreaterThan(0);
    expect(archived.map((t) => Number(t.trade_id)).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
  });
});
