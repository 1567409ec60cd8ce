/**
 * Makes what the test run's files share (see run-fixtures.ts):
 * `node --import tsx test/helpers/prepare-run-fixtures.ts <dir>`, started by the global setup.
 */
import { cpSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startLocalCloud } from '#local/cloud.ts';
import { serviceTemplateCachedIn } from '#local/template.ts';
import { invoke } from '#local/invoke.ts';
import type { PositionsReport } from '#core/positions/build.ts';
import { DEMO, demoOptions, sharedPaths } from './run-fixtures.ts';

/**
 * Where runs keep the last synthesis between them (the local cloud's cache layout, under the
 * digest of the synthesis's inputs): a synthesis costs 10-20 s of CPU, two minutes on a loaded
 * machine, and every file with a local cloud waits for it, while the sources rarely change between
 * two runs. Under node_modules, so a fresh `npm ci` starts without it.
 */
const KEPT_SYNTH = fileURLToPath(new URL('../../node_modules/.cache/archive-test-synth', import.meta.url));

/**
 * Writes the template (whole, by a rename; also in the cache `npm start` reads), then, once asked for the archive, seeds `DEMO` into the data directory through
 * the local cloud's real ingest path, builds its positions as the job's schedule would have (every
 * file reading positions would otherwise build the same three hours) and marks it ready; on any
 * failure, `failed` says why.
 */
async function prepareShared(root: string): Promise<void> {
  const paths = sharedPaths(root);
  try {
    // Synthesized into the kept cache (the local cloud's own: one version, written whole), copied
    // into the run's cache, which files starting `npm start` copy into its data directory.
    const template = await serviceTemplateCachedIn(KEPT_SYNTH);
    cpSync(KEPT_SYNTH, paths.synthCache, { recursive: true, filter: (path) => !path.endsWith('.partial') });
    writeFileSync(`${paths.template}.partial`, JSON.stringify(template));
    renameSync(`${paths.template}.partial`, paths.template);
    // Until a file (or the sequencer) asks for the archive; a run that never does ends this process.
    while (!existsSync(paths.archiveWanted)) await new Promise((resolve) => setTimeout(resolve, 100));
    const cloud = await startLocalCloud({
      port: 0,
      dataDir: paths.dataDir,
      logLevel: 'ERROR',
      apiKeys: [],
      schedules: false,
      template,
      demo: { ...demoOptions(DEMO), live: false },
    });
    await cloud.demo!.seeded;
    for (let run = 0; run < 20 && ((await invoke('positions-build', {})) as PositionsReport).steps > 0; run++);
    await cloud.stop();
    writeFileSync(paths.ready, '');
  } catch (error) {
    writeFileSync(paths.failed, String((error as Error)?.stack ?? error));
    throw error;
  }
}

const root = process.argv[2];
if (!root) throw new Error('usage: prepare-run-fixtures.ts <directory>');
await prepareShared(root);
process.exit(0);
