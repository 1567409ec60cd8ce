/**
 * What every backend of the archive's ports must do (functions/ports/archive.ts): the manifest
 * (files by kind, symbol and day, the day index, batch outcomes, leases, deferred deletions) and the
 * object store (ETags, conditional downloads, deletes). Each test works under names of its own
 * (a random family-wide symbol, lease or key), so suites share one table and bucket.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ArchiveFile, ArchiveManifest, ObjectStore } from '#ports/archive.ts';
import { cadenceOf } from '#core/archive/cadence.ts';

const T0 = Date.UTC(2026, 10, 18, 10);
const unique = () => randomUUID().slice(0, 8);

export function archiveFile(overrides: Partial<ArchiveFile> = {}): ArchiveFile {
  const fileId = overrides.fileId ?? unique();
  return {
    fileId,
    key: `archive/v1/trades/${fileId}.parquet`,
    dataset: 'trades',
    family: 'perpx',
    day: '2026-11-18',
    kind: 'delta',
    symbols: ['BTC'],
    rows: 3,
    bytes: 100,
    etag: 'e',
    minTs: T0,
    maxTs: T0 + 1_000,
    replaces: [],
    createdAt: T0,
    ...overrides,
  };
}

/** Compacted files of one symbol, made unique to the test by the symbol's name. */
const compacted = (symbol: string, day: string, overrides: Partial<ArchiveFile> = {}) =>
  archiveFile({ kind: 'compacted', symbol, symbols: [symbol], day, ...overrides });

const ids = (files: readonly ArchiveFile[]) => files.map((f) => f.fileId).sort();

