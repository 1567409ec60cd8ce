/**
 * Setup file: records the CPU time of each test file (its imports, hooks and tests, every thread of
 * its worker process, DuckDB's included) on the file's task, for the slowest-files reporter. The
 * suite is CPU-bound on two cores, so a file's CPU, not its wall time, is what it costs the run.
 * A worker process that runs several files one after another (the unit project) charges each file
 * the CPU spent since the one before it ended.
 */
import { afterAll } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    cpuMs?: number;
  }
}

const processCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
/** Where the previous file of this process ended (kept on the global object, which the files of a non-isolated worker share). */
const mark = globalThis as { lastFileEndCpuMs?: number };

// Vitest reads the first argument as fixtures, which must be destructured.
// biome-ignore lint/correctness/noEmptyPattern: vitest reads the first parameter's destructuring as its fixtures.
afterAll(({}, suite) => {
  const now = processCpuMs();
  suite.meta.cpuMs = now - (mark.lastFileEndCpuMs ?? 0);
  mark.lastFileEndCpuMs = now;
});
