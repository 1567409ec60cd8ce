/**
 * `npm run ingest -- <file|dir>... [--format F] [--family altx|altx-rh] [--bucket s3://name] [--at T] [--spot-meta FILE] [--timeout seconds]`:
 * brings real venue files into the archive through the ingest path itself. Each file (directories
 * are walked; `.lz4` frames and `.gz` are decompressed here, and land gzipped) gets its format from
 * `--format`, else from its path (the venue archive's directory names), else from its content; it
 * is checked with the parser ingest runs (a refused file is not uploaded), put under
 * `landing/<format>/<day>/` in the running local cloud's archive bucket (or, with `--bucket`, a
 * deployed stack's: the manifest table then comes from TABLE_MANIFEST, and AWS region and
 * credentials from the environment, as do endpoints other than AWS's, `AWS_ENDPOINT_URL_S3` and
 * `AWS_ENDPOINT_URL_DYNAMODB`, with `S3_FORCE_PATH_STYLE=true` for a store that wants path-style
 * URLs), and awaited in the manifest. Prints per file the rows per dataset or the refusal
 * with its line and field; exits 1 when any file was refused or did not finish. A file already
 * ingested (the batch id is the hash of its content) is not sent again.
 *
 * Order: the spot metadata first (`--spot-meta`, or a file named `spotMeta`), so the `@N` pairs of
 * the files after it are named; L4 snapshots last, each at `--at`, else at the time of its block
 * (or the next) from the node's block files of the same run. Recordings of the altx venue's API
 * (`--family`, or an `altx`/`altx-rh` directory in their path, says whose) are checked against the
 * family's instrument registry as the ingest function reads it (their market ids); one naming
 * markets only a later file describes is sent again after the others.
 *
 * The node's streamed book diffs and order statuses (`node_raw_book_diffs_streaming`,
 * `node_order_statuses_streaming`) are checked file by file, then the files of each directory are
 * cut at block boundaries (core/archive/streamed-run.ts): a block the node wrote across the turn
 * of an hour is sent whole with the file where it began, and the directory's first and last
 * blocks, which may be cut, are held back and named.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { decompressFrameSync } from 'lz4-napi';
import { setTimeout as sleep } from 'node:timers/promises';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { attachToRunningCloud } from '../functions/local/cloud.ts';
import { localSettings } from '../functions/local/settings.ts';
import { archiveManifest, s3Client } from '../functions/shared/deps.ts';
import { config, requireSetting } from '../functions/shared/config.ts';
import { BUCKETS, TABLES } from '../functions/resources.ts';
import { BATCH_FORMATS, type BatchFormat } from '../schemas/messages.ts';
import { batchIdOf } from '../functions/core/archive/ingest.ts';
import { landingKey } from '../functions/core/archive/layout.ts';
import { parseBatch, type ParseOptions, type ParseResult } from '../functions/core/archive/parse.ts';
import { ALTX_FORMAT_FAMILY, isAltxFormat } from '../functions/core/archive/altx-api.ts';
import { formatOfPath, sniffFormat } from '../functions/core/archive/sniff.ts';
import { isStreamedFormat, type StreamedFormat } from '../functions/core/archive/node-streamed.ts';
import { cutStreamedRun, streamOrder, type StreamedBatch, type StreamedFile } from '../functions/core/archive/streamed-run.ts';
import { snapshotHeight } from '../functions/core/archive/node-snapshot.ts';
import { spotNamesOf } from '../functions/core/archive/spot-meta.ts';
import { epochMsOfIso } from '../functions/core/archive/asset-ctxs.ts';
import { plural, progressBar } from './progress.ts';

const USAGE =
  'usage: npm run ingest -- <file|dir>... [--format F] [--family altx|altx-rh] [--bucket s3://name] [--at T] [--spot-meta FILE] [--timeout seconds]';
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    format: { type: 'string' },
    family: { type: 'string' },
    bucket: { type: 'string' },
    timeout: { type: 'string', default: '600' },
    at: { type: 'string' },
    'spot-meta': { type: 'string' },
  },
});
const fail = (message: string): never => {
  console.error(message);
  process.exit(2);
};
if (positionals.length === 0) fail(USAGE);
if (values.format !== undefined && !(BATCH_FORMATS as readonly string[]).includes(values.format)) fail(`--format must be one of ${BATCH_FORMATS.join(', ')}`);
if (values.family !== undefined && values.family !== 'altx' && values.family !== 'altx-rh')
  fail('--family must be altx or altx-rh (which deployment of the altx venue a recording is of)');
const family = values.family as 'altx' | 'altx-rh' | undefined;
const timeoutMs = Number(values.timeout) * 1000;
if (!(timeoutMs > 0)) fail('--timeout must be a number of seconds');
/** `--at`: epoch milliseconds or an ISO time (UTC when it names no zone). */
const at = values.at === undefined ? undefined : /^\d{12,15}$/.test(values.at) ? Number(values.at) : epochMsOfIso(values.at);
if (values.at !== undefined && at === undefined) fail('--at must be epoch milliseconds or an ISO time (2026-05-01T12:00:00Z)');
const missing = [...positionals, ...(values['spot-meta'] ? [values['spot-meta']] : [])].filter((path) => !existsSync(path));
if (missing.length > 0) fail(`not found: ${missing.join(', ')}`);