export function archiveManifestContract(manifest: () => ArchiveManifest): void {
  describe('ArchiveManifest', () => {
    it("lists a symbol's compacted files by day range, and the day's compacted files of every symbol, each file whole", async () => {
      const [a, b] = [`A${unique()}`, `B${unique()}`];
      const files = [
        compacted(a, '2026-11-17'),
        compacted(a, '2026-11-18', { tier: 'hour', hour: 7, replaces: ['x', 'y'] }),
        compacted(a, '2026-11-20'),
        compacted(b, '2026-11-18'),
        compacted(b, '2026-11-18', { dataset: 'funding' }),
        compacted(b, '2026-11-18', { family: 'hip3' }),
      ];
      for (const file of files) await manifest().putFile(file);
      const [a17, a18, a20, b18] = files;
      expect(ids(await manifest().compactedFiles('trades', 'perpx', a, '2026-11-17', '2026-11-18'))).toEqual(ids([a17!, a18!]));
      expect(await manifest().compactedFiles('trades', 'perpx', a, '2026-11-18', '2026-11-18')).toEqual([a18]);
      expect(ids(await manifest().compactedFiles('trades', 'perpx', a, '2026-11-01', '2026-11-30'))).toEqual(ids([a17!, a18!, a20!]));
      expect(await manifest().compactedFiles('trades', 'perpx', `N${unique()}`, '2026-11-01', '2026-11-30')).toEqual([]);
      const ofDay = (await manifest().compactedFilesOfDay('trades', 'perpx', '2026-11-18')).filter((f) => f.symbol === a || f.symbol === b);
      expect(ids(ofDay)).toEqual(ids([a18!, b18!]));
    });

    it('keeps the all-symbol partition apart from per-symbol files, and deltas apart from both', async () => {
      const day = `2031-0${1 + Math.floor(Math.random() * 9)}-1${Math.floor(Math.random() * 9)}`;
      const family = archiveFile({ kind: 'compacted', tier: 'minute', hour: 3, day, symbols: ['BTC', 'ETH'] });
      const delta = archiveFile({ day, symbols: ['BTC', 'ETH'] });
      await manifest().putFile(family);
      await manifest().putFile(delta);
      expect(ids(await manifest().compactedFiles('trades', 'perpx', undefined, day, day))).toContain(family.fileId);
      expect(ids(await manifest().compactedFiles('trades', 'perpx', undefined, day, day))).not.toContain(delta.fileId);
      expect((await manifest().compactedFiles('trades', 'perpx', 'BTC', day, day)).map((f) => f.fileId)).not.toContain(family.fileId);
      expect((await manifest().deltaFiles('trades', 'perpx', day, day)).find((f) => f.fileId === delta.fileId)).toEqual(delta);
      await manifest().deleteFile(delta);
      await manifest().deleteFile(family);
      expect((await manifest().deltaFiles('trades', 'perpx', day, day)).map((f) => f.fileId)).not.toContain(delta.fileId);
      expect((await manifest().compactedFiles('trades', 'perpx', undefined, day, day)).map((f) => f.fileId)).not.toContain(family.fileId);
    });

    it('keeps statistics beside the file, out of its listings, and forgets them with it', async () => {
      const cadence = cadenceOf([
        { symbol: 'BTC', ts: T0 },
        { symbol: 'BTC', ts: T0 + 1_000 },
        { symbol: 'ETH', ts: T0 + 400_000 },
      ]);
      const file = archiveFile({ cadence, day: '2032-01-01' });
      const bare = archiveFile({ day: '2032-01-01' });
      await manifest().putFile(file);
      await manifest().putFile(bare);
      const listed = (await manifest().deltaFiles('trades', 'perpx', '2032-01-01', '2032-01-01')).filter(
        (f) => f.fileId === file.fileId || f.fileId === bare.fileId,
      );
      expect(listed).toHaveLength(2);
      for (const f of listed) expect(f).not.toHaveProperty('cadence');
      expect(await manifest().cadenceOf(listed)).toEqual(new Map([[file.fileId, cadence]]));
      await manifest().deleteFile(file);
      expect((await manifest().cadenceOf([file])).size).toBe(0);
      expect(await manifest().cadenceOf([])).toEqual(new Map());
    });

    it('indexes the days that hold compacted files of a dataset and family, in order, deltas and other families aside', async () => {
      // Funding files under a year of their own: the day index is per dataset and family.
      const year = 2040 + Math.floor(Math.random() * 50);
      const file = (day: string, kind: ArchiveFile['kind'], family: ArchiveFile['family'] = 'hip3') =>
        archiveFile({ dataset: 'funding', family, day: `${year}-${day}`, kind, ...(kind === 'compacted' && { symbol: 'xyz:TSLA' }), symbols: ['xyz:TSLA'] });
      for (const f of [
        file('10-30', 'compacted'),
        file('11-02', 'compacted'),
        file('11-02', 'compacted'),
        file('11-03', 'delta'),
        file('11-01', 'compacted', 'perpx'),
      ]) {
        await manifest().putFile(f);
      }
      expect(await manifest().compactedDays('funding', 'hip3', `${year}-10-31`, `${year}-11-05`)).toEqual([`${year}-11-02`]);
      expect(await manifest().compactedDays('funding', 'hip3', `${year}-10-01`, `${year}-12-01`)).toEqual([`${year}-10-30`, `${year}-11-02`]);
      expect(await manifest().compactedDays('funding', 'perpx', `${year}-10-01`, `${year}-12-01`)).toEqual([`${year}-11-01`]);
    });

    it("records a batch's outcome (the last one recorded wins) and knows no batch it never saw", async () => {
      const batch = `batch-${unique()}`;
      expect(await manifest().batchOutcome(batch)).toBeUndefined();
      await manifest().recordBatch(batch, { status: 'rejected', reason: 'line 3: field ts: must be a number' });
      expect(await manifest().batchOutcome(batch)).toEqual({ status: 'rejected', reason: 'line 3: field ts: must be a number' });
      await manifest().recordBatch(batch, { status: 'done', records: 12 });
      expect(await manifest().batchOutcome(batch)).toEqual({ status: 'done', records: 12 });
    });

    it('grants a lease to one of concurrent owners, again to its holder, to another once it ran out, and releases only for its holder', async () => {
      const lease = `lease-${unique()}`;
      const owners = ['w1', 'w2', 'w3', 'w4'];
      const takes = await Promise.all(owners.map((owner) => manifest().acquireLease(lease, owner, 2_000, 1_000)));
      expect(takes.filter(Boolean)).toHaveLength(1);
      const holder = owners[takes.indexOf(true)]!;
      expect(await manifest().acquireLease(lease, holder, 3_000, 1_500)).toBe(true);
      expect(await manifest().acquireLease(lease, 'w5', 4_000, 2_000)).toBe(false);
      await manifest().releaseLease(lease, 'w5'); // not theirs: nothing changes
      expect(await manifest().acquireLease(lease, 'w5', 4_000, 2_000)).toBe(false);
      expect(await manifest().acquireLease(lease, 'w5', 9_000, 3_001)).toBe(true);
      await manifest().releaseLease(lease, holder); // the old holder's release leaves the new one be
      expect(await manifest().acquireLease(lease, 'w6', 9_500, 4_000)).toBe(false);
      await manifest().releaseLease(lease, 'w5');
      expect(await manifest().acquireLease(lease, 'w6', 9_500, 4_000)).toBe(true);
      await manifest().releaseLease(`lease-${unique()}`, 'nobody');
    });

    it('hands out deletions once their time has passed, oldest first, until forgotten', async () => {
      // Times far past every other deletion, so the queue holds only this test's due ones.
      const base = 9e14 + Math.floor(Math.random() * 1e12);
      const [k1, k2, k3] = [`del/${unique()}/a`, `del/${unique()}/b`, `del/${unique()}/c`];
      const [f1, f2, f3] = [k1, k2, k3].map((key) => archiveFile({ key }));
      await manifest().scheduleDeletion([f2!, f3!], base + 200, 'retired');
      await manifest().scheduleDeletion([f1!], base + 100, 'retired');
      const mine = (due: { key: string }[]) => due.filter((d) => [k1, k2, k3].includes(d.key)).map((d) => d.key);
      expect(mine(await manifest().dueDeletions(base + 100, 1_000))).toEqual([]);
      expect(mine(await manifest().dueDeletions(base + 101, 1_000))).toEqual([k1]);
      const due = (await manifest().dueDeletions(base + 201, 1_000)).filter((d) => [k1, k2, k3].includes(d.key));
      expect(due.map((d) => d.key).sort()).toEqual([k1, k2, k3].sort());
      expect(due[0]!.key).toBe(k1);
      for (const d of due.slice(0, 2)) await manifest().forgetDeletion(d.id);
      expect(mine(await manifest().dueDeletions(base + 201, 1_000))).toEqual([due[2]!.key]);
      await manifest().forgetDeletion(due[2]!.id);
      await manifest().forgetDeletion(due[2]!.id);
      expect(mine(await manifest().dueDeletions(base + 201, 1_000))).toEqual([]);
    });

    it('names the file and stage of each deletion, and tells whether the file is listed (what collection asks before deleting)', async () => {
      const base = 9e14 + Math.floor(Math.random() * 1e12);
      const file = compacted(`SYM${unique()}`, '2026-11-18');
      const [id] = await manifest().scheduleDeletion([file], base, 'upload');
      const [due] = (await manifest().dueDeletions(base + 1, 1_000)).filter((d) => d.id === id);
      expect(due).toMatchObject({ key: file.key, stage: 'upload', file: { fileId: file.fileId, kind: 'compacted', symbol: file.symbol, day: file.day } });
      expect(await manifest().isListed(due!.file!)).toBe(false);
      await manifest().putFile(file);
      expect(await manifest().isListed(due!.file!)).toBe(true);
      await manifest().deleteFile(file);
      expect(await manifest().isListed(due!.file!)).toBe(false);
      await manifest().forgetDeletion(id!);
    });
  });
}

