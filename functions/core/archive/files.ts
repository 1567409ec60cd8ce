/**
 * Which files a reader uses. Compaction writes a new file listing what it replaces before it
 * retires anything, so at every instant the newest compacted file of each slot (a symbol-day, or a
 * symbol-hour of the open day) plus the deltas nothing replaces hold each row exactly once: a day
 * file replaces that day's hour files, an hour file the hour's delta compactions, a delta
 * compaction the ingest deltas it merged (rows repeated across overlapping files collapse on the
 * dataset's unique key).
 */
import type { ArchiveDeps, ArchiveFile, FileListMemo, ViewMemo } from '#ports/archive.ts';
import type { Row } from '#ports/sql.ts';

/** The slot a compacted file fills: its symbol and day, and its hour for the hour tier. */
const slotOf = (file: ArchiveFile) => `${file.symbol ?? '*'}#${file.day}${file.tier === 'hour' ? `#${file.hour}` : ''}`;

export function visibleFiles(compacted: readonly ArchiveFile[], deltas: readonly ArchiveFile[], symbol?: string): ArchiveFile[] {
  const newest = new Map<string, ArchiveFile>();
  for (const file of compacted) {
    const slot = slotOf(file);
    const current = newest.get(slot);
    if (!current || file.createdAt > current.createdAt || (file.createdAt === current.createdAt && file.fileId > current.fileId)) newest.set(slot, file);
  }
  const winners = [...newest.values()];
  const replaced = new Set([...winners, ...deltas].flatMap((f) => f.replaces));
  const liveCompacted = winners.filter((f) => !replaced.has(f.fileId));
  const liveDeltas = deltas.filter((d) => !replaced.has(d.fileId) && (symbol === undefined || d.symbols.includes(symbol)));
  return [...liveCompacted, ...liveDeltas].sort((a, b) => a.minTs - b.minTs || a.fileId.localeCompare(b.fileId));
}

/**
 * Whether a symbol's own compacted file holds every row a family-wide file of the same dataset
 * (written before the dataset was split per symbol) held for that symbol: a day file holds its
 * whole day, an hour file its hour. A family-wide day file beside a symbol's hour file of the same
 * day (late rows folded after the split) is not superseded: the two hold different rows.
 */
export function supersedes(own: ArchiveFile, familyWide: ArchiveFile): boolean {
  return own.day === familyWide.day && (own.tier === undefined || (familyWide.tier === 'hour' && own.hour === familyWide.hour));
}

/**
 * The archive as one request sees it: manifest reads are asked once and remembered, so a route that
 * reads a dataset several times (a book: the newest checkpoint's time, its row, the diffs after it)
 * queries the manifest once per dataset. Only for the span of one request: files come and go.
 */
export function oneRequestView(deps: ArchiveDeps): ArchiveDeps {
  const seen = new Map<string, Promise<ArchiveFile[]>>();
  const once = (key: string, read: () => Promise<ArchiveFile[]>) => {
    let files = seen.get(key);
    if (!files) seen.set(key, (files = read()));
    return files;
  };
  const { manifest } = deps;
  return {
    ...deps,
    manifest: {
      ...manifest,
      compactedFiles: (...args) => once(`c ${args.join(' ')}`, () => manifest.compactedFiles(...args)),
      compactedFilesOfDay: (...args) => once(`d ${args.join(' ')}`, () => manifest.compactedFilesOfDay(...args)),
      deltaFiles: (...args) => once(`t ${args.join(' ')}`, () => manifest.deltaFiles(...args)),
    },
  };
}

/** A file as a reader sees it: its id and the ETag of its content (a rewritten object has another). */
const fileKey = (file: ArchiveFile) => `${file.fileId}@${file.etag}`;

/** Whether two lists hold the very same files, in any order. */
export function sameFiles(a: readonly ArchiveFile[], b: readonly ArchiveFile[]): boolean {
  return a.length === b.length && a.map(fileKey).sort().join() === b.map(fileKey).sort().join();
}

/**
 * A container's memory of the last file list of each window, up to `capacity` files in all (a list
 * is small, a family-wide month can be thousands), the least recently used forgotten first; a list
 * larger than the whole capacity is not kept. 20,000 items of about half a kilobyte: about 10 MB.
 */
export function fileListMemo(capacity = 20_000): FileListMemo {
  const lists = new Map<string, { files: readonly ArchiveFile[]; confirmed: boolean }>();
  let held = 0;
  const forget = (key: string) => {
    held -= lists.get(key)?.files.length ?? 0;
    lists.delete(key);
  };
  return {
    get(key) {
      const entry = lists.get(key);
      if (entry) {
        lists.delete(key);
        lists.set(key, entry);
      }
      return entry;
    },
    set(key, files) {
      const previous = lists.get(key);
      forget(key);
      if (files.length > capacity) return;
      lists.set(key, { files, confirmed: previous !== undefined && sameFiles(previous.files, files) });
      held += files.length;
      while (held > capacity) forget(lists.keys().next().value!);
    },
  };
}

/**
 * A container's memory of up to `capacity` small views, the least recently used forgotten first.
 * Each is an answer only for the very files it was computed from.
 */
export function viewMemo(capacity = 32): ViewMemo {
  const views = new Map<string, { files: string; rows: readonly Row[] }>();
  const identity = (files: readonly ArchiveFile[]) => files.map(fileKey).sort().join();
  return {
    get(key, files) {
      const view = views.get(key);
      if (!view || view.files !== identity(files)) return undefined;
      views.delete(key);
      views.set(key, view);
      return view.rows;
    },
    set(key, files, rows) {
      views.delete(key);
      views.set(key, { files: identity(files), rows });
      if (views.size > capacity) views.delete(views.keys().next().value!);
    },
  };
}
