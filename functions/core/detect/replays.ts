/**
 * Rule replay (issue 23): a rule's exact matching over any past window of the archive, as a job.
 * The window is cut into UTC days; the `replay` state machine runs each day (a Map, as exports do)
 * through the same detectors, reference values and matcher that live delivery uses, keeps what
 * matched, and, when asked, queues it to the rule's endpoint through the delivery engine as late
 * events marked `replay: true`, with the event ids live delivery gives them (so an occurrence
 * already delivered is not sent again, and the daily cap holds). The job completes as a whole and
 * is billed like market data, by the archive rows it read.
 */
import { randomBytes } from 'node:crypto';
import { REPLAY_MAX_DAYS, type ReplayBody, type ReplayJob } from '#schemas/replays.ts';
import type { Clock } from '#ports/clock.ts';
import type { Workflows } from '#ports/exports.ts';
import type { ReplayExecutionInput } from '#schemas/messages.ts';
import type { ReplayJobRecord, ReplayOccurrence, ReplayPartition, ReplayStore } from '#ports/replays.ts';
import type { WebhookStores } from '#ports/webhooks.ts';
import type { PlanName } from '../plans.ts';
import type { Caller } from '../accounts.ts';
import { AppError } from '../errors.ts';
import { EVENT_DEFINITION_BY_TYPE } from '../events/registry.ts';
import { normalizeConfig, type StoredConfig } from '../webhooks/filters.ts';
import { queueOccurrence, type DeliveryDeps } from '../webhooks/deliveries.ts';
import { eventIdOf } from '../webhooks/envelope.ts';
import { keeper, replayWindow, shown, type PreviewDeps } from './scan.ts';

const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
export const replayApiUrl = (jobId: string) => `/v1/webhooks/subscriptions/replays/${jobId}`;

/** `rpl_` + the creation time in base 36 (ids sort by age) + 12 random characters. */
export function newReplayId(now: number): string {
  return `rpl_${now.toString(36).padStart(9, '0')}${[...randomBytes(12)].map((b) => (b % 36).toString(36)).join('')}`;
}

export function replayView(job: ReplayJobRecord): ReplayJob {
  return {
    id: job.jobId,
    state: job.state,
    event_type: job.eventType,
    ...(job.subscriptionId !== undefined && { subscription_id: job.subscriptionId }),
    window: { from: iso(job.from), to: iso(job.to) },
    deliver: job.deliver,
    created_at: iso(job.createdAt),
    ...(job.startedAt !== undefined && { started_at: iso(job.startedAt) }),
    ...(job.finishedAt !== undefined && { finished_at: iso(job.finishedAt) }),
    progress: {
      partitions_done: job.partitionsDone,
      partitions_total: job.partitionsTotal,
      rows_scanned: job.rowsScanned,
      matched: job.matched,
      delivered: job.delivered,
    },
    ...(job.errorMessage !== undefined && { error_message: job.errorMessage }),
    api_url: replayApiUrl(job.jobId),
  };
}

function instantOf(value: unknown, name: 'start' | 'end'): number {
  const ms = typeof value === 'number' ? value : typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isSafeInteger(ms)) throw new AppError('invalid_parameter', `${name} is epoch milliseconds or an RFC 3339 time.`, { param: name });
  return ms;
}

/** The UTC days of [from, to), each clipped to the window. */
export function replayPartitions(from: number, to: number): ReplayPartition[] {
  const partitions: ReplayPartition[] = [];
  for (let day = Math.floor(from / DAY_MS) * DAY_MS; day < to; day += DAY_MS) {
    partitions.push({ i: partitions.length, from: Math.max(from, day), to: Math.min(to, day + DAY_MS) });
  }
  return partitions;
}

export interface CreateReplayDeps {
  store: Pick<WebhookStores, 'rules' | 'endpoints'>;
  replays: ReplayStore;
  workflows: Workflows<ReplayExecutionInput>;
  clock: Clock;
}

