/**
 * `npm run bench -- --only first-start [--first-start-days N]`: a first `npm start` on a fresh data
 * directory, as a newcomer meets it: how soon the gateway answers, how long the seed (with its
 * breadth history) takes, and the latency of a client's first calls while it runs (a round of
 * five routes, one after another, over and over until the seed is done).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCloud } from '../functions/local/cloud.ts';
import { BACKGROUND_NICENESS } from '../functions/local/sandbox.ts';
import { localSettings } from '../functions/local/settings.ts';
import type { SeedProgress } from '../functions/local/demo-feed.ts';
import { figure, percentile } from './stats.ts';

const KEY = 'bench-first-start';

export async function benchFirstStart(options: { days: number }): Promise<void> {
  console.log(`\nFirst start: ${options.days} demo day(s) seeded from nothing, schedules on, a client calling throughout`);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-first-start-'));
  const startedAt = performance.now();
  const startedWall = Date.now();
  // npm start's defaults, from an environment that sets none.
  const settings = localSettings({});
  let latest: SeedProgress | undefined;
  const cloud = await startLocalCloud({
    port: 0,
    dataDir,
    apiKeys: [{ key: KEY, plan: 'pro' }],
    schedules: true,
    logLevel: 'ERROR',
    niceness: BACKGROUND_NICENESS,
    // npm start's demo: the newest hour first, then the older days.
    demo: {
      days: options.days,
      seed: settings.DEMO_SEED,
      intensity: settings.DEMO_INTENSITY,
      l2IntervalMs: settings.DEMO_L2_INTERVAL_S * 1000,
      orderLevelHours: settings.DEMO_ORDER_LEVEL_HOURS,
      nearHours: settings.DEMO_NEAR_HOURS,
      live: false,
      onProgress: (p) => {
        latest = p;
      },
    },
  });
  const answeringAt = performance.now();
  let seededAt: number | undefined;
  const seeded = cloud.demo!.seeded.then(() => {
    seededAt = performance.now();
  });
  let nearPastAt: number | undefined;
  const latencies: number[] = [];
  const errors = new Map<number, number>();
  try {
    const call = async (method: string, path: string, body?: unknown) => {
      const start = performance.now();
      const res = await fetch(cloud.url + path, {
        method,
        headers: { 'X-API-Key': KEY, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      latencies.push(performance.now() - start);
      if (res.status >= 500) errors.set(res.status, (errors.get(res.status) ?? 0) + 1);
      return { status: res.status, text };
    };
    while (seededAt === undefined) {
      await call('GET', '/v1/nope');
      await call('GET', '/v1/perpx/instruments');
      await call('GET', '/v1/perpx/trades/BTC');
      await call('POST', '/v1/webhooks/addresses', { address: `0x${'5'.repeat(40)}` });
      await call('GET', '/health');
      if (nearPastAt === undefined) {
        // The near past: a trade of the last hour before start is readable.
        const { status, text } = await call('GET', `/v1/perpx/trades/BTC?start=${Math.floor(startedWall - 3_600_000)}&limit=1`);
        if (status === 200 && (JSON.parse(text) as { data: unknown[] }).data.length > 0) nearPastAt = performance.now();
      }
    }
    await seeded;
    figure({ name: 'first start: the gateway answers after', value: (answeringAt - startedAt) / 1000, unit: 's' });
    figure({ name: `first start: ${options.days} day(s) seeded, breadth history included, after`, value: (seededAt! - startedAt) / 1000, unit: 's' });
    figure({
      name: 'first start: the last hour before start readable (a BTC trade) after',
      value: ((nearPastAt ?? performance.now()) - startedAt) / 1000,
      unit: 's',
    });
    figure({ name: 'first start: records seeded', value: latest?.records ?? 0, unit: 'records' });
    figure({ name: 'first start: a call while seeding, p50', value: percentile(latencies, 50), unit: 'ms', samples: latencies.length });
    figure({ name: 'first start: a call while seeding, p99', value: percentile(latencies, 99), unit: 'ms', samples: latencies.length });
    figure({ name: 'first start: a call while seeding, slowest', value: Math.max(...latencies), unit: 'ms', samples: latencies.length });
    figure({ name: 'first start: calls answered 5xx while seeding', value: [...errors.values()].reduce((a, b) => a + b, 0), unit: 'calls' });
  } finally {
    await cloud.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
