/**
 * Queue time: where a delivery record is born and counted. Detectors hand each matched occurrence
 * to `queueOccurrence`; the management API queues `webhook.test` and redeliveries. Deliveries are
 * counted against the account's UTC day here, once (a retry is never counted again); the rule whose
 * delivery would pass the cap is paused and counts what it misses, and nothing is buffered.
 * The delivery engine (engine.ts) does the sending.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors.ts';
import { PLANS, type PlanName } from '../plans.ts';
import type { Clock } from '../../ports/clock.ts';
import type { QueueSender } from '../../ports/queues.ts';
import type { DeliveryRecord, EndpointRecord, SubscriptionRecord, WebhookStores } from '../../ports/webhooks.ts';
import type { DeliveryJobMessage } from '../../../schemas/messages.ts';
import { getEndpoint, requireDelivery } from './endpoints.ts';
import type { Caller } from '../accounts.ts';
import { buildEnvelope, deliveryIdOf, eventIdOf, type Envelope, type Occurrence } from './envelope.ts';

export interface DeliveryDeps { store: WebhookStores; queues: QueueSender; clock: Clock }

export const DELIVERY_LOG_LIMIT = { default: 50, min: 1, max: 200 } as const;
export const PAUSE_REASONS = { cap: 'deliveries_per_day_cap', plan: 'plan_no_webhooks' } as const;

export function deliveryView(d: DeliveryRecord) {
  return {
    id: d.id, event_id: d.eventId, event_type: d.eventType, endpoint_id: d.endpointId, subscription_id: d.subscriptionId, state: d.state,
    attempts: d.attempts, last_status_code: d.lastStatusCode, last_error: d.lastError, last_latency_ms: d.lastLatencyMs,
    next_attempt_at: d.nextAttemptAt, first_attempt_at: d.firstAttemptAt, delivered_at: d.deliveredAt, created_at: d.createdAt, payload: d.payload,
  };
}

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function deliveryJob(d: Pick<DeliveryRecord, 'accountId' | 'id' | 'run' | 'attempts' | 'endpointId'>): string {
  const job: DeliveryJobMessage = { type: 'deliver.v1', account_id: d.accountId, delivery_id: d.id, run: d.run, attempt: d.attempts, endpoint_id: d.endpointId };
  return JSON.stringify(job);
}

function newDelivery(fields: { accountId: string; endpointId: string; subscriptionId: string | null; payload: Envelope; now: number }): DeliveryRecord {
  const at = new Date(fields.now).toISOString();
  return {
    id: deliveryIdOf(fields.payload.id, fields.endpointId), accountId: fields.accountId, endpointId: fields.endpointId, subscriptionId: fields.subscriptionId,
    eventId: fields.payload.id, eventType: fields.payload.type, state: 'pending', run: 0, attempts: 0, firstAttemptAt: null,
    lastStatusCode: null, lastError: null, lastLatencyMs: null, nextAttemptAt: at, deliveredAt: null, createdAt: at, payload: fields.payload,
  };
}

export type QueueOutcome = 'queued' | 'duplicate' | 'rule_disabled' | 'endpoint_disabled' | 'too_old' | 'paused' | 'capped';

/**
 * Turns one occurrence matched by one rule into a queued delivery, or says why not. Safe to call
 * again for the same occurrence (a re-ingested batch, a retried job): the delivery id is derived, so
 * the second call finds the record and only re-sends its job if the first call may have died before
 * sending it; the engine ignores the extra job.
 */
export async function queueOccurrence(
  deps: DeliveryDeps, rule: { plan: PlanName; subscription: SubscriptionRecord; endpoint: EndpointRecord }, occurrence: Occurrence,
  /** `replay`: sent by a replay job, marked `replay: true` and late, whatever the rule's max_age_s (recovering old events is its point). */
  options: { replay?: boolean } = {},
): Promise<QueueOutcome> {
  const { subscription, endpoint } = rule;
  if (!subscription.enabled) return 'rule_disabled';
  // A disabled endpoint gets nothing, and nothing is kept for it: the REST routes hold the history.
  if (endpoint.status !== 'active') return 'endpoint_disabled';
  const now = deps.clock.now();
  const maxAgeS = (subscription.filters.params as Record<string, unknown> | undefined)?.max_age_s;
  if (!options.replay && typeof maxAgeS === 'number' && occurrence.occurredAt !== null && now - occurrence.occurredAt > maxAgeS * 1000) return 'too_old';

  const miss = (reason: string) => ({ at: new Date(now).toISOString(), missedAt: new Date(occurrence.occurredAt ?? now).toISOString(), reason });
  const plan = PLANS[rule.plan].webhooks;
  if (!plan.deliveryIncluded) {
    await deps.store.rules.suppress(subscription.accountId, subscription.id, miss(PAUSE_REASONS.plan));
    return 'paused';
  }
  if (subscription.pause) {
    await deps.store.rules.suppress(subscription.accountId, subscription.id, miss(subscription.pause.reason));
    return 'paused';
  }

  const payload = buildEnvelope(eventIdOf(occurrence.key, subscription.triggerId), occurrence, now, options);
  const existing = await deps.store.deliveries.get(subscription.accountId, deliveryIdOf(payload.id, endpoint.id));
  if (existing) {
    if (existing.state === 'pending' && existing.attempts === 0) await deps.queues.send('delivery', deliveryJob(existing));
    return 'duplicate';
  }
  if (!(await deps.store.allowances.countDelivery(subscription.accountId, utcDay(now), plan.deliveriesPerDay))) {
    // This rule's delivery would pass the cap: it pauses, counting this occurrence as its first miss.
    await deps.store.rules.suppress(subscription.accountId, subscription.id, miss(PAUSE_REASONS.cap));
    return 'capped';
  }
  const delivery = newDelivery({ accountId: subscription.accountId, endpointId: endpoint.id, subscriptionId: subscription.id, payload, now });
  if (!(await deps.store.deliveries.create(delivery))) return 'duplicate';
  await deps.queues.send('delivery', deliveryJob(delivery));
  return 'queued';
}

