/**
 * Which files a reader uses. Compaction writes a new file listing what it replaces before it
 * retires anything, so at every instant the newest compacted file of a symbol-day plus the deltas
 * it does not replace hold each row exactly once (rows repeated across deltas collapse on the
 * dataset's unique key).
 */
import type { ArchiveFile } from '../../ports/archive.ts';

export function visibleFiles(compacted: readonly ArchiveFile[], deltas: readonly ArchiveFile[], symbol?: string): ArchiveFile[] {
  const newest = new Map<string, ArchiveFile>();
  for (const file of compacted) {
    const slot = `${file.symbol ?? '*'}#${file.day}`;
    const current = newest.get(slot);
    if (!current || file.createdAt > current.createdAt || (file.createdAt === current.createdAt && file.fileId > current.fileId)) newest.set(slot, file);
  }
  const winners = [...newest.values()];
  const replaced = new Set(winners.flatMap((f) => f.replaces));
  const liveDeltas = deltas.filter((d) => !replaced.has(d.fileId) && (symbol === undefined || d.symbols.includes(symbol)));
  return [...winners, ...liveDeltas].sort((a, b) => a.minTs - b.minTs || a.fileId.localeCompare(b.fileId));
}
