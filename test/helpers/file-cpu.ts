/**
 * Setup file: records the CPU time of each test file's worker process (its imports, hooks and tests,
 * every thread, DuckDB's included) on the file's task, for the slowest-files reporter. The suite is
 * CPU-bound on two cores, so a file's CPU, not its wall time, is what it costs the run.
 */
import { afterAll } from 'vitest';

declare module 'vitest' {
  interface TaskMeta { cpuMs?: number }
}

// Vitest reads the first argument as fixtures, which must be destructured.
afterAll(({}, suite) => {
  const { user, system } = process.cpuUsage();
  suite.meta.cpuMs = (user + system) / 1000;
});
