/**
 * Estimate and dry-run on the local cloud's demo archive (the run's shared hours of every market,
 * its liquidations compacted as the schedule would): every estimable type at lookback 1, 7 and 30
 * answers 200 with `per_day` of the length asked, oldest first and ending today, and a ladder
 * ascending in its threshold and never rising in its rate; the liquidation estimate read from the
 * hourly rollup counts what a replay of the same window counts; a whole-day dry-run of each type
 * answers 200 (or, out of time before any page, 504), never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, startDemoCloud, KEYS } from '../helpers/local-cloud.ts';
import { apiClient } from '../helpers/api.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { createWallets } from '#local/demo/wallets.ts';
import { DRY_RUN_TYPES, ESTIMATE_TYPES } from '#core/events/registry.ts';

const KEY = 'estimate-test-key';
/** The shared budget is 6 calls a minute per account: each type asks through its own account. */
const TYPE_KEYS = ESTIMATE_TYPES.map((type, i) => ({ type, key: `estimate-${i}-key` }));
const DAY = 86_400_000;
let cloud: Awaited<ReturnType<typeof startDemoCloud>>;
const call = apiClient(() => cloud.url);

beforeAll(async () => {
  cloud = await startDemoCloud({
    key: KEY,
    extraKeys: [...TYPE_KEYS.map(({ key }) => ({ key, plan: 'pro' as const })), { key: KEYS.build, plan: 'build' }],
  });
  // What the minute schedule does (off in tests): the closed day into day files, the open day's closed
  // hours into hour files. Trades stay deltas (their compaction, three quarters of this file's CPU,
  // is what the rollup integration tests prove): the trade-based types' estimates replay them.
  await compactArchive(archiveDeps(), { datasets: ['liquidations', 'transfers'] });
  // Account types need a watched wallet: the demo's first trader.
  const wallet = createWallets(DEMO.seed).demo[0]!.address;
  for (const { key } of [...TYPE_KEYS, { key: KEYS.build }]) expect((await call(key, 'POST', '/v1/webhooks/addresses', { address: wallet })).status).toBe(201);
});
afterAll(async () => {
  await cloud?.stop();
});

describe('estimates on the demo archive', () => {
  it('answers every estimable type at lookback 1, 7 and 30 with per_day of that length and a monotone ladder', async () => {
    const today = new Date().toISOString().slice(0, 10);
    for (const lookback of [1, 7, 30]) {
      for (const { type, key } of TYPE_KEYS) {
        const { status, body } = await call(key, 'POST', '/v1/webhooks/subscriptions/estimate', { event_type: type, lookback_days: lookback });
        expect({ type, lookback, status }).toEqual({ type, lookback, status: 200 });
        const estimate = body.data;
        expect(estimate.per_day).toHaveLength(lookback);
        expect(estimate.per_day.at(-1).date).toBe(today);
        const dates = estimate.per_day.map((d: { date: string }) => Date.parse(d.date));
        dates.slice(1).forEach((date: number, i: number) => {
          expect(date - dates[i]).toBe(DAY);
        });
        expect(estimate.total).toBe(estimate.per_day.reduce((sum: number, d: { count: number }) => sum + d.count, 0));
        expect(estimate.ladder).toHaveLength(10);
        for (let i = 1; i < estimate.ladder.length; i++) {
          expect(estimate.ladder[i].value).toBeGreaterThanOrEqual(estimate.ladder[i - 1].value);
          expect(estimate.ladder[i].per_day).toBeLessThanOrEqual(estimate.ladder[i - 1].per_day);
        }
        expect(['exact', 'sampled', 'replayed']).toContain(estimate.basis.mode);
      }
    }
  });

  it('counts liquidations from the hourly rollup exactly as a replay of the same window does', async () => {
    const rollup = await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions/estimate', {
      event_type: 'market.liquidation',
      config: { min_notional_usd: 1_000 },
      lookback_days: 2,
    });
    // A condition the histogram cannot answer (true of every liquidation) makes the estimate replay the rows.
    const replay = await call(KEY, 'POST', '/v1/webhooks/subscriptions/estimate', {
      event_type: 'market.liquidation',
      config: {
        conditions: [
          { metric: 'notional_usd', op: '>=', value: 1_000 },
          { metric: 'side', op: 'in', value: ['long', 'short'] },
        ],
      },
      lookback_days: 2,
    });
    expect([rollup.status, replay.status]).toEqual([200, 200]);
    expect(rollup.body.data.basis).toMatchObject({ mode: 'exact', note: expect.stringMatching(/hourly rollups \([1-9]\d* family-hours\)/) });
    expect(replay.body.data.basis.mode).toBe('replayed');
    expect(rollup.body.data.total).toBeGreaterThan(0);
    // Yesterday is closed: equal. The demo keeps trading, so today may have grown between the two calls.
    expect(rollup.body.data.per_day[0]).toEqual(replay.body.data.per_day[0]);
    expect(replay.body.data.per_day[1].count).toBeGreaterThanOrEqual(rollup.body.data.per_day[1].count);
  });
});

describe('dry-run on the demo archive', () => {
  it('answers a whole day of every dry-run type with 200 (504 only when out of time), never a 500', async () => {
    for (const type of DRY_RUN_TYPES) {
      const key = TYPE_KEYS.find((k) => k.type === type)!.key;
      const { status, body } = await call(key, 'POST', '/v1/webhooks/subscriptions/dry-run', { event_type: type, lookback_s: 86_400 });
      expect([200, 504]).toContain(status);
      if (status === 504) expect(body).toMatchObject({ error_code: 'scan_timeout' });
      else expect(body.data.occurrences.length).toBeLessThanOrEqual(100);
    }
  });
});
