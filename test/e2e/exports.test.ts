/**
 * Bulk export over HTTP against the local cloud: quote, run (the synthesized `export` state
 * machine), poll, download through the pre-signed link, read back with DuckDB and compare with the
 * REST rows; idempotency; cancel; a job forced to fail; both export events at a subscribed endpoint.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCloud, KEYS } from '../helpers/local-cloud.ts';
import { apiClient, eventually, keyedGet, walkPages } from '../helpers/api.ts';
import { jsonl, trade } from '../helpers/records.ts';
import { startReceiver, type Receiver } from '#local/receiver.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';
import { invoke } from '#local/invoke.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { EXPORT_FORMATS } from '#schemas/exports.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Two closed UTC days well inside coverage; the export window starts mid-day to cut the first. */
const DAY1 = Date.UTC(2026, 10, 20);
const WINDOW = { start: DAY1 + 6 * HOUR, end: DAY1 + 2 * DAY };
const SYMBOLS = ['BTC', 'ETH', 'SOL'];

let cloud: Awaited<ReturnType<typeof startTestCloud>>;
let receiver: Receiver;
let s3: S3Client;
let scratch: string;
const call = apiClient(() => cloud.url);
const get = keyedGet(() => cloud.url, KEYS.build);

async function land(name: string, records: readonly NormalizedRecord[]): Promise<void> {
  await s3.send(
    new PutObjectCommand({ Bucket: cloud.emulators.names.buckets.archive, Key: `landing/normalized/2026-11-20/${name}.jsonl`, Body: jsonl(records) }),
  );
}

/** Trades of one symbol every `stepMs` over [from, to), ids from `firstId`, varied decimals. */
function tradesOf(symbol: string, from: number, to: number, stepMs: number, firstId: number): NormalizedRecord[] {
  const rows: NormalizedRecord[] = [];
  for (let ts = from, i = 0; ts < to; ts += stepMs, i += 1) {
    rows.push(trade({ symbol, ts, trade_id: firstId + i, price: `${1000 + (i % 97)}.${i % 10}5`, size: `0.00${(i % 9) + 1}`, side: i % 3 === 0 ? 'A' : 'B' }));
  }
  return rows;
}

const batch1 = SYMBOLS.flatMap((s, k) => tradesOf(s, DAY1, DAY1 + 2 * DAY, 7 * 60_000, 1_000_000 * (k + 1)));
// A later batch: new rows of day 2, and rows repeated from batch 1 (the same trade ids): they must appear once.
const batch2 = [
  ...SYMBOLS.flatMap((s, k) => tradesOf(s, DAY1 + DAY + 3 * 60_000, DAY1 + 2 * DAY, 11 * 60_000, 1_000_000 * (k + 1) + 500_000)),
  ...batch1.slice(200, 260),
];

async function restRows(symbol: string): Promise<any[]> {
  return walkPages(get, `/v1/perpx/trades/${symbol}`, { start: WINDOW.start, end: WINDOW.end - 1, limit: 1000 });
}

async function untilDone(key: string, id: string): Promise<any> {
  const res = await eventually(
    () => call(key, 'GET', `/v1/exports/${id}`),
    (r) => ['completed', 'failed', 'canceled'].includes(r.body.data?.state),
  );
  return res.body.data;
}

/** Downloads a file through its link and reads it back with DuckDB. */
async function readExportFile(key: string, apiUrl: string): Promise<{ rows: any[]; sha256: string; bytes: number; columns: any[] }> {
  const link = await call(key, 'GET', apiUrl);
  expect(link.status).toBe(200);
  const res = await fetch(link.body.data.url);
  expect(res.status).toBe(200);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const path = join(scratch, `${Math.random().toString(36).slice(2)}.parquet`);
  writeFileSync(path, bytes);
  const { sql } = archiveDeps();
  const rows = await sql.query({ sql: 'SELECT *, CAST("timestamp" AS VARCHAR) AS timestamp_text FROM read_parquet($p)', params: { p: path } });
  const columns = await sql.query({ sql: 'SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet($p))', params: { p: path } });
  return { rows, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length, columns };
}

