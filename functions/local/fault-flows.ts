/**
 * The real flows the cloud-faults suite and `npm run chaos` run under a fault plan, as a client
 * and an uploader would drive them (batches landed in S3, HTTP calls to the gateway), and the checks
 * that follow: the archive row by row against what was landed, deliveries against what was
 * accepted, an export against the archive and its objects, and no object in S3 the manifest (or a
 * completed export) does not account for.
 * The flows' own setup and checks reach the emulators directly, never through the fault proxy.
 */
import { createHash } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DATASET_NAMES, familiesOf, type NormalizedRecord } from '#schemas/datasets.ts';
import type { ArchiveDeps, ArchiveFile } from '../ports/archive.ts';
import { collectGarbage } from '../core/archive/object-life.ts';
import { collectExportObjects, type ExportObjectLifeDeps } from '../core/exports/object-life.ts';

const DAY = 86_400_000;
export const SYMBOLS = ['BTC', 'ETH', 'SOL'] as const;

export interface FlowTarget {
  url: string;
  key: string;
  /** An S3 client on the emulator itself, and the archive bucket. */
  s3: S3Client;
  bucket: string;
}

/** What the HTTP calls of a flow answered, by status; `unavailable` counts 503s with a Retry-After and the spec's body. */
export interface CallTally {
  statuses: Record<number, number>;
  badUnavailable: string[];
}
export const newTally = (): CallTally => ({ statuses: {}, badUnavailable: [] });

