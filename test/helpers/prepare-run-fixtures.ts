/**
 * Makes what the test run's files share (see run-fixtures.ts):
 * `node --import tsx test/helpers/prepare-run-fixtures.ts <dir>`, started by the global setup.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { startLocalCloud } from '../../functions/local/cloud.ts';
import { serviceTemplateCachedIn } from '../../functions/local/template.ts';
import { invoke } from '../../functions/local/invoke.ts';
import type { PositionsReport } from '../../functions/core/positions/build.ts';
import { DEMO, demoOptions, sharedPaths } from './run-fixtures.ts';

/**
 * Writes the template (whole, by a rename; also in the cache `npm start` reads), then seeds `DEMO` into the data directory through
 * the local cloud's real ingest path, builds its positions as the job's schedule would have (every
 * file reading positions would otherwise build the same three hours) and marks it ready; on any
 * failure, `failed` says why.
 */
async function prepareShared(root: string): Promise<void> {
  const paths = sharedPaths(root);
  try {
    // Synthesized into a local cloud's cache, which files starting `npm start` copy into its data directory.
    const template = await serviceTemplateCachedIn(paths.synthCache);
    writeFileSync(`${paths.template}.partial`, JSON.stringify(template));
    renameSync(`${paths.template}.partial`, paths.template);
    const cloud = await startLocalCloud({ port: 0, dataDir: paths.dataDir, logLevel: 'ERROR', apiKeys: [], schedules: false, template, demo: { ...demoOptions(DEMO), live: false } });
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
