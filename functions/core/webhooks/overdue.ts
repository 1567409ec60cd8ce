/**
 * The overdue sweep: a delivery whose job was lost is sent again from its record.
 */
import type { QueueSender } from '#ports/queues.ts';
import type { WebhookStores } from '#ports/webhooks.ts';
import { deliveryJob, type DeliveryDeps } from './deliveries.ts';

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
  deps: Pick<DeliveryDeps, 'clock'> & { queues: QueueSender; store: Pick<WebhookStores, 'deliveries'>; timeScale: number },
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
