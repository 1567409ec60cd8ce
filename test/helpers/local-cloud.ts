/** Starts the whole local cloud (as `npm start` does) on a free port with a temporary data directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCloud, type LocalCloud, type LocalCloudOptions } from '../../functions/local/cloud.ts';
import type { LocalKey } from '../../functions/local/accounts.ts';

export const KEYS = { build: 'local-build-key', pro: 'local-pro-key', free: 'local-free-key' } as const;

type TestCloud = LocalCloud & { dataDir: string };

/** A local cloud in a fresh temporary directory, removed again by `stop()`. */
async function startInTempDir(options: Omit<LocalCloudOptions, 'dataDir' | 'port'>): Promise<TestCloud> {
  const dataDir = mkdtempSync(join(tmpdir(), 'archive-e2e-'));
  const cloud = await startLocalCloud({ port: 0, dataDir, logLevel: 'ERROR', ...options });
  return {
    ...cloud,
    dataDir,
    async stop() {
      await cloud.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function startTestCloud(options: { schedules?: boolean; pollers?: boolean; extraKeys?: readonly LocalKey[] } = {}): Promise<TestCloud> {
  return startInTempDir({
    apiKeys: [{ key: KEYS.build, plan: 'build' }, { key: KEYS.pro, plan: 'pro' }, { key: KEYS.free, plan: 'free' }, ...(options.extraKeys ?? [])],
    schedules: options.schedules ?? false,
    pollers: options.pollers,
  });
}

/** The local cloud with a seeded demo market (`hours` of history), one API key, schedules off. */
export async function startDemoCloud(options: {
  key: string; hours: number; seed: number; intensity: number; l2IntervalMs: number; orderLevelHours?: number; extraKeys?: readonly LocalKey[];
}): Promise<TestCloud> {
  const cloud = await startInTempDir({
    apiKeys: [{ key: options.key, plan: 'pro' }, ...(options.extraKeys ?? [])],
    schedules: false,
    demo: { days: options.hours / 24, seed: options.seed, intensity: options.intensity, l2IntervalMs: options.l2IntervalMs, orderLevelHours: options.orderLevelHours ?? 0.25 },
  });
  await cloud.demo!.seeded;
  return cloud;
}
