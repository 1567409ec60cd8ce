/**
 * What the test run's files share, made once in the background (by `prepare-run-fixtures.ts`, which
 * the global setup starts): the service stacks' synthesized template (every local cloud reads it;
 * a synthesis takes seconds), then the demo archive, one seed, history and intensity for the whole
 * run, which each file that starts a demo cloud copies. Light on purpose: the test configuration's
 * sequencer imports it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Three hours of every family, an L2 snapshot a minute, order-level diffs for the last half hour. */
export const DEMO = { seed: 23, hours: 3, intensity: 0.3, l2IntervalMs: 60_000, orderLevelHours: 0.5 } as const;

export interface DemoProfile {
  hours: number;
  seed: number;
  intensity: number;
  l2IntervalMs: number;
  orderLevelHours?: number;
  nearHours?: number;
}

/** A profile as the local cloud's demo options. */
export const demoOptions = (d: DemoProfile) => ({
  days: d.hours / 24,
  seed: d.seed,
  intensity: d.intensity,
  l2IntervalMs: d.l2IntervalMs,
  orderLevelHours: d.orderLevelHours ?? 0.25,
  nearHours: d.nearHours,
});

/**
 * Where, under the run's directory, the request markers (the template; the archive, which needs the
 * template), the template, the local cloud's synthesis cache holding that template (`npm start`'s
 * `LOCAL_DATA_DIR/synth`), the archive and the archive's outcome markers are.
 */
export const sharedPaths = (root: string) => ({
  wanted: join(root, 'wanted'),
  archiveWanted: join(root, 'archive-wanted'),
  template: join(root, 'template.json'),
  synthCache: join(root, 'synth'),
  dataDir: join(root, 'data'),
  ready: join(root, 'ready'),
  failed: join(root, 'failed'),
});

/** A fixture of the run: the template alone, or the demo archive too (seeding it costs minutes of CPU on a loaded machine). */
export type RunFixture = 'template' | 'archive';

/**
 * Asks for a fixture (the global setup starts making the template when it sees a request; the
 * archive is seeded only once asked for): the sequencer asks at the start of a run for what its
 * files use, any file that needs one asks too, and a run without such files makes neither.
 */
export function requestFixtures(root: string, fixture: RunFixture): void {
  const { wanted, archiveWanted } = sharedPaths(root);
  if (fixture === 'archive' && !existsSync(archiveWanted)) writeFileSync(archiveWanted, '');
  if (!existsSync(wanted)) writeFileSync(wanted, '');
}

/**
 * Asks for the fixtures and waits until the background process has made the one named (or failed),
 * however long a loaded machine takes (the calling hook's own timeout is the bound).
 */
export async function awaitFixture(root: string, name: 'template' | 'ready'): Promise<ReturnType<typeof sharedPaths>> {
  requestFixtures(root, name === 'ready' ? 'archive' : 'template');
  const paths = sharedPaths(root);
  while (!existsSync(paths[name]) && !existsSync(paths.failed)) await new Promise((r) => setTimeout(r, 250));
  if (!existsSync(paths[name])) throw new Error(`Making the run's fixtures failed: ${readFileSync(paths.failed, 'utf8')}`);
  return paths;
}
