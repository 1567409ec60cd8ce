/**
 * The delivery engine: one attempt of one delivery per job. It signs the stored envelope with a
 * fresh timestamp, sends it through the SSRF-guarded sender, records the outcome and schedules the
 * next rung of the ladder (SQS DelaySeconds up to 15 minutes, a parked timer beyond).
 *
 * At least once, never lost: the job's message is deleted only after this returns. A crash before
 * the outcome is recorded brings the same job back and the attempt is made again (the receiver may
 * see the event twice and dedupes on its id). The next job is scheduled before the outcome is
 * written, so no crash can leave a failed delivery with nothing scheduled; a job that arrives ahead
 * of the record it follows is retried until the record catches up. Duplicate and stale jobs (SQS
 * duplicates, jobs of a run a redelivery replaced) are recognised by run and attempt number and by
 * a short lease, and dropped.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '#ports/clock.ts';
import type { QueueSender } from '#ports/queues.ts';
import type { TimerStore } from '#ports/timers.ts';
import type { DeliveryRecord, EndpointRecord, WebhookSender, WebhookStores } from '#ports/webhooks.ts';
import type { DeliveryJobMessage } from '#schemas/messages.ts';
import { sendAt } from '../timers.ts';
import { deliveryJob } from './deliveries.ts';
import { AUTO_DISABLE, nextAttemptAt, plannedOffsetS, shouldAutoDisable } from './ladder.ts';
import { SIGNATURE_HEADER, signatureHeader } from './signature.ts';

export interface EngineDeps {
  store: Pick<WebhookStores, 'deliveries' | 'endpoints'>;
  queues: QueueSender;
  timers: TimerStore;
  clock: Clock;
  send: WebhookSender;
  /** 1 in AWS; the local cloud's LOCAL_TIME_SCALE divides the ladder and its windows. */
  timeScale: number;
  /** The queue the job came from: the main lane, or the slow lane of endpoints that hang or answer slowly. */
  lane: DeliveryLane;
}

export type DeliveryLane = 'delivery' | 'delivery-slow';

/** An attempt still unanswered after this long moves its endpoint to the slow lane (while it goes on). */
export const SLOW_ANSWER_MS = 3_000;
/** How long an endpoint stays in the slow lane after its last slow attempt (divided by the local time scale). */
export const SLOW_LANE_MS = 3_600_000;

const isSlow = (endpoint: EndpointRecord, now: number) => endpoint.slowUntil !== null && Date.parse(endpoint.slowUntil) > now;

/** How long an attempt holds its delivery: past the sender's 10 s budget, short of the queue's visibility timeout. */
export const LEASE_MS = 30_000;
/** A follow-up job never becomes visible sooner than this after the attempt it follows. */
const MIN_FOLLOW_UP_MS = 1_000;

export type AttemptResult =
  | { outcome: 'delivered' | 'retry_scheduled' | 'exhausted'; delivery: DeliveryRecord; autoDisabled: boolean }
  | { outcome: 'stale' | 'busy' | 'endpoint_unavailable' | 'moved_to_slow_lane' };

const iso = (ms: number) => new Date(ms).toISOString();

/** The endpoint's current secret first, then the previous one while its 24-hour overlap lasts. */
export function signingSecrets(endpoint: EndpointRecord, now: number): string[] {
  const previousValid = endpoint.previousSecret !== null && endpoint.previousSecretExpiresAt !== null && Date.parse(endpoint.previousSecretExpiresAt) > now;
  return previousValid ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
}