/** A call to the gateway; a 503 must carry `Retry-After` and `upstream_unavailable` (else it is noted as bad). */
export async function call(
  target: FlowTarget,
  tally: CallTally,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any; retryAfter: number }> {
  const res = await fetch(target.url + path, {
    method,
    headers: { 'X-API-Key': target.key, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const parsed = (await res.json().catch(() => ({}))) as any;
  tally.statuses[res.status] = (tally.statuses[res.status] ?? 0) + 1;
  const retryAfter = Number(res.headers.get('retry-after'));
  if (res.status === 503 && (!(retryAfter > 0) || parsed?.error_code !== 'upstream_unavailable')) badUnavailable(tally, method, path, res.status, parsed);
  return { status: res.status, body: parsed, retryAfter };
}

function badUnavailable(tally: CallTally, method: string, path: string, status: number, body: unknown): void {
  tally.badUnavailable.push(`${method} ${path}: ${status} ${JSON.stringify(body).slice(0, 200)}`);
}

/** The call, repeated while it answers 503 (after its Retry-After), as a client is told to; at most `tries` times. */
export async function callPatiently(target: FlowTarget, tally: CallTally, method: string, path: string, body?: unknown, tries = 20) {
  for (let attempt = 1; ; attempt += 1) {
    const res = await call(target, tally, method, path, body);
    if (res.status !== 503 || attempt >= tries) return res;
    await new Promise((resolve) => setTimeout(resolve, Math.min(res.retryAfter || 1, 2) * 1000));
  }
}

/**
 * `count` batches of trades, deterministic for `seed`: each of the three symbols on `days` closed
 * UTC days from `firstDay`, some rows repeated from the batch before (the same trade ids: stored once).
 */
export function tradeBatches(seed: number, count: number, firstDay: number, days: number): NormalizedRecord[][] {
  const batches: NormalizedRecord[][] = [];
  let id = 1_000_000 * ((seed % 1000) + 1);
  for (let b = 0; b < count; b += 1) {
    const rows: NormalizedRecord[] = [];
    for (const symbol of SYMBOLS) {
      for (let i = 0; i < 40; i += 1) {
        const ts = firstDay + ((b * 7919 + i * 104_729 + seed) % (days * DAY));
        id += 1;
        rows.push({
          dataset: 'trades',
          family: 'perpx',
          symbol,
          ts,
          trade_id: id,
          side: i % 3 === 0 ? 'A' : 'B',
          price: `${1000 + ((id * 31) % 997)}.${id % 10}5`,
          size: `0.0${(id % 9) + 1}`,
          crossed: true,
          fee: '0.01',
          fee_token: 'USDC',
          user_address: '0x00000000000000000000000000000000000000aa',
        } as NormalizedRecord);
      }
    }
    if (b > 0) rows.push(...batches[b - 1]!.slice(0, 10));
    batches.push(rows);
  }
  return batches;
}

/** Lands a batch as an uploader does (S3 notifies the ingest queue); `copy` lands the same bytes under another name. */
export async function landBatch(target: FlowTarget, day: string, name: string, records: readonly NormalizedRecord[]): Promise<void> {
  const body = `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
  await target.s3.send(new PutObjectCommand({ Bucket: target.bucket, Key: `landing/normalized/${day}/${name}.jsonl`, Body: body }));
}

/** Every trade of `symbol` in [from, to) through the REST route, page by page (a page that answers 503 is asked again). */
export async function readTrades(target: FlowTarget, tally: CallTally, symbol: string, from: number, to: number): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ start: String(from), end: String(to - 1), limit: '1000', ...(cursor && { cursor }) });
    const res = await callPatiently(target, tally, 'GET', `/v1/perpx/trades/${symbol}?${query}`);
    if (res.status !== 200) throw new Error(`trades of ${symbol}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    rows.push(...res.body.data);
    cursor = res.body.meta.next_cursor;
  } while (cursor);
  return rows;
}

export interface ArchiveCheck {
  expected: number;
  read: number;
  lost: string[];
  twice: string[];
  differing: string[];
}

/** The archive read back through the API, row by row against the records landed (the last copy of a trade id wins nothing: all copies are equal). */
export async function checkArchive(target: FlowTarget, tally: CallTally, landed: readonly NormalizedRecord[], from: number, to: number): Promise<ArchiveCheck> {
  const check: ArchiveCheck = { expected: 0, read: 0, lost: [], twice: [], differing: [] };
  for (const symbol of SYMBOLS) {
    const expected = new Map<number, any>();
    for (const record of landed)
      if (record.symbol === symbol && record.ts >= from && record.ts < to) expected.set((record as { trade_id: number }).trade_id, record);
    const rows = await readTrades(target, tally, symbol, from, to);
    check.expected += expected.size;
    check.read += rows.length;
    const seen = new Set<number>();
    for (const row of rows) {
      const id = Number(row.trade_id);
      if (seen.has(id)) check.twice.push(`${symbol} ${id}`);
      seen.add(id);
      const want = expected.get(id);
      if (!want) check.differing.push(`${symbol} ${id}: not landed`);
      else if (row.price !== want.price || row.size !== want.size || row.side !== want.side) check.differing.push(`${symbol} ${id}: ${JSON.stringify(row)}`);
    }
    for (const id of expected.keys()) if (!seen.has(id)) check.lost.push(`${symbol} ${id}`);
  }
  return check;
}

/** Every file the manifest lists, of every dataset and family, on `days`. */
async function listedFiles(deps: ArchiveDeps, days: readonly string[]): Promise<ArchiveFile[]> {
  const files: ArchiveFile[] = [];
  for (const dataset of DATASET_NAMES) {
    for (const family of familiesOf(dataset)) {
      files.push(...(await deps.manifest.deltaFiles(dataset, family, '0000-01-01', '9999-12-31')));
      for (const day of days) files.push(...(await deps.manifest.compactedFilesOfDay(dataset, family, day)));
    }
  }
  return files;
}

export interface ObjectCheck {
  objects: number;
  listed: number;
  missing: string[];
  orphans: string[];
  collected: number;
}

/**
 * The archive's objects against its manifest: every listed file's object exists (`missing`), and,
 * once the deletions scheduled by then have come due (garbage collected as `hoursLater` from now,
 * twice: an orphan waits a grace more), no object is left that no file lists (`orphans`).
 */
export async function checkObjects(target: FlowTarget, deps: ArchiveDeps, days: readonly string[], hoursLater = 25): Promise<ObjectCheck> {
  const keys = async () => {
    const found: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await target.s3.send(new ListObjectsV2Command({ Bucket: target.bucket, Prefix: 'archive/', ContinuationToken }));
      found.push(...(page.Contents ?? []).map((o) => o.Key!));
      ContinuationToken = page.NextContinuationToken;
    } while (ContinuationToken);
    return found;
  };
  const stored = new Set(await keys());
  const listed = await listedFiles(deps, days);
  const missing = listed.filter((f) => !stored.has(f.key)).map((f) => f.key);
  let collected = 0;
  for (const hours of [hoursLater, hoursLater + 1]) {
    collected += await collectGarbage({ ...deps, clock: { now: () => Date.now() + hours * 3_600_000 } });
  }
  const listedKeys = new Set((await listedFiles(deps, days)).map((f) => f.key));
  const orphans = (await keys()).filter((key) => !listedKeys.has(key));
  return { objects: stored.size, listed: listed.length, missing, orphans, collected };
}

/** Every key in `bucket` under `prefix`. */
async function listKeys(s3: S3Client, bucket: string, prefix?: string): Promise<string[]> {
  const keys: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken }));
    keys.push(...(page.Contents ?? []).map((o) => o.Key!));
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return keys.sort();
}

