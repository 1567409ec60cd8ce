import { readFileSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateClientSource } from '#bin/client-source.ts';
import { ROUTES } from '#functions/routes.ts';
import { ROUTES as CLIENT_ROUTES } from '#clients/typescript/src/generated.ts';

const CLIENT = fileURLToPath(new URL('../../../clients/typescript/', import.meta.url));

describe('the generated typed client', () => {
  it('is what the route table generates today (run `npm run client:generate` after changing a route)', async () => {
    // Act
    const fresh = await generateClientSource();
    // Assess
    expect(readFileSync(join(CLIENT, 'src/generated.ts'), 'utf8')).toBe(fresh);
  });

  it('has one method per documented route, and none for the catch-all', () => {
    expect(Object.keys(CLIENT_ROUTES).sort()).toEqual(
      ROUTES.filter((r) => !r.hidden)
        .map((r) => r.operationId)
        .sort(),
    );
  });

  it('builds as a package of its own: ESM with declarations, importing nothing outside it', () => {
    // Prepare
    const outDir = mkdtempSync(join(tmpdir(), 'client-build-'));
    try {
      // Act
      execFileSync(
        process.execPath,
        [fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url)), '-p', join(CLIENT, 'tsconfig.json'), '--outDir', outDir],
        { stdio: 'pipe' },
      );
      // Assess
      for (const file of ['index.js', 'index.d.ts', 'client.js', 'generated.d.ts', 'signature.js']) expect(existsSync(join(outDir, file)), file).toBe(true);
      const emitted = readFileSync(join(outDir, 'client.js'), 'utf8') + readFileSync(join(outDir, 'index.js'), 'utf8');
      expect(emitted).not.toMatch(/from '\.\.\//);
      expect(emitted).not.toMatch(/\.ts'/);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  });
});