export function objectStoreContract(objects: () => ObjectStore): void {
  describe('ObjectStore', () => {
    const dir = mkdtempSync(join(tmpdir(), 'object-contract-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('stores bytes and files under keys, reads them back whole, replacing what a key held', async () => {
      const key = `contract/${unique()}/bytes`;
      const put = await objects().putBytes(key, 'hello archive');
      expect(put.etag).toMatch(/^[^"]+$/);
      expect(Buffer.from(await objects().getBytes(key)).toString()).toBe('hello archive');
      const path = join(dir, `${unique()}.parquet`);
      writeFileSync(path, Buffer.alloc(70_000, 3));
      const file = await objects().putFile(`contract/${unique()}/file`, path);
      expect(file.bytes).toBe(70_000);
      await objects().putBytes(key, new Uint8Array([1, 2, 3]));
      expect([...(await objects().getBytes(key))]).toEqual([1, 2, 3]);
    });

    it('downloads only the version whose ETag it is given, and refuses a replaced one', async () => {
      const key = `contract/${unique()}/versioned`;
      const first = await objects().putBytes(key, 'first');
      const out = join(dir, `${unique()}.out`);
      await objects().download(key, first.etag, out);
      expect(readFileSync(out, 'utf8')).toBe('first');
      await objects().putBytes(key, 'second, replacing it');
      await expect(objects().download(key, first.etag, join(dir, `${unique()}.out`))).rejects.toThrow();
    });

    it('deletes any number of keys, missing ones included, after which reads fail', async () => {
      const keys = Array.from({ length: 5 }, (_, i) => `contract/${unique()}/${i}`);
      for (const key of keys) await objects().putBytes(key, key);
      await objects().delete([...keys, `contract/${unique()}/never-written`]);
      for (const key of keys) await expect(objects().getBytes(key)).rejects.toThrow();
      await objects().delete([]);
    });
  });
}