export interface ExportCheck {
  state: string;
  files: number;
  rowsDiffering: string[];
  objectsDiffering: string[];
}

/**
 * A finished export against the archive and its objects: each file's rows against its symbol-day
 * read through the REST route, and each listed object's SHA-256 against its entry.
 */
export async function checkExport(target: FlowTarget, exportsBucket: string, deps: ExportObjectLifeDeps, jobId: string): Promise<ExportCheck> {
  const job = await callPatiently(target, newTally(), 'GET', `/v1/exports/${jobId}`);
  const files = (job.body.data?.files ?? []) as { name: string; symbol: string; day: string; rows: number; sha256: string }[];
  const check: ExportCheck = { state: String(job.body.data?.state), files: files.length, rowsDiffering: [], objectsDiffering: [] };
  const entries = await deps.exports.files(jobId);
  for (const file of files) {
    const from = Date.parse(`${file.day}T00:00:00Z`);
    const rows = (await readTrades(target, newTally(), file.symbol, from, from + DAY)).length;
    if (rows !== file.rows) check.rowsDiffering.push(`${file.name}: ${file.rows} exported, ${rows} in the archive`);
    const key = entries.find((e) => e.name === file.name)?.key;
    const object = key && (await target.s3.send(new GetObjectCommand({ Bucket: exportsBucket, Key: key })).catch(() => undefined));
    const sha256 =
      object
      && createHash('sha256')
        .update(await object.Body!.transformToByteArray())
        .digest('hex');
    if (sha256 !== file.sha256) check.objectsDiffering.push(`${file.name}: ${sha256 ?? 'no object'}`);
  }
  return check;
}

export interface ExportObjectsCheck {
  objects: number;
  listed: number;
  missing: string[];
  unlisted: string[];
  collected: number;
}

/**
 * The exports bucket against the files the account's completed jobs list, once the objects' checks
 * due `hoursLater` from now have run (as the compact schedule runs them): every listed object is
 * there (`missing`) and no other is left (`unlisted`).
 */
export async function checkExportObjects(target: FlowTarget, exportsBucket: string, deps: ExportObjectLifeDeps, hoursLater = 25): Promise<ExportObjectsCheck> {
  const collected = await collectExportObjects({ ...deps, clock: { now: () => Date.now() + hoursLater * 3_600_000 } });
  const jobs = await callPatiently(target, newTally(), 'GET', '/v1/exports?limit=100');
  const listed = new Set<string>();
  for (const job of (jobs.body.data ?? []) as { id: string; state: string }[]) {
    if (job.state === 'completed') for (const file of await deps.exports.files(job.id)) listed.add(file.key);
  }
  const stored = await listKeys(target.s3, exportsBucket);
  return {
    objects: stored.length,
    listed: listed.size,
    collected,
    missing: [...listed].filter((key) => !stored.includes(key)),
    unlisted: stored.filter((key) => !listed.has(key)),
  };
}
