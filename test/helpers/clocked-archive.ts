/** An archive on scratch emulators whose clock a test moves, for the tests of one file. */
import { afterAll, beforeAll } from 'vitest';
import type { ArchiveDeps } from '#ports/archive.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Emulators started before the file's tests and stopped after; `deps` reads the time from `now`, which the test sets. */
export function clockedArchive(): { deps: ArchiveDeps; now: number } {
  let env: ScratchEmulators | undefined;
  const archive = { deps: undefined as unknown as ArchiveDeps, now: 0 };
  beforeAll(async () => {
    env = await startScratchEmulators();
    archive.deps = { ...archiveDeps(), clock: { now: () => archive.now } };
  });
  afterAll(async () => {
    await env?.stop();
  });
  return archive;
}