beforeAll(async () => {
  process.env.WEBHOOK_ALLOWED_TARGETS = '127.0.0.1';
  receiver = await startReceiver();
  cloud = await startTestCloud();
  scratch = mkdtempSync(join(tmpdir(), 'export-read-'));
  s3 = new S3Client({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: cloud.emulators.endpoints.s3, forcePathStyle: true });
  // Both export events go to one endpoint of the Build account.
  const endpoint = await call(KEYS.build, 'POST', '/v1/webhooks/endpoints', { url: receiver.url('/exports') });
  expect(endpoint.status).toBe(201);
  for (const type of ['export.job.completed', 'export.job.failed']) {
    expect((await call(KEYS.build, 'POST', '/v1/webhooks/subscriptions', { endpoint_id: endpoint.body.data.id, event_type: type })).status).toBe(201);
  }
  // Batch 1 is compacted into day files; batch 2 stays an uncompacted delta beside them.
  await land('batch-1', batch1);
  await eventually(
    () => restRows('SOL'),
    (rows) => rows.length > 0,
  );
  await invoke('compact', {});
  await land('batch-2', batch2);
  const expected = new Set(
    [...batch1, ...batch2].filter((r) => r.symbol === 'SOL' && r.ts >= WINDOW.start && r.ts < WINDOW.end).map((r) => (r as { trade_id: number }).trade_id),
  );
  await eventually(
    () => restRows('SOL'),
    (rows) => rows.length === expected.size,
  );
});

afterAll(async () => {
  await cloud?.stop();
  await receiver?.close();
  s3?.destroy();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  delete process.env.WEBHOOK_ALLOWED_TARGETS;
});

describe('quotes', () => {
  it("quotes from the manifest without starting anything (dry_run), at the schema's minimum price for a small export", async () => {
    const res = await call(KEYS.free, 'POST', '/v1/exports', { schema: 'trades', family: 'perpx', ...WINDOW, dry_run: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      schema: 'trades',
      schema_version: 'trades.v1',
      family: 'perpx',
      symbols: SYMBOLS.slice().sort(),
      partitions: 6,
      price_usd: 15,
      currency: 'USD',
      pricing: { usd_per_gb: 8, minimum_usd: 15 },
      start: new Date(WINDOW.start).toISOString(),
      end: new Date(WINDOW.end).toISOString(),
    });
    const stored = [...batch1, ...batch2].filter((r) => r.ts >= WINDOW.start && r.ts < WINDOW.end).length;
    // An estimate: rows spread evenly over each file's span, repeated rows counted as stored.
    expect(res.body.data.estimated_rows).toBeGreaterThan(stored * 0.8);
    expect(res.body.data.estimated_rows).toBeLessThan(stored * 1.2);
    expect((await call(KEYS.free, 'GET', '/v1/exports')).body.data).toEqual([]);
  });

  it('lets a free plan quote but not run', async () => {
    const res = await call(KEYS.free, 'POST', '/v1/exports', { schema: 'trades', family: 'perpx', ...WINDOW });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error_code: 'plan_limit', error: expect.stringContaining('build') });
  });

  it.each([
    [{ schema: 'candles' }, 'schema', /trades, order_events/],
    [{ schema: 'breadth' }, 'schema', /no standalone export schema/],
    [{ schema: 'order_events', family: 'altx' }, 'family', /does not cover altx/],
    [{ family: 'nope' }, 'family', /must be one of/],
    [{ symbols: ['xyz:TSLA'] }, 'symbols', /not a perpx symbol/],
    [{ symbols: [] }, 'symbols', /must not be empty/],
    [{ start: Date.UTC(2020, 0, 1), end: Date.UTC(2020, 0, 2) }, 'start', /from 2023-04-15/],
    [{ end: Date.now() + DAY }, 'end', /future/],
    [{ start: WINDOW.end, end: WINDOW.start }, 'end', /after start/],
    [{ start: Date.UTC(2026, 5, 1), end: Date.UTC(2026, 6, 15) }, 'end', /at most 31 days/],
    [{ start: Date.UTC(2026, 10, 1), end: Date.UTC(2026, 10, 2) }, 'start', /holds no trades/],
    [{ start: '1' }, 'start', /epoch milliseconds/],
  ])('refuses %j with 400 naming %s', async (change, param, message) => {
    const res = await call(KEYS.build, 'POST', '/v1/exports', { schema: 'trades', family: 'perpx', ...WINDOW, ...change, dry_run: true });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 400, param, request_id: expect.any(String) });
    expect(res.body.error).toMatch(message);
  });
});