export async function attemptDelivery(deps: EngineDeps, job: DeliveryJobMessage): Promise<AttemptResult> {
  const { store } = deps;
  // The endpoint is read alongside the delivery when the job names it: one round trip before the
  // send instead of two. Jobs queued before jobs named it read it after, as before.
  const [delivery, named] = await Promise.all([
    store.deliveries.get(job.account_id, job.delivery_id),
    job.endpoint_id === undefined ? undefined : store.endpoints.get(job.account_id, job.endpoint_id).then((endpoint) => ({ endpoint })),
  ]);
  if (!delivery || delivery.run !== job.run || delivery.attempts > job.attempt) return { outcome: 'stale' };
  if (delivery.state === 'delivered' || delivery.state === 'exhausted') return { outcome: 'stale' };
  // Thrown, so the job comes back after the visibility timeout, by when the record has caught up.
  if (delivery.attempts < job.attempt) throw new Error(`delivery ${delivery.id} has not recorded attempt ${job.attempt} yet`);
  const expected = { run: delivery.run, attempts: delivery.attempts };

  const endpoint = named && delivery.endpointId === job.endpoint_id ? named.endpoint : await store.endpoints.get(delivery.accountId, delivery.endpointId);
  if (endpoint?.status !== 'active') {
    // Deliveries stop and nothing is buffered: the record ends here, and /redeliver can revive it.
    const reason = endpoint ? `endpoint ${endpoint.status.replace('_', '-')}; not attempted` : 'endpoint deleted; not attempted';
    await store.deliveries.recordAttempt({ ...delivery, state: 'failed', lastError: reason, nextAttemptAt: null }, expected);
    return { outcome: 'endpoint_unavailable' };
  }

  const startedAt = deps.clock.now();
  // A hung or slow endpoint's attempts wait in their own lane, so they never hold a worker the
  // other endpoints' deliveries need; this job moves there without an attempt.
  if (deps.lane === 'delivery' && isSlow(endpoint, startedAt)) {
    await deps.queues.send('delivery-slow', deliveryJob(delivery));
    return { outcome: 'moved_to_slow_lane' };
  }
  // Another worker holds this attempt; its own job comes back if it dies, so this copy can go.
  // The claim names this attempt, so the claim's own write sent again (its answer lost) is not "another worker".
  if (!(await store.deliveries.claimAttempt(delivery.accountId, delivery.id, expected, randomUUID(), startedAt + LEASE_MS, startedAt)))
    return { outcome: 'busy' };

  const body = JSON.stringify(delivery.payload);
  // Marked slow as soon as an answer is late, not when the 10 s budget ends: the endpoint's other
  // jobs then leave the main lane while this attempt still waits.
  const slowUntil = () => new Date(deps.clock.now() + SLOW_LANE_MS / deps.timeScale).toISOString();
  let markedSlow: Promise<void> | undefined;
  const lateAnswer = setTimeout(() => {
    // A lost mark only loses the hint; the attempt's outcome is recorded either way.
    markedSlow = store.endpoints.setSlowUntil(endpoint.accountId, endpoint.id, slowUntil()).catch(() => undefined);
  }, SLOW_ANSWER_MS);
  const sent = await deps.send({
    url: endpoint.url,
    body,
    headers: {
      [SIGNATURE_HEADER]: signatureHeader(signingSecrets(endpoint, startedAt), Math.floor(startedAt / 1000), body),
      'svc-event-id': delivery.eventId,
      'svc-event-type': delivery.eventType,
    },
  });

  clearTimeout(lateAnswer);
  await markedSlow;
  const doneAt = deps.clock.now();
  // The next attempt waits in the slow lane if this one was late, or failed while the endpoint is slow anyway.
  const slowNow = markedSlow !== undefined || (!sent.ok && isSlow(endpoint, doneAt));
  // A quick answer brings the endpoint back to the main lane.
  if (sent.ok && markedSlow === undefined && endpoint.slowUntil !== null) await store.endpoints.setSlowUntil(endpoint.accountId, endpoint.id, null);
  const firstAttemptAt = delivery.firstAttemptAt ?? iso(startedAt);
  const attempted: DeliveryRecord = {
    ...delivery,
    attempts: delivery.attempts + 1,
    firstAttemptAt,
    lastStatusCode: sent.statusCode,
    lastError: sent.error,
    lastLatencyMs: sent.latencyMs,
  };

  if (sent.ok) {
    const delivered: DeliveryRecord = { ...attempted, state: 'delivered', deliveredAt: iso(doneAt), nextAttemptAt: null };
    await store.deliveries.recordAttempt(delivered, expected);
    if (endpoint.consecutiveFailures > 0) await store.endpoints.noteSuccess(endpoint.accountId, endpoint.id);
    return { outcome: 'delivered', delivery: delivered, autoDisabled: false };
  }

  const planned = nextAttemptAt(Date.parse(firstAttemptAt), attempted.attempts, deps.timeScale);
  let recorded: DeliveryRecord;
  if (planned === undefined) {
    recorded = { ...attempted, state: 'exhausted', nextAttemptAt: null };
  } else {
    const dueAt = Math.max(planned, doneAt + MIN_FOLLOW_UP_MS);
    recorded = { ...attempted, state: 'failed', nextAttemptAt: iso(dueAt) };
    const lane: DeliveryLane = slowNow ? 'delivery-slow' : 'delivery';
    // The rung's wait in service time decides SQS or a timer, whatever the local time scale made of it.
    const rungS = plannedOffsetS(attempted.attempts + 1) - plannedOffsetS(attempted.attempts);
    await sendAt(
      { timers: deps.timers, queues: deps.queues, clock: deps.clock },
      lane,
      deliveryJob(recorded),
      dueAt,
      `${recorded.id}:${recorded.run}:${recorded.attempts}`,
      rungS,
    );
  }
  await store.deliveries.recordAttempt(recorded, expected);
  const autoDisabled = await noteFailure(deps, endpoint, doneAt, `${recorded.id}:${recorded.run}:${recorded.attempts}`);
  return { outcome: planned === undefined ? 'exhausted' : 'retry_scheduled', delivery: recorded, autoDisabled };
}

/**
 * Every failed attempt extends the endpoint's stored streak (any success ends it). Counting attempts,
 * not events, means one event a receiver always rejects can disable an otherwise idle endpoint after
 * its 10th attempt past six hours; on a busy endpoint the other events' successes keep resetting it.
 */
async function noteFailure(deps: EngineDeps, endpoint: EndpointRecord, at: number, attemptKey: string): Promise<boolean> {
  const streak = await deps.store.endpoints.noteFailure(endpoint.accountId, endpoint.id, iso(at), attemptKey);
  if (!streak || !shouldAutoDisable(streak.failures, Date.parse(streak.firstFailureAt), at, deps.timeScale)) return false;
  return deps.store.endpoints.autoDisable(endpoint.accountId, endpoint.id, {
    minFailures: AUTO_DISABLE.consecutiveFailures,
    firstFailureAtOrBefore: iso(at - (AUTO_DISABLE.sustainedS * 1000) / deps.timeScale),
  });
}
