/** Starts the whole local cloud (as `npm start` does) on a free port with a temporary data directory. */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { inject } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCloud, type LocalCloud, type LocalCloudOptions } from '#local/cloud.ts';
import type { LocalKey } from '#local/accounts.ts';
import { DEMO, awaitFixture, demoOptions, type DemoProfile } from './run-fixtures.ts';
import type { ServiceTemplate } from '#local/template.ts';
import type { SeedProgress } from '#local/demo-feed.ts';

export { DEMO };

export const KEYS = { build: 'local-build-key', pro: 'local-pro-key', free: 'local-free-key' } as const;

type TestCloud = LocalCloud & { dataDir: string };

/** Waits for the run's fixture named (see `awaitFixture`). */
const runFixture = (name: 'template' | 'ready') => awaitFixture(inject('runFixturesDir'), name);

/** The run's one synthesis of the service stacks. */
export async function sharedTemplate(): Promise<ServiceTemplate> {
  return JSON.parse(readFileSync((await runFixture('template')).template, 'utf8')) as ServiceTemplate;
}

/**
 * The local cloud's function and gateway deadlines in tests, times the deployed ones: a test run
 * shares its machine (at load average 20 an authorizer call took over its 5 s), and a request
 * AWS would finish must not be cut off for it. What a deadline does is tested apart (unit tests
 * of the handlers, with their own context).
 */
const TEST_DEADLINE_SCALE = '5';

/** A local cloud in a fresh temporary directory, removed again by `stop()`. */
async function startInTempDir({ seededFrom, ...options }: Omit<LocalCloudOptions, 'dataDir' | 'port'> & { seededFrom?: string }): Promise<TestCloud> {
  const dataDir = mkdtempSync(join(tmpdir(), 'archive-e2e-'));
  if (seededFrom) cpSync(seededFrom, dataDir, { recursive: true });
  // Read with the rest of the local cloud's settings when it starts; not left behind for the worker's next file.
  const scaled = process.env.LOCAL_DEADLINE_SCALE === undefined;
  if (scaled) process.env.LOCAL_DEADLINE_SCALE = TEST_DEADLINE_SCALE;
  const cloud = await startLocalCloud({ port: 0, dataDir, logLevel: 'ERROR', template: await sharedTemplate(), ...options });
  return {
    ...cloud,
    dataDir,
    async stop() {
      await cloud.stop();
      if (scaled) delete process.env.LOCAL_DEADLINE_SCALE;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function startTestCloud(
  options: { schedules?: boolean; pollers?: boolean; extraKeys?: readonly LocalKey[]; faults?: LocalCloudOptions['faults'] } = {},
): Promise<TestCloud> {
  return startInTempDir({
    apiKeys: [{ key: KEYS.build, plan: 'build' }, { key: KEYS.pro, plan: 'pro' }, { key: KEYS.free, plan: 'free' }, ...(options.extraKeys ?? [])],
    schedules: options.schedules ?? false,
    pollers: options.pollers,
    faults: options.faults,
  });
}

/**
 * The local cloud on a copy of the run's demo archive (`DEMO`), one API key (and any extra
 * ones), schedules off unless asked. The market goes on where the archive ends: the minutes since
 * it was seeded are written through ingest before this resolves; then, with `live`, a batch a
 * second (off by default: with schedules off nothing compacts, and a settled archive keeps each
 * file's reads as small as the minute compaction keeps them in AWS).
 */
export async function startDemoCloud(options: {
  key: string;
  extraKeys?: readonly LocalKey[];
  schedules?: boolean;
  live?: boolean;
  faults?: LocalCloudOptions['faults'];
}): Promise<TestCloud> {
  const archive = (await runFixture('ready')).dataDir;
  const cloud = await startInTempDir({
    apiKeys: [{ key: options.key, plan: 'pro' }, ...(options.extraKeys ?? [])],
    schedules: options.schedules ?? false,
    faults: options.faults,
    demo: { ...demoOptions(DEMO), live: options.live ?? false },
    seededFrom: archive,
  });
  await cloud.demo!.seeded;
  return cloud;
}

/**
 * The local cloud with a demo market of its own, seeded from nothing (what a first `npm start`
 * does), going on live unless `live` is false (a batch a second through ingest, and with schedules
 * on every job's work on it: a file that reads only the seeded span saves that CPU).
 */
export async function startFreshDemoCloud(options: DemoProfile & { key: string; schedules?: boolean; live?: boolean }): Promise<TestCloud> {
  const cloud = await startSeedingDemoCloud(options);
  await cloud.demo!.seeded;
  return cloud;
}

/**
 * `startFreshDemoCloud`, resolving as soon as the cloud answers, while the seed has only begun
 * (`onProgress` hears it); `niceness` as `npm start` sets it, or 0.
 */
export function startSeedingDemoCloud(
  options: DemoProfile & { key: string; schedules?: boolean; live?: boolean; niceness?: number; onProgress?: (progress: SeedProgress) => void },
): Promise<TestCloud> {
  return startInTempDir({
    apiKeys: [{ key: options.key, plan: 'pro' }],
    schedules: options.schedules ?? false,
    niceness: options.niceness,
    demo: { ...demoOptions(options), live: options.live, onProgress: options.onProgress },
  });
}

/**
 * Runs the minute detection job (as its schedule would) over [from, to]: one run a minute into the
 * window sets the job's cursor, then one run per hour (the most a run covers) up to `to`.
 */
export async function runDetectionOver(from: number, to: number): Promise<void> {
  const { invoke } = await import('#local/invoke.ts');
  const HOUR = 3_600_000;
  for (let at = from + 2 * 60_000; ; at = Math.min(at + HOUR, to)) {
    await invoke('detect', { time: new Date(at).toISOString() });
    if (at >= to) break;
  }
}