describe('a completed job', () => {
  let job: any;
  beforeAll(async () => {
    const created = await call(KEYS.build, 'POST', '/v1/exports', { schema: 'trades', family: 'perpx', ...WINDOW });
    expect(created.status).toBe(202);
    expect(created.body.data).toMatchObject({ state: 'running', started_at: expect.any(String), progress: { partitions_total: 6, partitions_done: 0 } });
    expect(created.body.data).not.toHaveProperty('files');
    job = await untilDone(KEYS.build, created.body.data.id);
  });

  it('completes with every partition, its files, rows, bytes and the price of what was written', () => {
    expect(job).toMatchObject({ state: 'completed', schema_version: 'trades.v1', progress: { partitions_done: 6, partitions_total: 6 }, price_usd: 15 });
    expect(job.files).toHaveLength(6);
    expect(job.progress.rows_written).toBe(job.files.reduce((sum: number, f: any) => sum + f.rows, 0));
    expect(job.progress.bytes_written).toBe(job.files.reduce((sum: number, f: any) => sum + f.bytes, 0));
    expect(Date.parse(job.expires_at) - Date.parse(job.finished_at)).toBe(7 * DAY);
  });

  it('holds exactly the REST rows of the window (same ids, same decimals), each in one file, in the declared column types', async () => {
    for (const symbol of SYMBOLS) {
      const files = job.files.filter((f: any) => f.symbol === symbol);
      expect(files.map((f: any) => f.day)).toEqual(['2026-11-20', '2026-11-21']);
      const exported: any[] = [];
      for (const file of files) {
        const read = await readExportFile(KEYS.build, file.api_url);
        expect(read.sha256).toBe(file.sha256);
        expect(read.bytes).toBe(file.bytes);
        expect(read.rows).toHaveLength(file.rows);
        expect(read.columns.map((c: any) => [c.column_name, c.column_type])).toEqual(EXPORT_FORMATS.trades.columns.map((c) => [c.name, c.type]));
        exported.push(...read.rows);
      }
      const rest = await restRows(symbol);
      expect(exported.map((r) => Number(r.trade_id))).toEqual(rest.map((r) => r.trade_id));
      expect(exported.map((r) => [r.price, r.size, r.side, r.symbol, r.family])).toEqual(rest.map((r) => [r.price, r.size, r.side, symbol, 'perpx']));
      expect(exported.map((r) => `${r.timestamp_text.replace(' ', 'T')}Z`.replace(/(\.\d{3})?Z$/, (_m, ms) => `${ms ?? '.000'}Z`))).toEqual(
        rest.map((r) => r.timestamp),
      );
      expect(exported.map((r) => Number(r.ts))).toEqual(rest.map((r) => Date.parse(r.timestamp)));
    }
  });

  it('answers 307 with the link in Location when asked to redirect, and only for its owner', async () => {
    const file = job.files[0];
    const res = await fetch(`${cloud.url}${file.api_url}?redirect=true`, { headers: { 'X-API-Key': KEYS.build }, redirect: 'manual' });
    expect(res.status).toBe(307);
    expect(res.headers.get('location')).toMatch(/X-Amz-Signature=/);
    expect((await call(KEYS.pro, 'GET', file.api_url)).body).toMatchObject({ code: 404, error_code: 'not_found' });
    expect((await call(KEYS.pro, 'GET', `/v1/exports/${job.id}`)).status).toBe(404);
    expect((await call(KEYS.build, 'GET', `/v1/exports/${job.id}/files/part-00099-2026-11-20-BTC.parquet`)).status).toBe(404);
  });

  it("announces export.job.completed with job_id and the job's api_url, and no download link", async () => {
    const [req] = await eventually(
      () => receiver.requests.filter((r) => r.headers['svc-event-type'] === 'export.job.completed' && r.body.includes(job.id)),
      (r) => r.length === 1,
    );
    const event = JSON.parse(req!.body);
    expect(event.data).toMatchObject({ job_id: job.id, status: 'completed', api_url: `/v1/exports/${job.id}` });
    expect(req!.body).not.toMatch(/X-Amz-Signature|parquet/);
  });

  it('is listed newest first with a cursor', async () => {
    const second = await call(KEYS.build, 'POST', '/v1/exports', { schema: 'trades', family: 'perpx', symbols: ['BTC'], ...WINDOW });
    await untilDone(KEYS.build, second.body.data.id);
    const first = await call(KEYS.build, 'GET', '/v1/exports?limit=1');
    expect(first.body.data.map((j: any) => j.id)).toEqual([second.body.data.id]);
    expect(first.body.meta).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const all = await walkPages(get, '/v1/exports', { limit: 1 });
    expect(all.map((j) => j.id)).toContain(job.id);
    expect(all.every((j) => !('files' in j))).toBe(true);
    expect((await call(KEYS.build, 'GET', '/v1/exports?cursor=bm9wZQ')).body).toMatchObject({ code: 400, error_code: 'invalid_cursor' });
  });
});

