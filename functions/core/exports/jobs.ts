/**
 * Export jobs: create (quote, or quote and start), read, list, cancel and download links. The
 * partitions run in the `export` state machine (core/exports/partition.ts), its end in finish.ts;
 * this module only starts and stops it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { DOWNLOAD_LINK_TTL_S, EXPORT_FORMATS, EXPORT_ID_PATTERN, type CreateExportBody, type ExportJob, type ExportQuote } from '#schemas/exports.ts';
import type { ArchiveManifest } from '#ports/archive.ts';
import type { Clock } from '#ports/clock.ts';
import type { ExportFileRecord, ExportJobRecord, ExportObjects, ExportPartition, ExportStore, Workflows } from '#ports/exports.ts';
import type { Caller } from '../accounts.ts';
import { AppError } from '../errors.ts';
import { PLANS, PLAN_NAMES } from '../plans.ts';
import { planExport } from './plan.ts';
import { discardJobFiles } from './object-life.ts';
import type { ExportExecutionInput } from '#schemas/messages.ts';

const DAY_MS = 86_400_000;
const IDEMPOTENCY_WINDOW_MS = DAY_MS;
/** A claim without its job for longer than the route's timeout (10 s) belongs to a request that stopped. */
const IN_FLIGHT_MS = 15_000;
const iso = (ms: number) => new Date(ms).toISOString();
export const exportApiUrl = (jobId: string) => `/v1/exports/${jobId}`;

/** `exp_` + the creation time in base 36 (so ids sort by age) + 12 random characters. */
export function newExportId(now: number): string {
  const random = [...randomBytes(12)].map((b) => (b % 36).toString(36)).join('');
  return `exp_${now.toString(36).padStart(9, '0')}${random}`;
}

export function jobView(job: ExportJobRecord, files?: readonly ExportFileRecord[]): ExportJob {
  const api = exportApiUrl(job.jobId);
  return {
    id: job.jobId,
    state: job.state,
    schema: job.schema,
    schema_version: EXPORT_FORMATS[job.schema].version,
    family: job.family,
    symbols: job.symbols,
    start: iso(job.from),
    end: iso(job.to),
    created_at: iso(job.createdAt),
    ...(job.startedAt !== undefined && { started_at: iso(job.startedAt) }),
    ...(job.finishedAt !== undefined && { finished_at: iso(job.finishedAt) }),
    ...(job.expiresAt !== undefined && { expires_at: iso(job.expiresAt) }),
    progress: { partitions_done: job.partitionsDone, partitions_total: job.partitionsTotal, rows_written: job.rowsWritten, bytes_written: job.bytesWritten },
    quote: job.quote,
    ...(job.priceUsd !== undefined && { price_usd: job.priceUsd }),
    ...(job.errorMessage !== undefined && { error_message: job.errorMessage }),
    // Only a completed job lists files: each one listed is whole.
    ...(job.state === 'completed'
      && files && {
        files: files.map((f) => ({
          name: f.name,
          symbol: f.symbol,
          day: f.day,
          rows: f.rows,
          bytes: f.bytes,
          sha256: f.sha256,
          api_url: `${api}/files/${f.name}`,
        })),
      }),
    api_url: api,
  };
}

export interface CreateExportDeps {
  manifest: ArchiveManifest;
  exports: ExportStore;
  workflows: Workflows<ExportExecutionInput>;
  clock: Clock;
}

export type CreateExportResult = { kind: 'quote'; quote: ExportQuote } | { kind: 'job'; job: ExportJob; replayed: boolean };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export async function createExport(deps: CreateExportDeps, caller: Caller, body: CreateExportBody, idempotencyKey?: string): Promise<CreateExportResult> {
  const now = deps.clock.now();
  const plan = await planExport(deps.manifest, body, now);
  if (body.dry_run) return { kind: 'quote', quote: plan.quote };
  if (!PLANS[caller.plan].exportJobs) {
    const including = PLAN_NAMES.filter((p) => PLANS[p].exportJobs);
    throw new AppError('plan_limit', `The ${caller.plan} plan can quote exports (dry_run) but not run them; plans that run them: ${including.join(', ')}.`, {
      details: { plans: including },
    });
  }

  let jobId = newExportId(now);
  if (idempotencyKey !== undefined) {
    const fingerprint = sha256(JSON.stringify([body.schema, body.family, body.symbols ?? null, body.start, body.end]));
    const earlier = await deps.exports.claimIdempotencyKey(
      caller.id,
      sha256(idempotencyKey),
      { jobId, fingerprint, claimedAt: now },
      now + IDEMPOTENCY_WINDOW_MS,
    );
    // A claim naming this request's own (random) job id is its own: the put landed and its answer was lost.
    if (earlier && earlier.jobId !== jobId) {
      if (earlier.fingerprint !== fingerprint) {
        throw new AppError('conflict', 'This Idempotency-Key was used for another export request in the last 24 hours.', { param: 'idempotency-key' });
      }
      const existing = await deps.exports.getJob(caller.id, earlier.jobId);
      if (existing) return { kind: 'job', job: await replay(deps, existing), replayed: true };
      // No job yet: the first request is still running, or stopped before storing it (then this one takes over).
      if (now - earlier.claimedAt < IN_FLIGHT_MS) {
        throw new AppError('conflict', 'A request with this Idempotency-Key is still in progress; retry in a few seconds.', {
          param: 'idempotency-key',
          headers: { 'retry-after': String(Math.ceil(IN_FLIGHT_MS / 1000)) },
        });
      }
      jobId = earlier.jobId;
    }
  }

  const job: ExportJobRecord = {
    accountId: caller.id,
    jobId,
    state: 'queued',
    schema: body.schema,
    family: body.family,
    symbols: plan.quote.symbols,
    from: body.start,
    to: body.end,
    createdAt: now,
    quote: plan.quote,
    partitionsTotal: plan.partitions.length,
    partitionsDone: 0,
    rowsWritten: 0,
    bytesWritten: 0,
  };
  if (!(await deps.exports.createJob(job, plan.partitions))) {
    return { kind: 'job', job: await replay(deps, (await deps.exports.getJob(caller.id, jobId))!), replayed: true };
  }
  return { kind: 'job', job: jobView(await startJob(deps, job, plan.partitions)), replayed: false };
}