let bucket = '';
if (values.bucket) {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/?$/.exec(values.bucket);
  bucket = match ? match[1]! : fail('--bucket must be s3://<bucket name>');
  if (!process.env[TABLES.manifest.envVar])
    fail(`--bucket needs ${TABLES.manifest.envVar}: the deployed stack's manifest table, where each file's outcome is awaited`);
  // The archive's reader (altx recordings' market ids) reads this bucket too.
  process.env[BUCKETS.archive.envVar] ??= bucket;
} else {
  try {
    attachToRunningCloud(localSettings().LOCAL_DATA_DIR);
  } catch (error) {
    fail((error as Error).message);
  }
  bucket = requireSetting(config(), BUCKETS.archive.envVar);
}

/** Every file under the paths given, in name order; dot files skipped. */
function filesOf(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((name) => !name.startsWith('.'))
    .sort()
    .flatMap((name) => filesOf(join(path, name)));
}
interface Input {
  file: string;
  root: string;
  format?: BatchFormat;
}
const walked: Input[] = positionals.flatMap((path) => filesOf(path).map((file) => ({ file, root: path, format: values.format as BatchFormat | undefined })));
const rank = (input: Input) =>
  (({ spot_meta: 0, node_l4_snapshot: 2 }) as Partial<Record<BatchFormat, number>>)[input.format ?? formatOfPath(input.file) ?? 'normalized'] ?? 1;
const inputs: Input[] = [
  ...(values['spot-meta'] ? [{ file: values['spot-meta'], root: values['spot-meta'], format: 'spot_meta' as const }] : []),
  // Stable: name order within each rank.
  ...walked.sort((a, b) => rank(a) - rank(b)),
];

const GZIP = [0x1f, 0x8b];
const LZ4_FRAME = [0x04, 0x22, 0x4d, 0x18];
const startsWith = (bytes: Uint8Array, magic: number[]) => magic.every((byte, i) => bytes[i] === byte);