describe('idempotency', () => {
  it('returns the same job for the same Idempotency-Key, and 409 for the same key with another request', async () => {
    const post = (body: object, key: string) =>
      fetch(`${cloud.url}/v1/exports`, {
        method: 'POST',
        headers: { 'X-API-Key': KEYS.build, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      });
    const body = { schema: 'trades', family: 'perpx', symbols: ['ETH'], ...WINDOW };
    const first = await post(body, 'retry-me-1');
    const again = await post(body, 'retry-me-1');
    const firstJob = ((await first.json()) as any).data;
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as any).data.id).toBe(firstJob.id);
    const other = await post({ ...body, symbols: ['SOL'] }, 'retry-me-1');
    expect(other.status).toBe(409);
    // Racing retries: one job; the others get it back, or 409 while the first is still storing it.
    const racing = await Promise.all(Array.from({ length: 5 }, () => post({ ...body, symbols: ['BTC'] }, 'race-1')));
    const answers = await Promise.all(racing.map(async (r) => ({ status: r.status, body: (await r.json()) as any })));
    expect(answers.every((a) => a.status === 202 || (a.status === 409 && a.body.error_code === 'conflict'))).toBe(true);
    expect(new Set(answers.filter((a) => a.status === 202).map((a) => a.body.data.id)).size).toBe(1);
    const spaced = await post(body, 'has a space');
    expect(spaced.status).toBe(400);
    expect(await spaced.json()).toMatchObject({ error_code: 'invalid_parameter', param: 'idempotency-key' });
    await untilDone(KEYS.build, firstJob.id);
  });
});

describe('cancel and failure', () => {
  it('cancels a running job, leaving no file of it listed or stored', async () => {
    // Many symbol-days, so the job is still running when the cancel arrives.
    const symbols = Array.from({ length: 40 }, (_, i) => `CXL${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + Math.floor(i / 26))}`);
    await land(
      'cancel-batch',
      symbols.flatMap((s, k) => tradesOf(s, DAY1, DAY1 + 2 * DAY, 3_600_000, 50_000_000 + k * 1000)),
    );
    await eventually(
      () => call(KEYS.build, 'POST', '/v1/exports', { schema: 'trades', family: 'perpx', symbols, ...WINDOW, dry_run: true }),
      (r) => r.status === 200 && r.body.data.partitions === 80,
    );
    const created = await call(KEYS.build, 'POST', '/v1/exports', { schema: 'trades', family: 'perpx', symbols, ...WINDOW });
    const canceled = await call(KEYS.build, 'DELETE', `/v1/exports/${created.body.data.id}`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.data).toMatchObject({ state: 'canceled' });
    expect((await call(KEYS.build, 'DELETE', `/v1/exports/${created.body.data.id}`)).body).toMatchObject({ code: 409, error_code: 'conflict' });
    const stored = () =>
      s3
        .send(new ListObjectsV2Command({ Bucket: cloud.emulators.names.buckets.exports, Prefix: 'exports/' }))
        .then((r) => (r.Contents ?? []).filter((o) => o.Key!.includes(`/${created.body.data.id}/`)));
    // Partitions already running when the cancel came delete their own file when they find the job canceled.
    await eventually(stored, (objects) => objects.length === 0);
    const after = await call(KEYS.build, 'GET', `/v1/exports/${created.body.data.id}`);
    expect(after.body.data.state).toBe('canceled');
    expect(after.body.data).not.toHaveProperty('files');
    expect((await call(KEYS.build, 'GET', `/v1/exports/${created.body.data.id}/files/part-00000-2026-11-20-CXLAA.parquet`)).body).toMatchObject({ code: 409 });
  });

  it("fails as a whole when a partition's archive object is missing, and announces export.job.failed with its error_message", async () => {
    await land('doomed', tradesOf('DOOM', DAY1 + DAY, DAY1 + DAY + HOUR, 60_000, 90_000_000));
    const files = await eventually(
      () => archiveDeps().manifest.deltaFiles('trades', 'perpx', '2026-11-21', '2026-11-21'),
      (deltas) => deltas.some((d) => d.symbols.includes('DOOM')),
      60_000,
    );
    for (const file of files.filter((d) => d.symbols.includes('DOOM'))) {
      await s3.send(new DeleteObjectCommand({ Bucket: cloud.emulators.names.buckets.archive, Key: file.key }));
    }
    const created = await call(KEYS.build, 'POST', '/v1/exports', { schema: 'trades', family: 'perpx', symbols: ['DOOM'], ...WINDOW });
    expect(created.status).toBe(202);
    const job = await untilDone(KEYS.build, created.body.data.id);
    expect(job).toMatchObject({ state: 'failed', error_message: expect.stringContaining('DOOM, 2026-11-21') });
    expect(job).not.toHaveProperty('files');
    const [req] = await eventually(
      () => receiver.requests.filter((r) => r.headers['svc-event-type'] === 'export.job.failed'),
      (r) => r.length === 1,
    );
    expect(JSON.parse(req!.body).data).toMatchObject({ job_id: job.id, status: 'failed', error_message: job.error_message, api_url: `/v1/exports/${job.id}` });
  });
});
