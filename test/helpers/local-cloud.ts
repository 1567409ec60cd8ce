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

/** The local cloud with a seeded demo market (`hours` of history), one API key (and any extra ones), schedules off unless asked. */
export async function startDemoCloud(options: {
  key: string; hours: number; seed: number; intensity: number; l2IntervalMs: number; orderLevelHours?: number; extraKeys?: readonly LocalKey[]; schedules?: boolean;
}): Promise<TestCloud> {
  const cloud = await startInTempDir({
    apiKeys: [{ key: options.key, plan: 'pro' }, ...(options.extraKeys ?? [])],
    schedules: options.schedules ?? false,
    demo: { days: options.hours / 24, seed: options.seed, intensity: options.intensity, l2IntervalMs: options.l2IntervalMs, orderLevelHours: options.orderLevelHours ?? 0.25 },
  });
  await cloud.demo!.seeded;
  return cloud;
}

/**
 * Runs the minute detection job (as its schedule would) over [from, to]: one run a minute into the
 * window sets the job's cursor, then one run per hour (the most a run covers) up to `to`.
 */
export async function runDetectionOver(from: number, to: number): Promise<void> {
  const { invoke } = await import('../../functions/local/invoke.ts');
  const HOUR = 3_600_000;
  for (let at = from + 2 * 60_000; ; at = Math.min(at + HOUR, to)) {
    await invoke('detect', { time: new Date(at).toISOString() });
    if (at >= to) break;
  }
}
