/**
 * The X-Ray SDK's automatic mode hooks every promise of the process that loads it, so only the
 * functions that trace (the HTTP handlers) may load it. Each handler is loaded in a fresh process,
 * as a Lambda container would.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Whether loading `entry` in a new Node process loads the X-Ray SDK. */
function loadsXRay(entry: string): boolean {
  const script = `await import(${JSON.stringify(`${ROOT}${entry}`)});
const { createRequire } = await import('node:module');
console.log(Object.keys(createRequire(${JSON.stringify(`${ROOT}package.json`)}).cache).some((path) => path.includes('aws-xray-sdk-core')));
process.exit(0);`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: 'pipe' });
  return out.toString().trim().split('\n').at(-1) === 'true';
}

describe('the X-Ray SDK', () => {
  it('is not loaded by the delivery consumers, and is by the HTTP handlers that trace', () => {
    expect(loadsXRay('functions/queues/deliver.ts')).toBe(false);
    expect(loadsXRay('functions/queues/deliver-slow.ts')).toBe(false);
    expect(loadsXRay('functions/shared/http.ts')).toBe(true);
  });
});
