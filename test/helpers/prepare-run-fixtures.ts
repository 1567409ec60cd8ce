/**
 * Makes what the test run's files share (see run-fixtures.ts):
 * `node --import tsx test/helpers/prepare-run-fixtures.ts <dir>`, started by the global setup.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalCloud } from '../../functions/local/cloud.ts';
import { serviceTemplateCachedIn } from '../../functions/local/template.ts';
import { invoke } from '../../functions/local/invoke.ts';
import type { PositionsReport } from '../../functions/core/positions/build.ts';
import { DEMO, demoOptions, sharedPaths } from './run-fixtures.ts';

/**
 * Where runs keep the last synthesis between them (the local cloud's cache layout, under the
 * digest of the synthesis's inputs): a synthesis costs 10-20 s of CPU, two minutes on a loaded
 * machine, and every file with a local cloud waits for it, while the sources rarely change between
 * two runs. Under node_modules, so a fresh `npm ci` starts without it.
 */
const KEPT_SYNTH = fileURLToPath(new URL('../../node_modules/.cache/archive-test-synth', import.meta.url));

/** Leaves the run's synthesis for the next run: each file whole (a copy renamed into place), the other versions removed. */
function keepSynthesis(synthCache: string): void {
  mkdirSync(KEPT_SYNTH, { recursive: true });
  const current = new Set(readdirSync(synthCache));
  for (const name of current) {
    if (existsSync(join(KEPT_SYNTH, name))) continue;
    copyFileSync(join(synthCache, name), join(KEPT_SYNTH, `${name}.${process.pid}.partial`));
    renameSync(join(KEPT_SYNTH, `${name}.${process.pid}.partial`), join(KEPT_SYNTH, name));
  }
  for (const name of readdirSync(KEPT_SYNTH)) if (!current.has(name) && !name.endsWith('.partial')) rmSync(join(KEPT_SYNTH, name), { force: true });
}

/**
 * Writes the template (whole, by a rename; also in the cache `npm start` reads), then, once asked for the archive, seeds `DEMO` into the data directory through
 * the local cloud's real ingest path, builds its positions as the job's schedule would have (every
 * file reading positions would otherwise build the same three hours) and marks it ready; on any
 * failure, `failed` says why.
 */
async function prepareShared(root: string): Promise<void> {
  const paths = sharedPaths(root);
  try {
    // Synthesized into a local cloud's cache, which files starting `npm start` copy into its data directory.
    if (existsSync(KEPT_SYNTH)) cpSync(KEPT_SYNTH, paths.synthCache, { recursive: true, filter: (path) => !path.endsWith('.partial') });
    const template = await serviceTemplateCachedIn(paths.synthCache);
    keepSynthesis(paths.synthCache);
    writeFileSync(`${paths.template}.partial`, JSON.stringify(template));
    renameSync(`${paths.template}.partial`, paths.template);
    // Until a file (or the sequencer) asks for the archive; a run that never does ends this process.
    while (!existsSync(paths.archiveWanted)) await new Promise((resolve) => setTimeout(resolve, 100));
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
