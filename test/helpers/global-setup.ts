/**
 * Once per test run, in the background while the first files run: the run's fixtures (the service
 * template every local cloud reads, the demo archive the e2e files copy; see `run-fixtures.ts`)
 * are made in a process of their own (a local cloud sets its emulators' endpoints in its process's
 * environment), once they are asked for (`requestFixtures`; the archive only if a file reads it). Files that need them wait for their
 * markers, so the run synthesizes the stack and seeds the market once instead of once a file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { sharedPaths } from './run-fixtures.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    runFixturesDir: string;
  }
}

export default function setup(project: TestProject) {
  const root = mkdtempSync(join(tmpdir(), 'archive-run-fixtures-'));
  project.provide('runFixturesDir', root);
  const script = fileURLToPath(new URL('./prepare-run-fixtures.ts', import.meta.url));
  const repo = fileURLToPath(new URL('../..', import.meta.url));
  let making: { child: ChildProcess; exited: Promise<unknown> } | undefined;
  const watching = setInterval(() => {
    if (making || !existsSync(sharedPaths(root).wanted)) return;
    const child = spawn(process.execPath, ['--import', 'tsx', script, root], { cwd: repo, stdio: ['ignore', 'inherit', 'inherit'] });
    making = { child, exited: new Promise((resolve) => child.once('exit', resolve)) };
    clearInterval(watching);
  }, 100);
  return async () => {
    clearInterval(watching);
    if (making) {
      // A run can end before the fixtures are made (its files failed or stopped early), or without asking for the archive.
      if (making.child.exitCode === null && making.child.signalCode === null) making.child.kill('SIGKILL');
      await making.exited;
    }
    rmSync(root, { recursive: true, force: true });
  };
}
