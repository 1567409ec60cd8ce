/**
 * What every backend of the export ports (functions/ports/exports.ts) must do: the job store's
 * conditional writes (a job created once with its plan, transitions only from the states named, a
 * partition counted once however often it is retried, nothing counted for a job no longer running,
 * newest-first pages, Idempotency-Key claims) and the export objects behind pre-signed links. Each
 * test works in accounts and jobs of its own, so suites share one table and bucket.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newExportId } from '#core/exports/jobs.ts';
import type { ExportFileRecord, ExportJobRecord, ExportObjects, ExportPartition, ExportStore } from '#ports/exports.ts';

const DAY = Date.UTC(2026, 10, 20);
const account = () => `acct_${randomUUID().slice(0, 8)}`;

export function exportJob(accountId: string, overrides: Partial<ExportJobRecord> = {}): ExportJobRecord {
  const createdAt = overrides.createdAt ?? Date.UTC(2026, 10, 25);
  return {
    accountId,
    jobId: newExportId(createdAt),
    state: 'queued',
    schema: 'trades',
    family: 'perpx',
    symbols: ['BTC', 'ETH'],
    from: DAY,
    to: DAY + 86_400_000,
    createdAt,
    quote: {
      schema: 'trades',
      schema_version: 'trades.v1',
      family: 'perpx',
      symbols: ['BTC', 'ETH'],
      start: new Date(DAY).toISOString(),
      end: new Date(DAY + 86_400_000).toISOString(),
      partitions: 2,
      estimated_rows: 600,
      estimated_bytes: 12_000,
      price_usd: 0.5,
      currency: 'USD',
      pricing: { usd_per_gb: 2, minimum_usd: 0.5 },
    },
    partitionsTotal: 2,
    partitionsDone: 0,
    rowsWritten: 0,
    bytesWritten: 0,
    ...overrides,
  };
}

const partitions: ExportPartition[] = [
  { i: 0, s: 'BTC', d: '2026-11-20' },
  { i: 1, s: 'ETH', d: '2026-11-20' },
];

const fileRecord = (index: number, overrides: Partial<ExportFileRecord> = {}): ExportFileRecord => ({
  index,
  name: `part-${index}.parquet`,
  symbol: partitions[index]?.s ?? 'BTC',
  day: '2026-11-20',
  rows: 100 + index,
  bytes: 2_000 + index,
  sha256: 'ab'.repeat(32),
  key: `jobs/x/${index}.parquet`,
  ...overrides,
});

export function exportStoreContract(store: () => ExportStore): void {
  describe('ExportStore', () => {
    it('creates a job once, with its plan, readable in its account only', async () => {
      const a = account();
      const job = exportJob(a);
      expect(await store().createJob(job, partitions)).toBe(true);
      expect(await store().createJob({ ...job, symbols: ['SOL'] }, partitions)).toBe(false);
      expect(await store().getJob(a, job.jobId)).toEqual(job);
      expect(await store().getJob(account(), job.jobId)).toBeUndefined();
      expect(await store().partitions(job.jobId)).toEqual(partitions);
      expect(await store().partitions(newExportId(Date.now()))).toBeUndefined();
    });

    it('moves a job only from the states named, setting the fields given, once among concurrent movers', async () => {
      const a = account();
      const job = exportJob(a);
      await store().createJob(job, partitions);
      const moves = await Promise.all(Array.from({ length: 5 }, (_, i) => store().transition(a, job.jobId, ['queued'], 'running', { startedAt: 1_000 + i })));
      expect(moves.filter(Boolean)).toHaveLength(1);
      expect(await store().transition(a, job.jobId, ['queued'], 'canceled')).toBe(false);
      expect(await store().transition(a, job.jobId, ['queued', 'running'], 'failed', { finishedAt: 5_000, errorMessage: 'partition 1 failed' })).toBe(true);
      expect(await store().getJob(a, job.jobId)).toMatchObject({ state: 'failed', finishedAt: 5_000, errorMessage: 'partition 1 failed' });
      expect((await store().getJob(a, job.jobId))!.startedAt).toBeGreaterThanOrEqual(1_000);
      expect(await store().transition(a, 'exp_missing', ['queued'], 'running')).toBe(false);
      expect(await store().getJob(a, 'exp_missing')).toBeUndefined();
    });

    it("counts a partition's file once however often it is retried, and none once the job stopped running", async () => {
      const a = account();
      const job = exportJob(a);
      await store().createJob(job, partitions);
      const outcomes = await Promise.all([0, 0, 0].map(() => store().recordFile(a, job.jobId, fileRecord(0))));
      expect(outcomes.filter((o) => o === 'recorded')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'already_recorded')).toHaveLength(2);
      expect(await store().recordFile(a, job.jobId, fileRecord(0, { name: 'retried.parquet' }))).toBe('already_recorded');
      expect(await store().getJob(a, job.jobId)).toMatchObject({ partitionsDone: 1, rowsWritten: 100, bytesWritten: 2_000 });
      expect(await store().file(job.jobId, 0)).toEqual(fileRecord(0, { name: 'retried.parquet' }));
      await store().transition(a, job.jobId, ['queued'], 'canceled');
      expect(await store().recordFile(a, job.jobId, fileRecord(1))).toBe('not_running');
      expect(await store().getJob(a, job.jobId)).toMatchObject({ partitionsDone: 1, rowsWritten: 100 });
      expect(await store().recordFile(a, 'exp_missing', fileRecord(0))).toBe('not_running');
    });

    it("lists a job's files in partition order, reads one by index, and forgets those named", async () => {
      const a = account();
      const job = exportJob(a, { partitionsTotal: 12 });
      await store().createJob(job, partitions);
      await store().transition(a, job.jobId, ['queued'], 'running');
      for (const index of [11, 2, 0, 10, 1]) await store().recordFile(a, job.jobId, fileRecord(index));
      expect((await store().files(job.jobId)).map((f) => f.index)).toEqual([0, 1, 2, 10, 11]);
      expect(await store().file(job.jobId, 10)).toEqual(fileRecord(10));
      for (const index of [5, -1, 1.5]) expect(await store().file(job.jobId, index)).toBeUndefined();
      await store().forgetFiles(job.jobId, [0, 2, 10, 7]);
      expect((await store().files(job.jobId)).map((f) => f.index)).toEqual([1, 11]);
      await store().forgetFiles(job.jobId, []);
      expect(await store().files(newExportId(Date.now()))).toEqual([]);
    });

    it("pages an account's jobs newest first, gapless and without repeats", async () => {
      const a = account();
      const jobs = Array.from({ length: 5 }, (_, i) => exportJob(a, { createdAt: Date.UTC(2026, 10, 25) + i * 1_000 }));
      for (const job of jobs) await store().createJob(job, partitions);
      await store().claimIdempotencyKey(a, 'k', { jobId: jobs[0]!.jobId, fingerprint: 'f', claimedAt: 0 }, Date.now() + 60_000); // not a job
      const seen: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 10; pages += 1) {
        const page = await store().listJobs(a, 2, after);
        expect(page.jobs.length).toBeLessThanOrEqual(2);
        seen.push(...page.jobs.map((j) => j.jobId));
        if (!page.more) break;
        after = page.jobs.at(-1)!.jobId;
      }
      expect(seen).toEqual(jobs.map((j) => j.jobId).reverse());
      expect(await store().listJobs(a, 5)).toEqual({ jobs: [...jobs].reverse(), more: false });
      expect(await store().listJobs(account(), 10)).toEqual({ jobs: [], more: false });
    });

    it('gives an Idempotency-Key to the first claim only, per account, until it expires', async () => {
      const [a, b] = [account(), account()];
      const now = Date.now();
      const claim = (jobId: string, fingerprint: string) => ({ jobId, fingerprint, claimedAt: now });
      expect(await store().claimIdempotencyKey(a, 'k1', claim('exp_a', 'f1'), now + 86_400_000)).toBeUndefined();
      expect(await store().claimIdempotencyKey(a, 'k1', claim('exp_b', 'f2'), now + 86_400_000)).toEqual(claim('exp_a', 'f1'));
      expect(await store().claimIdempotencyKey(b, 'k1', claim('exp_c', 'f1'), now + 86_400_000)).toBeUndefined();
      const racing = await Promise.all(['x', 'y', 'z'].map((j) => store().claimIdempotencyKey(a, 'k3', claim(`exp_${j}`, j), now + 86_400_000)));
      expect(racing.filter((r) => r === undefined)).toHaveLength(1);
      // An expired claim (not yet removed by TTL) is free again.
      expect(await store().claimIdempotencyKey(a, 'k2', claim('exp_d', 'f1'), now - 5_000)).toBeUndefined();
      expect(await store().claimIdempotencyKey(a, 'k2', claim('exp_e', 'f1'), now + 86_400_000)).toBeUndefined();
    });

    it('answers the object checks due, oldest first, until each is forgotten', async () => {
      const job = exportJob(account());
      // Due long ago, so no other test's check (due an hour from its put) comes between them.
      const at = Date.UTC(2001, 0, 1) + Math.floor(Math.random() * 1_000_000);
      const mine = async (now: number) => (await store().dueChecks(now, 1000)).filter((c) => c.jobId === job.jobId);
      await store().scheduleCheck({ accountId: job.accountId, jobId: job.jobId, index: 1, key: 'k1' }, at + 2);
      await store().scheduleCheck({ accountId: job.accountId, jobId: job.jobId, index: 0, key: 'k0' }, at + 1);
      await store().scheduleCheck({ accountId: job.accountId, jobId: job.jobId, index: 0, key: 'k0' }, at + 1); // a partition's second attempt
      expect((await mine(at + 2)).map((c) => c.key)).toEqual(['k0', 'k0']);
      const due = await mine(at + 10);
      expect(due.map(({ accountId, index, key }) => ({ accountId, index, key }))).toEqual([
        { accountId: job.accountId, index: 0, key: 'k0' },
        { accountId: job.accountId, index: 0, key: 'k0' },
        { accountId: job.accountId, index: 1, key: 'k1' },
      ]);
      for (const check of due) await store().forgetCheck(check.id);
      expect(await mine(at + 10)).toEqual([]);
    });
  });
}

export function exportObjectsContract(objects: () => ExportObjects): void {
  describe('ExportObjects', () => {
    const dir = mkdtempSync(join(tmpdir(), 'export-contract-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('stores a file, links to it for download under the name given, and deletes it', async () => {
      const path = join(dir, 'part.parquet');
      writeFileSync(path, Buffer.alloc(5_000, 9));
      const key = `jobs/${randomUUID()}/part-0.parquet`;
      expect(await objects().putFile(key, path)).toMatchObject({ bytes: 5_000 });
      const response = await fetch(await objects().downloadLink(key, 300, 'BTC-2026-11-20.parquet'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toBe('attachment; filename="BTC-2026-11-20.parquet"');
      expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.alloc(5_000, 9));
      await objects().delete([key, `jobs/${randomUUID()}/never-written`]);
      expect((await fetch(await objects().downloadLink(key, 300, 'gone.parquet'))).status).toBe(404);
      await objects().delete([]);
    });
  });
}
