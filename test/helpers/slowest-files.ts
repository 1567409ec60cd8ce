/**
 * A vitest reporter beside the default one: after a run of more than ten files, the ten slowest
 * test files with their wall time (module collection, hooks and tests), so a slow file is seen.
 */
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (modules.length <= 10) return;
    const timed = modules.map((m) => ({ file: relative(process.cwd(), m.moduleId), ms: m.diagnostic().duration })).sort((a, b) => b.ms - a.ms).slice(0, 10);
    const lines = timed.map(({ file, ms }) => `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`);
    process.stdout.write(`\nSlowest test files:\n${lines.join('\n')}\n`);
  }
}
