/**
 * A bounded local cache of archive objects (Lambda's /tmp, or a directory locally). Files are named
 * by key digest and ETag, so a cached file is valid exactly when the manifest still names that
 * ETag, with no request to S3; the least recently used files go first when the cache is full.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ObjectStore } from '../ports/archive.ts';
import type { LocalFiles } from '../ports/sql.ts';

export interface FileCacheStats {
  hits: number;
  downloads: number;
  bytes: number;
  files: number;
}

export function fileCache(store: ObjectStore, dir: string, maxBytes: number): LocalFiles & { stats(): FileCacheStats } {
  mkdirSync(dir, { recursive: true });
  /** path -> size, in least-recently-used-first order (Map keeps insertion order). */
  const entries = new Map<string, number>();
  const inFlight = new Map<string, Promise<string>>();
  let total = 0;
  const stats = { hits: 0, downloads: 0 };

  const touch = (path: string, size: number) => {
    if (entries.has(path)) total -= entries.get(path)!;
    entries.delete(path);
    entries.set(path, size);
    total += size;
  };

  const evict = (keep: Set<string>) => {
    for (const [path, size] of entries) {
      if (total <= maxBytes) break;
      if (keep.has(path)) continue;
      entries.delete(path);
      total -= size;
      rmSync(path, { force: true });
    }
  };

  async function one(file: { key: string; etag: string; bytes: number }): Promise<string> {
    const path = join(dir, `${createHash('sha256').update(file.key).digest('hex').slice(0, 32)}-${file.etag}.parquet`);
    if (entries.has(path) || existsSync(path)) {
      stats.hits += 1;
      touch(path, entries.get(path) ?? statSync(path).size);
      return path;
    }
    let pending = inFlight.get(path);
    if (!pending) {
      pending = (async () => {
        const partial = `${path}.${randomUUID()}.part`;
        try {
          await store.download(file.key, file.etag, partial);
          renameSync(partial, path); // readers never see a half-written file
        } finally {
          rmSync(partial, { force: true });
        }
        stats.downloads += 1;
        touch(path, statSync(path).size);
        return path;
      })().finally(() => inFlight.delete(path));
      inFlight.set(path, pending);
    }
    return pending;
  }

  return {
    async paths(files) {
      const paths = await Promise.all(files.map(one));
      evict(new Set(paths));
      return paths;
    },
    stats: () => ({ ...stats, bytes: total, files: entries.size }),
  };
}