/** Manual paths count against the day too, and answer 409 instead of pausing anything. */
async function countToday(deps: DeliveryDeps, caller: Caller): Promise<void> {
  const limit = PLANS[caller.plan].webhooks.deliveriesPerDay;
  if (!(await deps.store.allowances.countDelivery(caller.id, utcDay(deps.clock.now()), limit))) {
    throw new AppError('conflict', `Today's ${limit} deliveries are used; the budget resets at 00:00 UTC.`, { details: { limit } });
  }
}

const DISABLED_MESSAGE = 'The endpoint is disabled, so nothing would be sent; enable it first.';

/** POST /endpoints/{id}/test: a signed webhook.test, queued at once. Each test is a new event. */
export async function queueTestDelivery(deps: DeliveryDeps, caller: Caller, endpointId: string) {
  requireDelivery(caller.plan);
  const endpoint = await getEndpoint(deps.store, caller, endpointId);
  if (endpoint.status !== 'active') throw new AppError('conflict', DISABLED_MESSAGE);
  await countToday(deps, caller);
  const now = deps.clock.now();
  const occurrence: Occurrence = { key: randomUUID(), type: 'webhook.test', occurredAt: null, data: { message: 'Test event from the market archive.' } };
  const delivery = newDelivery({ accountId: caller.id, endpointId, subscriptionId: null, payload: buildEnvelope(eventIdOf(occurrence.key, 'test'), occurrence, now), now });
  await deps.store.deliveries.create(delivery);
  await deps.queues.send('delivery', deliveryJob(delivery));
  return { delivery_id: delivery.id, event_id: delivery.eventId };
}

export async function listDeliveries(store: Pick<WebhookStores, 'endpoints' | 'deliveries'>, caller: Caller, endpointId: string, limit: number) {
  await getEndpoint(store, caller, endpointId);
  const clamped = Math.min(DELIVERY_LOG_LIMIT.max, Math.max(DELIVERY_LOG_LIMIT.min, limit));
  return (await store.deliveries.list(caller.id, endpointId, clamped)).map(deliveryView);
}

/**
 * POST /deliveries/{id}/redeliver: the record is reset in place and attempted again with the same
 * event id and payload. A new run number makes the jobs of the earlier run stale, so a ladder still
 * in progress stops instead of running twice.
 */
export async function redeliver(deps: DeliveryDeps, caller: Caller, deliveryId: string) {
  const delivery = await deps.store.deliveries.get(caller.id, deliveryId);
  if (!delivery) throw new AppError('not_found', 'No such delivery.', { param: 'id' });
  const endpoint = await deps.store.endpoints.get(caller.id, delivery.endpointId);
  if (!endpoint) throw new AppError('not_found', 'The delivery\'s endpoint no longer exists.', { param: 'id' });
  if (endpoint.status !== 'active') throw new AppError('conflict', DISABLED_MESSAGE);
  await countToday(deps, caller);
  const now = new Date(deps.clock.now()).toISOString();
  const reset: DeliveryRecord = {
    ...delivery, state: 'pending', run: delivery.run + 1, attempts: 0, firstAttemptAt: null, lastStatusCode: null, lastError: null, lastLatencyMs: null,
    nextAttemptAt: now, deliveredAt: null, createdAt: now,
  };
  await deps.store.deliveries.put(reset);
  await deps.queues.send('delivery', deliveryJob(reset));
  return { delivery_id: reset.id, event_id: reset.eventId, event_type: reset.eventType, state: 'pending' as const, attempts: 0, next_attempt_at: now };
}

/**
 * How far past due an attempt must be before the overdue sweep sends its job again: well past SQS's
 * delays and the timer sweep's minute, so the ordinary path always goes first and a short queue
 * backlog is not doubled.
 */
export const OVERDUE_GRACE_MS = 5 * 60_000;
const MIN_OVERDUE_GRACE_MS = 10_000;
/** Deliveries one sweep re-enqueues at most; the rest wait for the next minute. */
export const OVERDUE_SWEEP_LIMIT = 1_000;

/**
 * Delivery is at least once by construction: the record, not the queue message, is the truth. A
 * job lost between the record's write and its send (or with a crashed local queue) is sent again
 * from the store once its attempt is overdue; the engine's run, attempt and lease checks drop any
 * copy that is not the current one, so a job sent twice makes one attempt.
 */
export async function sweepOverdueDeliveries(
  deps: Pick<DeliveryDeps, 'queues' | 'clock'> & { store: Pick<WebhookStores, 'deliveries'>; timeScale: number },
): Promise<{ requeued: number }> {
  // The local time scale shortens the grace with the ladder, never below a few seconds of SQS delay.
  const cutoff = deps.clock.now() - Math.max(MIN_OVERDUE_GRACE_MS, OVERDUE_GRACE_MS / deps.timeScale);
  let requeued = 0;
  for (const key of await deps.store.deliveries.overdue(new Date(cutoff).toISOString(), OVERDUE_SWEEP_LIMIT)) {
    const delivery = await deps.store.deliveries.get(key.accountId, key.id);
    // The index is read before the record: the attempt may have been made since.
    if (!delivery || delivery.nextAttemptAt === null || Date.parse(delivery.nextAttemptAt) >= cutoff) continue;
    await deps.queues.send('delivery', deliveryJob(delivery));
    requeued += 1;
  }
  return { requeued };
}