/** The file's text, decompressed (LZ4 frames, as the venue's archive writes them, or gzip); or why it cannot be read. */
function textOf(file: string): Buffer | { error: string } {
  const bytes = readFileSync(file);
  const lz4 = file.endsWith('.lz4') || startsWith(bytes, LZ4_FRAME);
  const gzip = !lz4 && (file.endsWith('.gz') || startsWith(bytes, GZIP));
  try {
    return lz4 ? decompressFrameSync(bytes) : gzip ? gunzipSync(bytes) : bytes;
  } catch (error) {
    // A truncated or corrupt frame: refused whole, before anything is uploaded.
    return { error: `not a whole ${lz4 ? 'LZ4 frame' : 'gzip stream'} (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** The key's name part: the file's path under what was given, readable and unique by its batch id. */
const nameOf = (file: string, root: string, batchId: string) =>
  `${batchId.slice(0, 16)}-${(relative(root, file) || basename(file))
    .replace(/\.(gz|lz4)$/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(-120)}.jsonl.gz`;

/** What the run has learnt so far: each block's time (from the node's block files), the spot pairs' names. */
const blockTimes = new Map<number, number>();
const spotNames = new Map<number, string>();
const unnamedSpot = new Set<string>();

/**
 * What the ingest function reads an altx recording with (core/archive/ingest.ts): the family's
 * registry as it stands, read from the archive (DuckDB loaded only then).
 */
async function altxMarketsOf(format: BatchFormat): Promise<Pick<ParseOptions, 'altxMarkets'>> {
  if (!isAltxFormat(format)) return {};
  const [{ archiveDeps }, { registryMarkets }] = await Promise.all([
    import('../functions/shared/archive-deps.ts'),
    import('../functions/core/archive/altx-markets.ts'),
  ]);
  return { altxMarkets: await registryMarkets(archiveDeps(), ALTX_FORMAT_FAMILY[format]) };
}

type Outcome = { file: string; ok: boolean; message: string; unknownMarkets?: boolean };

/**
 * The stream a node's streamed file belongs to: its path up to the directory named as the format
 * (`…/node_raw_book_diffs_streaming/hourly/20260610/13`), else what was given that holds it.
 */
function streamOf({ file, root }: Pick<Input, 'file' | 'root'>, format: StreamedFormat): string {
  const segments = file.split(/[\\/]/);
  const at = segments.lastIndexOf(format);
  return at < 0 ? root : segments.slice(0, at + 1).join('/');
}

/** Each streamed file's batch once its directory was cut, or why it was refused. */
const streamed = new Map<string, StreamedBatch | { refused: string }>();

/**
 * Checks each file of one directory's stream whole (a refusal names its line and field, as for
 * any file) and cuts the others, in the node's order, at block boundaries; a refused file breaks
 * the stream, so the blocks next to it are held back as at its ends.
 */
function cutStream(format: StreamedFormat, members: readonly { file: string; text: Buffer | { error: string } }[]): void {
  let run: StreamedFile[] = [];
  const cut = () => {
    const batches = cutStreamedRun(run);
    for (const { file } of run) streamed.set(file, 'error' in batches ? { refused: batches.error } : batches.find((b) => b.file === file)!);
    run = [];
  };
  for (const { file, text } of [...members].sort((a, b) => streamOrder(a.file, b.file))) {
    const checked = 'error' in text ? text : parseBatch(format, text.toString('utf8'), { spotNames });
    if ('error' in checked || !checked.ok) {
      cut();
      streamed.set(file, { refused: 'error' in checked ? checked.error : checked.reason });
      continue;
    }
    run.push({ file, text: text.toString('utf8') });
  }
  cut();
}

/** A streamed file's batch: the files of its stream given in this run are read and cut when the first is met. */
function streamedBatchOf(input: Input, format: StreamedFormat, text: Buffer): StreamedBatch | { refused: string } {
  if (!streamed.has(input.file)) {
    const stream = streamOf(input, format);
    // A file whose format only its content tells is a stream of its own.
    const others = inputs.filter((i) => i.file !== input.file && (i.format ?? formatOfPath(i.file)) === format && streamOf(i, format) === stream);
    cutStream(format, [{ file: input.file, text }, ...others.map((i) => ({ file: i.file, text: textOf(i.file) }))]);
  }
  return streamed.get(input.file)!;
}

/** What is sent for a file: its bytes, or for a streamed file its batch cut at block boundaries (with what was held back). */
function batchOf(input: Input, format: BatchFormat, bytes: Buffer): { body: Buffer; notes: string[] } | { refused: string } {
  if (!isStreamedFormat(format)) return { body: bytes, notes: [] };
  const batch = streamedBatchOf(input, format, bytes);
  if ('refused' in batch) return batch;
  return { body: Buffer.from(batch.text), notes: [...(batch.sentWith ? [batch.sentWith] : []), ...batch.heldBack.map((held) => `held back: ${held}`)] };
}

const refusal = (file: string, parsed: Extract<ParseResult, { ok: false }>): Outcome => ({
  file,
  ok: false,
  message: `refused: ${parsed.reason}`,
  unknownMarkets: (parsed.unknownMarkets?.length ?? 0) > 0,
});
/** A snapshot met before the run's block files were all read: taken up again at the end. */
const DEFERRED = Symbol('deferred');

async function ingestFile(input: Input, last: boolean): Promise<Outcome | typeof DEFERRED> {
  const { file, root, format } = input;
  // A streamed file read with its directory's first: not read again.
  const cached = streamed.get(file);
  const read = cached && 'refused' in cached ? { error: cached.refused } : cached ? Buffer.alloc(0) : textOf(file);
  if ('error' in read) return { file, ok: false, message: `refused: ${read.error}` };
  const sniffed = format ?? (cached ? formatOfPath(file)! : sniffFormat(file, read.toString('utf8'), family));
  if (typeof sniffed !== 'string') return { file, ok: false, message: `refused: ${sniffed.error}` };
  if (sniffed === 'node_l4_snapshot' && !last) return DEFERRED;
  const batch = batchOf(input, sniffed, read);
  if ('refused' in batch) return { file, ok: false, message: `refused: ${batch.refused}` };
  const { body: bytes, notes } = batch;
  const noted = notes.length > 0 ? `; ${notes.join('; ')}` : '';
  if (bytes.length === 0) return { file, ok: true, message: `${sniffed}: nothing of its own sent${noted}` };
  const text = bytes.toString('utf8');
  const height = sniffed === 'node_l4_snapshot' ? snapshotHeight(text) : undefined;
  const fileAt =
    sniffed === 'node_l4_snapshot' || sniffed === 'spot_meta'
      ? (at ?? (height === undefined ? undefined : (blockTimes.get(height) ?? blockTimes.get(height + 1))))
      : undefined;
  const parsed = parseBatch(sniffed, text, { at: fileAt, spotNames, ...(await altxMarketsOf(sniffed)) });
  if (!parsed.ok) return refusal(file, parsed);
  const counts = new Map<string, number>();
  let firstTs = Infinity;
  for (const record of parsed.records) {
    counts.set(record.dataset, (counts.get(record.dataset) ?? 0) + 1);
    firstTs = Math.min(firstTs, record.ts);
    if (record.family === 'spot' && record.symbol.startsWith('@') && record.dataset !== 'instruments') unnamedSpot.add(record.symbol);
  }
  for (const [block, time] of parsed.blockTimes) blockTimes.set(block, time);
  if (sniffed === 'spot_meta') for (const [index, name] of spotNamesOf(parsed.records)) spotNames.set(index, name);
  const rows = [...counts].map(([dataset, n]) => `${dataset} ${n.toLocaleString('en-US')}`).join(', ');

  const manifest = archiveManifest();
  const batchId = batchIdOf(bytes);
  const before = await manifest.batchOutcome(batchId);
  if (before?.status === 'done') return { file, ok: true, message: `${sniffed}: already ingested (${rows}); nothing added${noted}` };
  if (before?.status === 'rejected') return { file, ok: false, message: `${sniffed}: refused earlier: ${before.reason}` };

  const key = landingKey(sniffed, firstTs, nameOf(file, root, batchId), fileAt);
  await s3Client().send(
    new PutObjectCommand({ Bucket: bucket, Key: key, Body: gzipSync(bytes, { level: 1 }), ContentType: 'application/x-ndjson', ContentEncoding: 'gzip' }),
  );
  // The queue's consumer records the batch's outcome under the same id (the hash of the decompressed bytes).
  const deadline = Date.now() + timeoutMs;
  for (let wait = 200; Date.now() < deadline; wait = Math.min(wait * 2, 2_000)) {
    const outcome = await manifest.batchOutcome(batchId);
    // Ingest adds an instrument for each symbol the archive had not seen: the records beyond the file's own.
    const listed = outcome?.status === 'done' ? outcome.records - parsed.records.length : 0;
    if (outcome?.status === 'done') return { file, ok: true, message: `${sniffed}: ${rows}${listed > 0 ? `, instruments +${listed}` : ''}${noted}` };
    if (outcome?.status === 'rejected') return { file, ok: false, message: `${sniffed}: refused: ${outcome.reason}` };
    await sleep(wait);
  }
  return { file, ok: false, message: `${sniffed}: uploaded as ${key}, but no outcome within ${values.timeout} s` };
}

const bar = progressBar('Ingesting', 'files');
const outcomes: Outcome[] = [];
const deferred: Input[] = [];
bar.update(0, inputs.length);
for (const input of inputs) {
  // Snapshots the path names come last anyway: read once; one told by its content waits for the rest.
  const outcome = await ingestFile(input, rank(input) === 2);
  if (outcome === DEFERRED) deferred.push({ ...input, format: 'node_l4_snapshot' });
  // An altx recording whose markets a later file of the command describes (its orderBooks answer) gets a second try after it.
  else if (outcome.unknownMarkets) deferred.push(input);
  else outcomes.push(outcome);
  bar.update(outcomes.length, inputs.length);
}
for (const input of deferred) {
  outcomes.push((await ingestFile(input, true)) as Outcome);
  bar.update(outcomes.length, inputs.length);
}
bar.stop();
for (const { file, message } of outcomes) console.log(`${file}: ${message}`);
if (unnamedSpot.size > 0) {
  console.log(`spot pairs named by index only (no spot metadata names them; give --spot-meta): ${[...unnamedSpot].sort().join(', ')}`);
}
const refused = outcomes.filter((o) => !o.ok).length;
console.log(`${plural(outcomes.length - refused, 'file')} ingested, ${plural(refused, 'file')} refused`);
process.exit(refused > 0 ? 1 : 0);
