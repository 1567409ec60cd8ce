/**
 * The account's own delivery requests: a signed test event, a redelivery, the delivery log. Unlike
 * matched occurrences (deliveries.ts), these count against the day one by one and answer 409 at the
 * cap instead of pausing a rule.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors.ts';
import { PLANS } from '../plans.ts';
import type { DeliveryRecord, WebhookStores } from '#ports/webhooks.ts';
import { getEndpoint, requireDelivery } from './endpoints.ts';
import type { Caller } from '../accounts.ts';
import { buildEnvelope, eventIdOf, type Occurrence } from './envelope.ts';
import { deliveryJob, newDelivery, utcDay, type DeliveryDeps } from './deliveries.ts';
import webhookTest from '../events/webhook.test.ts';

export const DELIVERY_LOG_LIMIT = { default: 50, min: 1, max: 200 } as const;

export function deliveryView(d: DeliveryRecord) {
  return {
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType,
    endpoint_id: d.endpointId,
    subscription_id: d.subscriptionId,
    state: d.state,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    last_latency_ms: d.lastLatencyMs,
    next_attempt_at: d.nextAttemptAt,
    first_attempt_at: d.firstAttemptAt,
    delivered_at: d.deliveredAt,
    created_at: d.createdAt,
    payload: d.payload,
  };
}

/** Manual paths count against the day too, keyed on what they send, and answer 409 instead of pausing anything. */
async function countToday(deps: DeliveryDeps, caller: Caller, key: string): Promise<void> {
  const limit = PLANS[caller.plan].webhooks.deliveriesPerDay;
  if (!(await deps.store.allowances.countDelivery(caller.id, utcDay(deps.clock.now()), key, limit))) {
    throw new AppError('conflict', `Today's ${limit} deliveries are used; the budget resets at 00:00 UTC.`, { details: { limit } });
  }
}

const DISABLED_MESSAGE = 'The endpoint is disabled, so nothing would be sent; enable it first.';

/** POST /endpoints/{id}/test: a signed webhook.test, queued at once. Each test is a new event. */
export async function queueTestDelivery(deps: DeliveryDeps, caller: Caller, endpointId: string) {
  requireDelivery(caller.plan);
  const endpoint = await getEndpoint(deps.store, caller, endpointId);
  if (endpoint.status !== 'active') throw new AppError('conflict', DISABLED_MESSAGE);
  const now = deps.clock.now();
  const occurrence: Occurrence = {
    key: randomUUID(),
    type: webhookTest.declaration.type,
    occurredAt: null,
    data: { message: 'Test event from the market archive.' },
  };
  const delivery = newDelivery({
    accountId: caller.id,
    endpointId,
    subscriptionId: null,
    payload: buildEnvelope(eventIdOf(occurrence.key, 'test'), occurrence, now),
    now,
  });
  await countToday(deps, caller, delivery.id);
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
  if (!endpoint) throw new AppError('not_found', "The delivery's endpoint no longer exists.", { param: 'id' });
  if (endpoint.status !== 'active') throw new AppError('conflict', DISABLED_MESSAGE);
  await countToday(deps, caller, `${delivery.id}#${delivery.run + 1}`);
  const now = new Date(deps.clock.now()).toISOString();
  const reset: DeliveryRecord = {
    ...delivery,
    state: 'pending',
    run: delivery.run + 1,
    attempts: 0,
    firstAttemptAt: null,
    lastStatusCode: null,
    lastError: null,
    lastLatencyMs: null,
    nextAttemptAt: now,
    deliveredAt: null,
    createdAt: now,
  };
  await deps.store.deliveries.put(reset);
  await deps.queues.send('delivery', deliveryJob(reset));
  return { delivery_id: reset.id, event_id: reset.eventId, event_type: reset.eventType, state: 'pending' as const, attempts: 0, next_attempt_at: now };
}
