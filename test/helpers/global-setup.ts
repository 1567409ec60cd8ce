/**
 * Once per test run, in the background while the first files run: the run's fixtures (the service
 * template every local cloud reads, the demo archive the e2e files copy; see `run-fixtures.ts`)
 * are made in a process of their own (a local cloud sets its emulators' endpoints in its process's
 * environment). Files that need them wait for their markers, so the run synthesizes the stack and
 * seeds the market once instead of once a file.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext { runFixturesDir: string }
}

export default function setup(project: TestProject) {
  const root = mkdtempSync(join(tmpdir(), 'archive-run-fixtures-'));
  project.provide('runFixturesDir', root);
  const script = fileURLToPath(new URL('./prepare-run-fixtures.ts', import.meta.url));
  const repo = fileURLToPath(new URL('../..', import.meta.url));
  const seeding = spawn(process.execPath, ['--import', 'tsx', script, root], { cwd: repo, stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise((resolve) => seeding.once('exit', resolve));
  return async () => {
    // A run of files that never needed the archive can end before the seeding does.
    if (seeding.exitCode === null && seeding.signalCode === null) seeding.kill('SIGKILL');
    await exited;
    rmSync(root, { recursive: true, force: true });
  };
}