const BODY_KEYS = ['subscription_id', 'event_type', 'config', 'filters', 'start', 'end', 'deliver'];

/** POST /v1/webhooks/subscriptions/replay: checks the request, stores the job and starts it (202). */
export async function createReplay(deps: CreateReplayDeps, caller: Caller & { plan: PlanName }, body: ReplayBody): Promise<ReplayJob> {
  for (const key of Object.keys(body)) {
    if (!BODY_KEYS.includes(key))
      throw new AppError('invalid_parameter', `Unknown member ${key}; the body takes: ${BODY_KEYS.join(', ')}.`, { param: key, validValues: BODY_KEYS });
  }
  const now = deps.clock.now();
  const from = instantOf(body.start, 'start');
  const to = instantOf(body.end, 'end');
  if (to <= from) throw new AppError('invalid_parameter', 'end must be after start.', { param: 'end' });
  if (to > now) throw new AppError('invalid_parameter', 'end must not be in the future: a replay reads what the archive holds.', { param: 'end' });
  if (to - from > REPLAY_MAX_DAYS * DAY_MS) throw new AppError('invalid_parameter', `A replay covers at most ${REPLAY_MAX_DAYS} days.`, { param: 'start' });

  let eventType: string;
  let config: StoredConfig;
  let subscriptionId: string | undefined;
  if (body.subscription_id !== undefined) {
    if (body.event_type !== undefined || body.config !== undefined || body.filters !== undefined) {
      throw new AppError(
        'invalid_parameter',
        'A replay of a subscription takes its event type and config; send subscription_id or event_type with config, not both.',
        { param: 'subscription_id' },
      );
    }
    const subscription = await deps.store.rules.get(caller.id, body.subscription_id);
    if (!subscription) throw new AppError('not_found', `No subscription ${body.subscription_id}.`, { param: 'subscription_id' });
    eventType = subscription.eventType;
    config = subscription.filters;
    subscriptionId = subscription.id;
  } else {
    if (body.deliver) throw new AppError('invalid_parameter', 'deliver needs subscription_id: the occurrences go to its endpoint.', { param: 'deliver' });
    if (typeof body.event_type !== 'string')
      throw new AppError('invalid_parameter', 'Send subscription_id, or event_type with config.', { param: 'event_type' });
    const definition = EVENT_DEFINITION_BY_TYPE.get(body.event_type);
    if (!definition?.detection || definition.detection.kind === 'announced') {
      throw new AppError('invalid_parameter', `${body.event_type} is not detected from the archive, so it cannot be replayed.`, { param: 'event_type' });
    }
    if (body.filters !== undefined && body.config !== undefined)
      throw new AppError('invalid_parameter', 'Send config or its alias filters, not both.', { param: 'config' });
    const watched = new Set((await deps.store.rules.listAddresses(caller.id)).map((a) => a.address));
    config = normalizeConfig(definition.declaration, body.config ?? body.filters, watched);
    eventType = body.event_type;
  }
  const detection = EVENT_DEFINITION_BY_TYPE.get(eventType)?.detection;
  if (!detection || detection.kind === 'announced') {
    throw new AppError('invalid_parameter', `${eventType} is not detected from the archive, so it cannot be replayed.`, { param: 'subscription_id' });
  }

  const partitions = replayPartitions(from, to);
  const job: ReplayJobRecord = {
    accountId: caller.id,
    jobId: newReplayId(now),
    state: 'queued',
    eventType,
    config,
    ...(subscriptionId !== undefined && { subscriptionId }),
    deliver: body.deliver === true,
    from,
    to,
    createdAt: now,
    partitionsTotal: partitions.length,
    partitionsDone: 0,
    rowsScanned: 0,
    matched: 0,
    delivered: 0,
  };
  await deps.replays.createJob(job);
  const input: ReplayExecutionInput = { account_id: job.accountId, job_id: job.jobId, job: { accountId: job.accountId, jobId: job.jobId }, partitions };
  try {
    await deps.workflows.start(job.jobId, input);
  } catch (cause) {
    await deps.replays.transition(job.accountId, job.jobId, ['queued'], 'failed', {
      finishedAt: deps.clock.now(),
      errorMessage: 'The job could not be started.',
    });
    throw new AppError('upstream_unavailable', 'The replay could not be started. Retry shortly.', { cause, headers: { 'retry-after': '5' } });
  }
  const startedAt = deps.clock.now();
  const started = await deps.replays.transition(job.accountId, job.jobId, ['queued'], 'running', { startedAt });
  return replayView(started ? { ...job, state: 'running', startedAt } : job);
}

