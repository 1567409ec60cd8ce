/**
 * What every backend of the LocalFiles port (functions/ports/sql.ts) must do: resolve archive
 * objects, named by key and ETag, to local files holding exactly those bytes, in the order asked,
 * and refuse an object whose stored version is no longer the one named. Objects are written through
 * the ObjectStore the files are read from; each test writes keys of its own.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ObjectStore } from '#ports/archive.ts';
import type { LocalFiles } from '#ports/sql.ts';

/** `files` reads through a cache of about `cacheBytes`. */
export function localFilesContract(files: () => LocalFiles, objects: () => ObjectStore, cacheBytes: number): void {
  describe('LocalFiles', () => {
    const put = async (bytes: number, fill: number) => {
      const key = `contract/local-files/${randomUUID()}`;
      const { etag } = await objects().putBytes(key, Buffer.alloc(bytes, fill));
      return { key, etag, bytes };
    };

    it('resolves objects to local files holding their bytes, in the order asked, the same object as often as asked', async () => {
      const [a, b] = [await put(1_000, 1), await put(2_000, 2)];
      const paths = await files().paths([b, a, b]);
      expect(paths.map((p) => readFileSync(p))).toEqual([Buffer.alloc(2_000, 2), Buffer.alloc(1_000, 1), Buffer.alloc(2_000, 2)]);
      const again = await Promise.all([files().paths([a]), files().paths([a])]);
      expect(again.map(([p]) => readFileSync(p!))).toEqual([Buffer.alloc(1_000, 1), Buffer.alloc(1_000, 1)]);
      expect(await files().paths([])).toEqual([]);
    });

    it('keeps every file of one call readable even when the call asks for more than the cache holds', async () => {
      const each = Math.ceil(cacheBytes / 3);
      const many = await Promise.all([1, 2, 3, 4, 5].map((fill) => put(each, fill)));
      const paths = await files().paths(many);
      expect(paths.map((p) => readFileSync(p)[0])).toEqual([1, 2, 3, 4, 5]);
    });

    it('refuses an object replaced since the ETag it is named by, and serves the new version by its own', async () => {
      const old = await put(500, 7);
      const { etag } = await objects().putBytes(old.key, Buffer.alloc(600, 8));
      await expect(files().paths([old])).rejects.toThrow();
      const [path] = await files().paths([{ key: old.key, etag, bytes: 600 }]);
      expect(readFileSync(path!)).toEqual(Buffer.alloc(600, 8));
    });
  });
}
