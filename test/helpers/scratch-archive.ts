/**
 * Scratch emulators for a test file (or a describe block), started before its tests and stopped
 * after, and the archive's ports over them: `const deps = scratchArchive();`, then `deps()` in tests.
 */
import { afterAll, beforeAll } from 'vitest';
import type { ArchiveDeps } from '#ports/archive.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';

export function scratchArchive(): () => ArchiveDeps {
  let env: ScratchEmulators | undefined;
  let deps: ArchiveDeps | undefined;
  beforeAll(async () => {
    env = await startScratchEmulators();
    deps = archiveDeps();
  });
  afterAll(async () => {
    await env?.stop();
  });
  return () => {
    if (!deps) throw new Error('scratchArchive: the archive is read before its emulators started (call it at the top of a file or describe block)');
    return deps;
  };
}