/** GET /v1/webhooks/subscriptions/replays/{id}: the job and a page of its occurrences, oldest first. */
export async function getReplay(replays: ReplayStore, caller: Caller, jobId: string, limit: number, cursor?: string) {
  const job = await replays.getJob(caller.id, jobId);
  // Another account's job is indistinguishable from one that does not exist.
  if (!job) throw new AppError('not_found', `No replay job ${jobId}.`, { param: 'id' });
  const { occurrences, next } = await replays.occurrences(jobId, limit, cursor);
  return {
    job: {
      ...replayView(job),
      occurrences: occurrences.map((o) => ({ ...(o.eventId !== undefined && { event_id: o.eventId }), occurred_at: iso(o.occurredAt), data: o.data })),
    },
    // A running job's next page may still grow: the cursor is only final once it has completed.
    nextCursor: next,
  };
}

export interface CancelReplayDeps {
  replays: ReplayStore;
  workflows: Workflows<ReplayExecutionInput>;
  clock: Clock;
  /** Debits the account for the rows read by the days recorded before the cancel (as a failed job is billed). */
  charge(rows: number): Promise<void>;
}

/**
 * DELETE /v1/webhooks/subscriptions/replays/{id}: a queued or running job is canceled (409 once it
 * has finished or been canceled) and its execution stopped. A day already running finds the job
 * canceled before each delivery and when it records, so nothing more is delivered or counted; the
 * days recorded before stay readable, and their rows are billed.
 */
export async function cancelReplay(deps: CancelReplayDeps, caller: Caller, jobId: string): Promise<ReplayJob> {
  const job = await deps.replays.getJob(caller.id, jobId);
  if (!job) throw new AppError('not_found', `No replay job ${jobId}.`, { param: 'id' });
  const finishedAt = deps.clock.now();
  if (!(await deps.replays.transition(caller.id, jobId, ['queued', 'running'], 'canceled', { finishedAt }))) {
    const now = await deps.replays.getJob(caller.id, jobId);
    throw new AppError('conflict', `Replay job ${jobId} is ${now?.state ?? job.state}; only a queued or running job can be canceled.`, { param: 'id' });
  }
  await deps.workflows.stop(jobId, 'Canceled by its owner');
  // What the recorded days read: no day is counted once the job is canceled, so this is final.
  const canceled = (await deps.replays.getJob(caller.id, jobId)) ?? { ...job, state: 'canceled' as const, finishedAt };
  if (canceled.rowsScanned > 0) await deps.charge(canceled.rowsScanned);
  return replayView(canceled);
}

export interface ReplayPartitionDeps extends Omit<PreviewDeps, 'store'> {
  replays: ReplayStore;
  store: WebhookStores;
  delivery: DeliveryDeps;
  /** The account's plan now (delivery needs one that includes it). */
  planOf(accountId: string): Promise<PlanName | undefined>;
}

/**
 * One day of a replay: every occurrence the rule would have matched, in time order (scanned whole,
 * an hour at a time, with no time budget: the state machine task has minutes), queued to the
 * endpoint when the job delivers, and recorded once.
 */
