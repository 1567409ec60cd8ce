/**
 * Export jobs against the real adapters (dynalite, s3rver, DuckDB): a partition counted once
 * however often it is retried, nothing recorded for a canceled job, and partitions read back equal
 * to the archive's rows for both schemas, an uncompacted delta with repeated rows included once.
 * The job store's own behaviour (pages, Idempotency-Key claims) is a port contract
 * (test/contracts/exports.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { exportObjects, exportStore } from '#shared/deps.ts';
import { ingestRecords } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { readWindow } from '#core/archive/read-pages.ts';
import { exportPartition, exportFileName } from '#core/exports/partition.ts';
import { newExportId } from '#core/exports/jobs.ts';
import { finishExport } from '#core/exports/finish.ts';
import { CHECK_AFTER_MS, collectExportObjects } from '#core/exports/object-life.ts';
import { planExport } from '#core/exports/plan.ts';
import type { ExportJobRecord, ExportPartition } from '#ports/exports.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';
import type { UserEventMessage } from '#schemas/messages.ts';
import { trade } from '../helpers/records.ts';

const DAY1 = Date.UTC(2026, 10, 20);
const ACCOUNT = 'acct-export-test';
let env: ScratchEmulators;
const clockNow = Date.UTC(2026, 10, 25);
const clock = { now: () => clockNow };
const deps = () => ({ ...archiveDeps(), clock, exports: exportStore(), exportObjects: exportObjects() });

const trades = (symbol: string, from: number, count: number, stepMs: number, firstId: number) =>
  Array.from({ length: count }, (_, i) => trade({ symbol, ts: from + i * stepMs, trade_id: firstId + i, price: `${2000 + i}.${i % 7}`, size: `1.0${i % 10}` }));

function orderEvent(symbol: string, ts: number, block: number, seq: number): NormalizedRecord {
  return {
    dataset: 'order_events',
    family: 'perpx',
    symbol,
    ts,
    event: seq % 2 ? 'canceled' : 'placed',
    block_number: block,
    seq,
    oid: block * 10 + seq,
    user_address: '0x00000000000000000000000000000000000000aa',
    side: 'B',
    status: 'open',
    limit_price: `${100 + seq}.25`,
    size: '0.5',
    orig_size: '0.5',
    order_type: 'Limit',
    reduce_only: false,
    is_trigger: seq === 3,
    is_position_tpsl: false,
    ...(seq === 3 && { trigger_condition: 'Price above 101', trigger_price: '101.5' }),
  } as NormalizedRecord;
}

async function newJob(
  schema: 'trades' | 'order_events',
  symbols: string[],
  from: number,
  to: number,
): Promise<{ job: ExportJobRecord; partitions: ExportPartition[] }> {
  const plan = await planExport(archiveDeps().manifest, { schema, family: 'perpx', symbols, start: from, end: to, dry_run: false }, clock.now());
  const job: ExportJobRecord = {
    accountId: ACCOUNT,
    jobId: newExportId(clock.now()),
    state: 'queued',
    schema,
    family: 'perpx',
    symbols: plan.quote.symbols,
    from,
    to,
    createdAt: clock.now(),
    quote: plan.quote,
    partitionsTotal: plan.partitions.length,
    partitionsDone: 0,
    rowsWritten: 0,
    bytesWritten: 0,
  };
  await exportStore().createJob(job, plan.partitions);
  return { job, partitions: plan.partitions };
}

async function readBack(key: string): Promise<Record<string, unknown>[]> {
  const local = join(archiveDeps().scratchDir, `readback-${Math.random().toString(36).slice(2)}.parquet`);
  const s3 = new S3Client({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: env.emulators.endpoints.s3, forcePathStyle: true });
  const out = await s3.send(new GetObjectCommand({ Bucket: env.emulators.names.buckets.exports, Key: key }));
  writeFileSync(local, await out.Body!.transformToByteArray());
  s3.destroy();
  return archiveDeps().sql.query({ sql: 'SELECT * FROM read_parquet($p)', params: { p: local } });
}

beforeAll(async () => {
  env = await startScratchEmulators();
  await ingestRecords(archiveDeps(), [...trades('BTC', DAY1, 300, 60_000, 1_000), ...trades('ETH', DAY1, 300, 60_000, 5_000)]);
  const events = Array.from({ length: 40 }, (_, i) => orderEvent('BTC', DAY1 + i * 30_000, 700 + Math.floor(i / 4), i % 4));
  await ingestRecords(archiveDeps(), events);
  await compactArchive(archiveDeps());
  // A later delta beside the compacted day: new rows and rows repeated from the first batch.
  await ingestRecords(archiveDeps(), [...trades('BTC', DAY1 + 400 * 60_000, 50, 60_000, 1_400), ...trades('BTC', DAY1, 20, 60_000, 1_000)]);
});
afterAll(async () => {
  await env?.stop();
});

describe('a partition', () => {
  it("holds the archive's rows of its symbol-day once each, an uncompacted delta included, and is counted once when retried", async () => {
    const { job, partitions } = await newJob('trades', ['BTC'], DAY1, DAY1 + 86_400_000);
    expect(partitions).toEqual([{ i: 0, s: 'BTC', d: '2026-11-20' }]);
    const first = await exportPartition(deps(), job, partitions[0]!);
    const retried = await exportPartition(deps(), job, partitions[0]!);
    expect(first).toMatchObject({ status: 'written', rows: 350 });
    expect(retried).toMatchObject({ status: 'already_written', rows: 350 });
    const stored = await exportStore().getJob(ACCOUNT, job.jobId);
    expect(stored).toMatchObject({ partitionsDone: 1, rowsWritten: 350 });
    const [file] = await exportStore().files(job.jobId);
    expect(file).toMatchObject({ name: exportFileName(partitions[0]!), rows: 350 });
    const rows = await readBack(file!.key);
    const archive = (await readWindow(archiveDeps(), { dataset: 'trades', family: 'perpx', symbol: 'BTC', from: DAY1, to: DAY1 + 86_399_999, limit: 10_000 }))
      .rows;
    expect(rows.map((r) => [Number(r.trade_id), r.price, r.size, Number(r.ts)])).toEqual(archive.map((r) => [r.trade_id, r.price, r.size, r.ts]));
  });

  it('writes order events in order_events.v1 with the stored decimals and trigger members', async () => {
    const { job, partitions } = await newJob('order_events', ['BTC'], DAY1, DAY1 + 86_400_000);
    await exportPartition(deps(), job, partitions[0]!);
    const [file] = await exportStore().files(job.jobId);
    const rows = await readBack(file!.key);
    const archive = (
      await readWindow(archiveDeps(), { dataset: 'order_events', family: 'perpx', symbol: 'BTC', from: DAY1, to: DAY1 + 86_399_999, limit: 10_000 })
    ).rows;
    expect(rows).toHaveLength(40);
    expect(rows.map((r) => [Number(r.block_number), Number(r.seq), r.event, r.limit_price, r.trigger_price ?? null])).toEqual(
      archive.map((r) => [r.block_number, r.seq, r.event, r.limit_price, r.trigger_price ?? null]),
    );
  });

  it('records nothing for a canceled job and removes the file it wrote, leaving no entry', async () => {
    const { job, partitions } = await newJob('trades', ['ETH'], DAY1, DAY1 + 86_400_000);
    expect(await exportStore().transition(ACCOUNT, job.jobId, ['queued', 'running'], 'canceled', { finishedAt: clock.now() })).toBe(true);
    expect(await exportPartition(deps(), job, partitions[0]!)).toEqual({ status: 'skipped', state: 'not_running' });
    expect(await exportStore().files(job.jobId)).toEqual([]);
    expect(
      await exportStore().recordFile(ACCOUNT, job.jobId, { index: 0, name: 'x', symbol: 'ETH', day: '2026-11-20', rows: 1, bytes: 1, sha256: 'x', key: 'k' }),
    ).toBe('not_running');
  });
});

describe('the end of a job', () => {
  it('completes when every partition is written, at the price of the bytes written, and announces it (a retried Finish: the same event)', async () => {
    const { job, partitions } = await newJob('trades', ['BTC', 'ETH'], DAY1, DAY1 + 86_400_000);
    for (const partition of partitions) await exportPartition(deps(), job, partition);
    const announced: UserEventMessage[] = [];
    const finish = () =>
      finishExport(
        {
          exports: exportStore(),
          exportObjects: exportObjects(),
          clock,
          announce: async (e) => {
            announced.push(e);
          },
        },
        { account_id: ACCOUNT, job_id: job.jobId, outcome: 'completed' },
      );
    expect(await finish()).toEqual({ state: 'completed' });
    expect(await finish()).toEqual({ state: 'completed' });
    // The second run is a Finish retried after its transition landed: it cannot know whether the first announced.
    const event = { type: 'export.job.v1', account_id: ACCOUNT, job_id: job.jobId, status: 'completed', api_url: `/v1/exports/${job.jobId}`, at: clockNow };
    expect(announced).toEqual([event, event]);
    expect(await exportStore().getJob(ACCOUNT, job.jobId)).toMatchObject({
      state: 'completed',
      partitionsDone: 2,
      priceUsd: 15,
      expiresAt: clockNow + 7 * 86_400_000,
    });
  });

  it('fails a job whose partitions are not all written, removing the files it has', async () => {
    const { job, partitions } = await newJob('trades', ['BTC', 'ETH'], DAY1, DAY1 + 86_400_000);
    await exportPartition(deps(), job, partitions[0]!);
    const announced: UserEventMessage[] = [];
    await finishExport(
      {
        exports: exportStore(),
        exportObjects: exportObjects(),
        clock,
        announce: async (e) => {
          announced.push(e);
        },
      },
      { account_id: ACCOUNT, job_id: job.jobId, outcome: 'completed' },
    );
    expect(announced).toMatchObject([{ status: 'failed', error_message: '1 of 2 partitions were written.' }]);
    expect(await exportStore().files(job.jobId)).toEqual([]);
  });

  it('checks each object once due: kept while its job runs or once the completed job lists it, deleted with its entry otherwise', async () => {
    const exists = async (key: string) => {
      const s3 = new S3Client({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: env.emulators.endpoints.s3, forcePathStyle: true });
      try {
        return await s3.send(new HeadObjectCommand({ Bucket: env.emulators.names.buckets.exports, Key: key })).then(
          () => true,
          () => false,
        );
      } finally {
        s3.destroy();
      }
    };
    const jobs = await Promise.all([0, 1, 2].map(() => newJob('trades', ['BTC'], DAY1, DAY1 + 86_400_000)));
    for (const { job, partitions } of jobs) await exportPartition(deps(), job, partitions[0]!);
    const [completed, running, canceled] = jobs.map(({ job }) => job);
    await finishExport(
      { exports: exportStore(), exportObjects: exportObjects(), clock, announce: async () => undefined },
      { account_id: ACCOUNT, job_id: completed!.jobId, outcome: 'completed' },
    );
    // Canceled with its deletions failed: its file and entry are left.
    await exportStore().transition(ACCOUNT, canceled!.jobId, ['queued'], 'canceled', { finishedAt: clockNow });
    const keyOf = async (jobId: string) => (await exportStore().files(jobId))[0]!.key;
    const keys = { completed: await keyOf(completed!.jobId), running: await keyOf(running!.jobId), canceled: await keyOf(canceled!.jobId) };
    const collect = (at: number) => collectExportObjects({ exports: exportStore(), exportObjects: exportObjects(), clock: { now: () => at } });

    expect(await collect(clockNow + CHECK_AFTER_MS - 1)).toBe(0);
    expect(await exists(keys.canceled)).toBe(true);
    await collect(clockNow + CHECK_AFTER_MS + 1);
    expect(await exists(keys.completed)).toBe(true);
    expect(await exists(keys.running)).toBe(true);
    expect(await exists(keys.canceled)).toBe(false);
    expect(await exportStore().files(canceled!.jobId)).toEqual([]);
    // The running job's object is looked at again an hour later: its job failed by then (as a Fail whose deletions failed).
    await exportStore().transition(ACCOUNT, running!.jobId, ['queued'], 'failed', { finishedAt: clockNow });
    expect(await collect(clockNow + 2 * CHECK_AFTER_MS + 2)).toBeGreaterThanOrEqual(1);
    expect(await exists(keys.running)).toBe(false);
    expect(await exists(keys.completed)).toBe(true);
  });
});
