/**
 * A vitest reporter beside the default one: after a run of more than ten files, the ten slowest
 * test files with their wall time (module collection, hooks and tests), so a slow file is seen,
 * and each one's CPU time (file-cpu.ts), with the run's total: what a file costs a busy run.
 */
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (modules.length <= 10) return;
    const timed = modules
      .map((m) => ({ file: relative(process.cwd(), m.moduleId), ms: m.diagnostic().duration, cpuMs: m.meta().cpuMs }))
      .sort((a, b) => b.ms - a.ms);
    const seconds = (ms: number | undefined) => (ms === undefined ? '?' : (ms / 1000).toFixed(1)).padStart(7);
    const lines = timed.slice(0, 10).map(({ file, ms, cpuMs }) => `  ${seconds(ms)} s  ${seconds(cpuMs)} s CPU  ${file}`);
    const cpu = timed.reduce((sum, { cpuMs }) => sum + (cpuMs ?? 0), 0);
    process.stdout.write(`\nSlowest test files (wall, CPU):\n${lines.join('\n')}\nCPU of all ${timed.length} files: ${seconds(cpu).trim()} s\n`);
  }
}