export async function runReplayPartition(deps: ReplayPartitionDeps, key: { accountId: string; jobId: string }, partition: ReplayPartition) {
  const job = await deps.replays.getJob(key.accountId, key.jobId);
  if (!job || (job.state !== 'queued' && job.state !== 'running')) return { status: 'skipped' as const, state: job?.state ?? 'missing' };
  const definition = EVENT_DEFINITION_BY_TYPE.get(job.eventType)!;
  const decl = definition.declaration;
  const config = job.config;
  const watched = new Set((await deps.store.rules.listAddresses(job.accountId)).map((a) => a.address));
  const result = await replayWindow(
    deps,
    decl,
    definition.detection!,
    config,
    watched,
    partition.from,
    partition.to,
    keeper(deps, decl, config, config, watched),
  );
  // As delivered: with the relative metrics (the keeper added them already when a condition reads one).
  const hits = (await shown(deps, config, result.candidates)).sort((a, b) => a.occurredAt - b.occurredAt || a.key.localeCompare(b.key));

  const subscription = job.subscriptionId === undefined ? undefined : await deps.store.rules.get(job.accountId, job.subscriptionId);
  let delivered = 0;
  if (job.deliver && subscription) {
    const [plan, endpoint] = await Promise.all([deps.planOf(job.accountId), deps.store.endpoints.get(job.accountId, subscription.endpointId)]);
    if (plan && endpoint) {
      for (const hit of hits) {
        // Canceled meanwhile: nothing more is delivered (one read a delivery; the cap bounds them).
        const current = await deps.replays.getJob(job.accountId, job.jobId);
        if (current?.state !== 'queued' && current?.state !== 'running') break;
        const outcome = await queueOccurrence(
          deps.delivery,
          { plan, subscription, endpoint },
          { key: hit.key, type: hit.type, occurredAt: hit.occurredAt, data: hit.data },
          { replay: true },
        );
        if (outcome === 'queued') delivered += 1;
        // The cap paused the rule: the rest of the day would only count misses.
        if (outcome === 'capped' || outcome === 'paused') break;
      }
    }
  }
  const occurrences: ReplayOccurrence[] = hits.map((c) => ({
    ...(subscription && { eventId: eventIdOf(c.key, subscription.triggerId) }),
    occurredAt: c.occurredAt,
    data: c.data,
  }));
  const outcome = await deps.replays.recordPartition(job.accountId, job.jobId, partition.i, { rowsScanned: result.rowsScanned, delivered, occurrences });
  return { status: outcome, rows: result.rowsScanned, matched: occurrences.length, delivered };
}

export interface FinishReplayDeps {
  replays: ReplayStore;
  clock: Clock;
  /** Debits the account for the rows read, as a market-data request of that many rows is. */
  charge(accountId: string, rows: number): Promise<void>;
}

/** The state machine's last step: the job completes (and is billed for what it read) or fails. */
export async function finishReplay(
  deps: FinishReplayDeps,
  input: { account_id: string; job_id: string; outcome: 'completed' | 'failed'; error_message?: string },
) {
  const job = await deps.replays.getJob(input.account_id, input.job_id);
  if (!job || (job.state !== 'queued' && job.state !== 'running')) return { state: job?.state ?? 'missing' };
  const now = deps.clock.now();
  if (input.outcome === 'completed' && job.partitionsDone === job.partitionsTotal) {
    const completed = await deps.replays.transition(job.accountId, job.jobId, ['queued', 'running'], 'completed', { finishedAt: now });
    if (completed) await deps.charge(job.accountId, job.rowsScanned);
    return { state: completed ? 'completed' : 'failed' };
  }
  const message = input.error_message ?? `${job.partitionsDone} of ${job.partitionsTotal} days were replayed.`;
  await deps.replays.transition(job.accountId, job.jobId, ['queued', 'running'], 'failed', { finishedAt: now, errorMessage: message });
  if (job.rowsScanned > 0) await deps.charge(job.accountId, job.rowsScanned);
  return { state: 'failed' };
}