/** The job an earlier request with the same key created; one that stopped before starting it is started now (idempotent by name). */
async function replay(deps: CreateExportDeps, existing: ExportJobRecord): Promise<ExportJob> {
  if (existing.state !== 'queued') return jobView(existing);
  return jobView(await startJob(deps, existing, (await deps.exports.partitions(existing.jobId)) ?? []));
}

/** Starts the job's execution; `running` from then on (its partitions run as the state machine schedules them). */
async function startJob(deps: CreateExportDeps, job: ExportJobRecord, partitions: ExportPartition[]): Promise<ExportJobRecord> {
  const { accountId, jobId, schema, family, from, to } = job;
  const input: ExportExecutionInput = { account_id: accountId, job_id: jobId, job: { accountId, jobId, schema, family, from, to }, partitions };
  try {
    await deps.workflows.start(job.jobId, input);
    const startedAt = deps.clock.now();
    const started = await deps.exports.transition(accountId, jobId, ['queued'], 'running', { startedAt });
    return started ? { ...job, state: 'running', startedAt } : job;
  } catch (cause) {
    // A job that never started must not wait forever as queued.
    await deps.exports.transition(job.accountId, job.jobId, ['queued'], 'failed', {
      finishedAt: deps.clock.now(),
      errorMessage: 'The job could not be started.',
    });
    throw new AppError('upstream_unavailable', 'The export could not be started. Retry shortly.', { cause, headers: { 'retry-after': '5' } });
  }
}

async function ownedJob(store: ExportStore, caller: Caller, jobId: string): Promise<ExportJobRecord> {
  const job = await store.getJob(caller.id, jobId);
  // Another account's job is indistinguishable from one that does not exist.
  if (!job) throw new AppError('not_found', `No export job ${jobId}.`, { param: 'id' });
  return job;
}

export async function getExport(store: ExportStore, caller: Caller, jobId: string): Promise<ExportJob> {
  const job = await ownedJob(store, caller, jobId);
  return jobView(job, job.state === 'completed' ? await store.files(jobId) : undefined);
}

const encodeCursor = (jobId: string) => Buffer.from(JSON.stringify({ after: jobId })).toString('base64url');

function decodeCursor(cursor: string): string {
  try {
    const { after } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof after === 'string' && EXPORT_ID_PATTERN.test(after)) return after;
  } catch {
    /* answered below */
  }
  throw new AppError('invalid_cursor', 'The cursor is not one this route issued.', { param: 'cursor' });
}

export async function listExports(store: ExportStore, caller: Caller, limit: number, cursor?: string): Promise<{ jobs: ExportJob[]; nextCursor?: string }> {
  const { jobs, more } = await store.listJobs(caller.id, limit, cursor === undefined ? undefined : decodeCursor(cursor));
  const last = jobs.at(-1);
  return { jobs: jobs.map((j) => jobView(j)), ...(more && last && { nextCursor: encodeCursor(last.jobId) }) };
}

export interface CancelExportDeps {
  exports: ExportStore;
  exportObjects: ExportObjects;
  workflows: Workflows<ExportExecutionInput>;
  clock: Clock;
}

export async function cancelExport(deps: CancelExportDeps, caller: Caller, jobId: string): Promise<ExportJob> {
  const job = await ownedJob(deps.exports, caller, jobId);
  const finishedAt = deps.clock.now();
  if (!(await deps.exports.transition(caller.id, jobId, ['queued', 'running'], 'canceled', { finishedAt }))) {
    const now = await ownedJob(deps.exports, caller, jobId);
    throw new AppError('conflict', `Export job ${jobId} is ${now.state}; only a queued or running job can be canceled.`, { param: 'id' });
  }
  await deps.workflows.stop(jobId, 'Canceled by its owner');
  // Partitions still running see the job canceled when they record their file, and delete it. The
  // job is canceled whatever the deletions answer: the objects' checks delete what they leave (object-life.ts).
  await discardJobFiles(deps, { accountId: caller.id, jobId }).catch(() => undefined);
  return jobView({ ...job, state: 'canceled', finishedAt });
}

export async function downloadLink(deps: { exports: ExportStore; exportObjects: ExportObjects; clock: Clock }, caller: Caller, jobId: string, name: string) {
  const job = await ownedJob(deps.exports, caller, jobId);
  if (job.state !== 'completed')
    throw new AppError('conflict', `Export job ${jobId} is ${job.state}; files are downloadable once it has completed.`, { param: 'id' });
  const now = deps.clock.now();
  if (job.expiresAt !== undefined && job.expiresAt <= now) {
    throw new AppError('not_found', `The files of export job ${jobId} expired at ${iso(job.expiresAt)}.`, { param: 'id' });
  }
  const file = await deps.exports.file(jobId, Number(/^part-(\d{5})-/.exec(name)?.[1]));
  if (!file || file.name !== name) throw new AppError('not_found', `Export job ${jobId} has no file ${name}.`, { param: 'name' });
  const url = await deps.exportObjects.downloadLink(file.key, DOWNLOAD_LINK_TTL_S, file.name);
  return { name: file.name, url, expires_at: iso(now + DOWNLOAD_LINK_TTL_S * 1000), bytes: file.bytes, sha256: file.sha256 };
}
