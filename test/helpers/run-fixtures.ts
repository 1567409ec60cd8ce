/**
 * What the test run's files share, made once in the background (by `prepare-run-fixtures.ts`, which
 * the global setup starts): the service stack's synthesized template (every local cloud reads it;
 * a synthesis takes seconds), then the demo archive, one seed, history and intensity for the whole
 * run, which each file that starts a demo cloud copies.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLocalCloud } from '../../functions/local/cloud.ts';
import { synthesizeServiceTemplate } from '../../functions/local/template.ts';

/** Three hours of every family, an L2 snapshot a minute, order-level diffs for the last half hour. */
export const DEMO = { seed: 23, hours: 3, intensity: 0.3, l2IntervalMs: 60_000, orderLevelHours: 0.5 } as const;

export interface DemoProfile { hours: number; seed: number; intensity: number; l2IntervalMs: number; orderLevelHours?: number }

/** A profile as the local cloud's demo options. */
export const demoOptions = (d: DemoProfile) =>
  ({ days: d.hours / 24, seed: d.seed, intensity: d.intensity, l2IntervalMs: d.l2IntervalMs, orderLevelHours: d.orderLevelHours ?? 0.25 });

/** Where, under the run's directory, the template, the archive and the archive's outcome markers are. */
export const sharedPaths = (root: string) => ({
  template: join(root, 'template.json'), dataDir: join(root, 'data'), ready: join(root, 'ready'), failed: join(root, 'failed'),
});

/**
 * Writes the template (whole, by a rename), then seeds `DEMO` into the data directory through
 * the local cloud's real ingest path and marks it ready; on any failure, `failed` says why.
 */
export async function prepareShared(root: string): Promise<void> {
  const paths = sharedPaths(root);
  try {
    const template = await synthesizeServiceTemplate();
    writeFileSync(`${paths.template}.partial`, JSON.stringify(template));
    renameSync(`${paths.template}.partial`, paths.template);
    const cloud = await startLocalCloud({ port: 0, dataDir: paths.dataDir, logLevel: 'ERROR', apiKeys: [], schedules: false, template, demo: { ...demoOptions(DEMO), live: false } });
    await cloud.demo!.seeded;
    await cloud.stop();
    writeFileSync(paths.ready, '');
  } catch (error) {
    writeFileSync(paths.failed, String((error as Error)?.stack ?? error));
    throw error;
  }
}
