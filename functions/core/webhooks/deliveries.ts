/**
 * The parts of delivery the management API owns: queueing a signed `webhook.test`, the delivery
 * log of an endpoint, and manual redelivery (a new attempt of the same event id). Deliveries are
 * counted against the account's day at queue time; the delivery engine does the sending.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors.ts';
import { PLANS } from '../plans.ts';
import type { Clock } from '../../ports/clock.ts';
import type { QueueSender } from '../../ports/queues.ts';
import type { DeliveryRecord, WebhookStore } from '../../ports/webhooks.ts';
import type { DeliveryJobMessage } from '../../../schemas/messages.ts';
import { getEndpoint, requireDelivery, type Caller } from './endpoints.ts';

export interface DeliveryDeps { store: WebhookStore; queues: QueueSender; clock: Clock }

export const DELIVERY_LOG_LIMIT = { default: 50, min: 1, max: 200 } as const;

export function deliveryView(d: DeliveryRecord) {
  return {
    id: d.id, event_id: d.eventId, event_type: d.eventType, endpoint_id: d.endpointId, state: d.state, attempts: d.attempts,
    last_status_code: d.lastStatusCode, last_error: d.lastError, last_latency_ms: d.lastLatencyMs, next_attempt_at: d.nextAttemptAt,
    delivered_at: d.deliveredAt, created_at: d.createdAt, payload: d.payload,
  };
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function countToday(deps: DeliveryDeps, caller: Caller): Promise<void> {
  const limit = PLANS[caller.plan].webhooks.deliveriesPerDay;
  if (!(await deps.store.countDelivery(caller.id, utcDay(deps.clock.now()), limit))) {
    throw new AppError('conflict', `Today's ${limit} deliveries are used; the budget resets at 00:00 UTC.`, { details: { limit } });
  }
}

async function enqueue(deps: DeliveryDeps, delivery: DeliveryRecord): Promise<void> {
  await deps.store.putDelivery(delivery);
  const job: DeliveryJobMessage = { type: 'deliver.v1', account_id: delivery.accountId, delivery_id: delivery.id };
  await deps.queues.send('delivery', JSON.stringify(job));
}

/** POST /endpoints/{id}/test: a signed webhook.test, queued at once. */
export async function queueTestDelivery(deps: DeliveryDeps, caller: Caller, endpointId: string) {
  requireDelivery(caller.plan);
  const endpoint = await getEndpoint(deps.store, caller, endpointId);
  if (endpoint.status !== 'active') throw new AppError('conflict', 'The endpoint is disabled, so nothing would be sent; enable it first.');
  await countToday(deps, caller);
  const now = new Date(deps.clock.now()).toISOString();
  const eventId = randomUUID();
  const delivery: DeliveryRecord = {
    id: randomUUID(), accountId: caller.id, endpointId, eventId, eventType: 'webhook.test', state: 'pending', attempts: 0,
    lastStatusCode: null, lastError: null, lastLatencyMs: null, nextAttemptAt: now, deliveredAt: null, createdAt: now,
    payload: { id: eventId, type: 'webhook.test', schema_version: 1, observed_at: now, data: { message: 'Test event from the market archive.' } },
  };
  await enqueue(deps, delivery);
  return { delivery_id: delivery.id, event_id: eventId };
}

export async function listDeliveries(store: WebhookStore, caller: Caller, endpointId: string, limit: number) {
  await getEndpoint(store, caller, endpointId);
  const clamped = Math.min(DELIVERY_LOG_LIMIT.max, Math.max(DELIVERY_LOG_LIMIT.min, limit));
  return (await store.listDeliveries(caller.id, endpointId, clamped)).map(deliveryView);
}

/** POST /deliveries/{id}/redeliver: the record is reset in place and attempted again, same event id. */
export async function redeliver(deps: DeliveryDeps, caller: Caller, deliveryId: string) {
  const delivery = await deps.store.getDelivery(caller.id, deliveryId);
  if (!delivery) throw new AppError('not_found', 'No such delivery.', { param: 'id' });
  const endpoint = await deps.store.getEndpoint(caller.id, delivery.endpointId);
  if (!endpoint) throw new AppError('not_found', 'The delivery\'s endpoint no longer exists.', { param: 'id' });
  if (endpoint.status !== 'active') throw new AppError('conflict', 'The endpoint is disabled, so nothing would be sent; enable it first.');
  await countToday(deps, caller);
  const now = new Date(deps.clock.now()).toISOString();
  const reset: DeliveryRecord = {
    ...delivery, state: 'pending', attempts: 0, lastStatusCode: null, lastError: null, lastLatencyMs: null, nextAttemptAt: now, deliveredAt: null, createdAt: now,
  };
  await enqueue(deps, reset);
  return { delivery_id: reset.id, event_id: reset.eventId, event_type: reset.eventType, state: reset.state, attempts: 0, next_attempt_at: now };
}
