/**
 * How an archive object lives and dies, so that none is lost while listed and none outlives its use:
 *
 * - written: before a file's object is put, its deletion is scheduled (`upload`, an hour out, well
 *   past any function's 15-minute timeout); once the manifest lists the file the entry is forgotten.
 *   A writer killed between the put and the listing (or whose "forget" failed) leaves the entry, and
 *   the object is collected unless the manifest lists the file when the entry comes due.
 * - retired: its deletion is scheduled (`retired`, after the readers' grace) before its manifest
 *   entry is removed, so a compaction killed between the two leaves no object nobody will delete.
 * - collected: a due entry whose file the manifest still lists is forgotten (the listing won, or a
 *   retirement did not finish and a later one will schedule it again); an `upload` entry whose file
 *   is not listed waits one grace more (the file may have been listed and retired since, and a
 *   reader may still hold it); a `retired` one is deleted.
 */
import type { ArchiveDeps, ArchiveFile } from '#ports/archive.ts';
import { DELETION_GRACE_MS } from './compact-slot.ts';

/** How long a writer has to list a file after scheduling its upload (far past Lambda's 15-minute limit). */
export const UPLOAD_WINDOW_MS = 60 * 60_000;

/** Puts the file's object from `path` and lists the file in the manifest; answers the listed file. */
export async function storeFile(deps: ArchiveDeps, file: Omit<ArchiveFile, 'bytes' | 'etag' | 'createdAt'>, path: string): Promise<ArchiveFile> {
  const [entry] = await deps.manifest.scheduleDeletion([file], deps.clock.now() + UPLOAD_WINDOW_MS, 'upload');
  const { etag, bytes } = await deps.objects.putFile(file.key, path);
  const listed: ArchiveFile = { ...file, bytes, etag, createdAt: deps.clock.now() };
  await deps.manifest.putFile(listed);
  // Failing here costs a manifest read when the entry comes due, not the file.
  await deps.manifest.forgetDeletion(entry!).catch(() => undefined);
  return listed;
}

/** Deletes the objects whose scheduled deletion is due and whose files are not listed; answers how many. */
export async function collectGarbage(deps: ArchiveDeps): Promise<number> {
  let deleted = 0;
  for (;;) {
    const now = deps.clock.now();
    const due = await deps.manifest.dueDeletions(now, 500);
    if (due.length === 0) return deleted;
    const gone: string[] = [];
    for (const item of due) {
      if (item.file && (await deps.manifest.isListed(item.file))) continue;
      if (item.stage === 'upload' && item.file) await deps.manifest.scheduleDeletion([item.file], now + DELETION_GRACE_MS, 'retired');
      else gone.push(item.key);
    }
    if (gone.length > 0) await deps.objects.delete(gone);
    for (const item of due) await deps.manifest.forgetDeletion(item.id);
    deleted += gone.length;
  }
}
