/**
 * Queue time: where a delivery record is born and counted. Detectors hand each matched occurrence
 * to `queueOccurrence`; the management API queues `webhook.test` and redeliveries. Deliveries are
 * counted against the account's UTC day here, once (a retry is never counted again); the rule whose
 * delivery would pass the cap is paused and counts what it misses, and nothing is buffered.
 * The delivery engine (engine.ts) does the sending; the account's own requests (a test event, a
 * redelivery, the log) are in manual-deliveries.ts and the overdue sweep in overdue.ts.
 */
import { randomUUID } from 'node:crypto';
import { eachBounded } from '../bounded.ts';
import { PLANS, type PlanName } from '../plans.ts';
import type { Clock } from '#ports/clock.ts';
import type { QueueBatchSender } from '#ports/queues.ts';
import type { DeliveryRecord, EndpointRecord, SubscriptionRecord, WebhookStores } from '#ports/webhooks.ts';
import type { DeliveryJobMessage } from '#schemas/messages.ts';
import { buildEnvelope, deliveryIdOf, eventIdOf, type Envelope, type Occurrence } from './envelope.ts';

export interface DeliveryDeps {
  store: WebhookStores;
  queues: QueueBatchSender;
  clock: Clock;
}

export const PAUSE_REASONS = { cap: 'deliveries_per_day_cap', plan: 'plan_no_webhooks' } as const;

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function deliveryJob(d: Pick<DeliveryRecord, 'accountId' | 'id' | 'run' | 'attempts' | 'endpointId'>): string {
  const job: DeliveryJobMessage = {
    type: 'deliver.v1',
    account_id: d.accountId,
    delivery_id: d.id,
    run: d.run,
    attempt: d.attempts,
    endpoint_id: d.endpointId,
  };
  return JSON.stringify(job);
}

export function newDelivery(fields: { accountId: string; endpointId: string; subscriptionId: string | null; payload: Envelope; now: number }): DeliveryRecord {
  const at = new Date(fields.now).toISOString();
  return {
    id: deliveryIdOf(fields.payload.id, fields.endpointId),
    accountId: fields.accountId,
    endpointId: fields.endpointId,
    subscriptionId: fields.subscriptionId,
    eventId: fields.payload.id,
    eventType: fields.payload.type,
    state: 'pending',
    run: 0,
    attempts: 0,
    firstAttemptAt: null,
    lastStatusCode: null,
    lastError: null,
    lastLatencyMs: null,
    nextAttemptAt: at,
    deliveredAt: null,
    createdAt: at,
    payload: fields.payload,
  };
}

export type QueueOutcome = 'queued' | 'duplicate' | 'rule_disabled' | 'endpoint_disabled' | 'too_old' | 'paused' | 'capped';

export interface QueueRule {
  plan: PlanName;
  subscription: SubscriptionRecord;
  endpoint: EndpointRecord;
}
export interface QueueRequest {
  rule: QueueRule;
  occurrence: Occurrence;
}
interface QueueOptions {
  /** `replay`: sent by a replay job, marked `replay: true` and late, whatever the rule's max_age_s (recovering old events is its point). */
  replay?: boolean;
}

/**
 * How long a worker may create one account's deliveries before another may take over: far longer
 * than the few requests made under it, short enough that a worker that died holding it stalls that
 * account's queueing only briefly.
 */
export const QUEUING_LEASE_MS = 60_000;
/**
 * Deliveries are written only with this much of the lease left: a worker stalled past it gives up
 * (its batch is retried) rather than write over deliveries another holder created meanwhile.
 */
const QUEUING_LEASE_MARGIN_MS = 20_000;
/** Accounts whose deliveries are queued at once. */
const ACCOUNT_CONCURRENCY = 4;

/**
 * Turns one occurrence matched by one rule into a queued delivery, or says why not. Safe to call
 * again for the same occurrence (a re-ingested batch, a retried job): the delivery id is derived, so
 * the second call finds the record and only re-sends its job if the first call may have died before
 * sending it; the engine ignores the extra job.
 */
export async function queueOccurrence(deps: DeliveryDeps, rule: QueueRule, occurrence: Occurrence, options: QueueOptions = {}): Promise<QueueOutcome> {
  return (await queueOccurrences(deps, [{ rule, occurrence }], options))[0]!;
}

/**
 * `queueOccurrence` for many matches at once, with each account's requests made once for all of
 * them: one read of which deliveries exist, one count against the day's cap, their records written
 * many a request and their jobs sent ten a message batch. Outcomes are in the order of `requests`;
 * within an account, the cap admits matches in that order. Accounts are queued in parallel, each
 * under its queuing lease (see `DeliveryStore.leaseQueuing`), so a batch processed twice at once
 * still creates each delivery once.
 */
export async function queueOccurrences(deps: DeliveryDeps, requests: readonly QueueRequest[], options: QueueOptions = {}): Promise<QueueOutcome[]> {
  const outcomes: QueueOutcome[] = new Array(requests.length);
  const byAccount = new Map<string, number[]>();
  requests.forEach(({ rule }, i) => {
    const list = byAccount.get(rule.subscription.accountId);
    if (list) list.push(i);
    else byAccount.set(rule.subscription.accountId, [i]);
  });
  // Every account is tried even if one fails, so a retry finds as much queued as possible.
  await eachBounded([...byAccount], ACCOUNT_CONCURRENCY, async ([accountId, indexes]) => {
    const queued = await queueForAccount(
      deps,
      accountId,
      indexes.map((i) => requests[i]!),
      options,
    );
    indexes.forEach((i, j) => {
      outcomes[i] = queued[j]!;
    });
  });
  return outcomes;
}

/** Occurrences one rule missed in this call, counted into its pause with one write. */
interface Missed {
  subscription: SubscriptionRecord;
  reason: string;
  first: number;
  last: number;
  count: number;
}

async function queueForAccount(deps: DeliveryDeps, accountId: string, requests: readonly QueueRequest[], options: QueueOptions): Promise<QueueOutcome[]> {
  const now = deps.clock.now();
  const outcomes: QueueOutcome[] = new Array(requests.length);
  const missed = new Map<string, Missed>();
  const miss = (i: number, subscription: SubscriptionRecord, reason: string, outcome: QueueOutcome) => {
    outcomes[i] = outcome;
    const at = requests[i]!.occurrence.occurredAt ?? now;
    const seen = missed.get(subscription.id);
    if (seen) Object.assign(seen, { first: Math.min(seen.first, at), last: Math.max(seen.last, at), count: seen.count + 1 });
    else missed.set(subscription.id, { subscription, reason, first: at, last: at, count: 1 });
  };

  // Matches that would be new deliveries, the first for each delivery id (a later one is the same delivery).
  const candidates = new Map<string, { i: number; delivery: DeliveryRecord }>();
  for (const [i, { rule, occurrence }] of requests.entries()) {
    const { subscription, endpoint } = rule;
    if (!subscription.enabled) {
      outcomes[i] = 'rule_disabled';
      continue;
    }
    // A disabled endpoint gets nothing, and nothing is kept for it: the REST routes hold the history.
    if (endpoint.status !== 'active') {
      outcomes[i] = 'endpoint_disabled';
      continue;
    }
    const maxAgeS = (subscription.filters.params as Record<string, unknown> | undefined)?.max_age_s;
    if (!options.replay && typeof maxAgeS === 'number' && occurrence.occurredAt !== null && now - occurrence.occurredAt > maxAgeS * 1000) {
      outcomes[i] = 'too_old';
      continue;
    }
    if (!PLANS[rule.plan].webhooks.deliveryIncluded) {
      miss(i, subscription, PAUSE_REASONS.plan, 'paused');
      continue;
    }
    if (subscription.pause) {
      miss(i, subscription, subscription.pause.reason, 'paused');
      continue;
    }
    const payload = buildEnvelope(eventIdOf(occurrence.key, subscription.triggerId), occurrence, now, options);
    const delivery = newDelivery({ accountId, endpointId: endpoint.id, subscriptionId: subscription.id, payload, now });
    if (candidates.has(delivery.id)) {
      outcomes[i] = 'duplicate';
      continue;
    }
    candidates.set(delivery.id, { i, delivery });
  }

  const jobs: string[] = [];
  if (candidates.size > 0) {
    const holder = randomUUID();
    const leaseUntil = await takeQueuingLease(deps, accountId, holder);
    try {
      const existing = await deps.store.deliveries.states(accountId, [...candidates.keys()]);
      const fresh: { i: number; delivery: DeliveryRecord }[] = [];
      for (const [id, candidate] of candidates) {
        const found = existing.get(id);
        if (!found) {
          fresh.push(candidate);
          continue;
        }
        outcomes[candidate.i] = 'duplicate';
        // Its job may never have been sent (the first run died after the write); the engine ignores an extra one.
        if (found.state === 'pending' && found.attempts === 0) jobs.push(deliveryJob(found));
      }
      const limit = PLANS[requests[fresh[0]?.i ?? 0]!.rule.plan].webhooks.deliveriesPerDay;
      const admitted =
        fresh.length === 0
          ? 0
          : await deps.store.allowances.countDeliveries(
              accountId,
              utcDay(now),
              fresh.map((c) => c.delivery.id),
              limit,
            );
      // The deliveries past the cap pause their rules, each counting what it missed.
      for (const { i } of fresh.slice(admitted)) miss(i, requests[i]!.rule.subscription, PAUSE_REASONS.cap, 'capped');
      const created = fresh.slice(0, admitted);
      if (created.length > 0) {
        if (deps.clock.now() > leaseUntil - QUEUING_LEASE_MARGIN_MS) {
          throw new Error(`Queueing account ${accountId}'s deliveries outlasted its lease's margin; the batch is retried`);
        }
        await deps.store.deliveries.createMany(created.map((c) => c.delivery));
      }
      for (const { i, delivery } of created) {
        outcomes[i] = 'queued';
        jobs.push(deliveryJob(delivery));
      }
    } finally {
      await deps.store.deliveries.releaseQueuing(accountId, holder);
    }
  }
  // One job (a replay's occurrence, a minute's single event) is a plain send; more go ten a request.
  if (jobs.length === 1) await deps.queues.send('delivery', jobs[0]!);
  else if (jobs.length > 1)
    await deps.queues.sendBatch(
      'delivery',
      jobs.map((body) => ({ body, delaySeconds: 0 })),
    );
  await Promise.all(
    [...missed.values()].map(({ subscription, reason, first, last, count }) =>
      deps.store.rules.suppress(accountId, subscription.id, {
        at: new Date(now).toISOString(),
        reason,
        count,
        firstMissedAt: new Date(first).toISOString(),
        missedAt: new Date(last).toISOString(),
      }),
    ),
  );
  return outcomes;
}

/**
 * Waits while another worker holds the account's queuing lease (released at once after use, or
 * running out); returns when the lease taken ends.
 */
async function takeQueuingLease(deps: DeliveryDeps, accountId: string, holder: string): Promise<number> {
  for (let round = 0; ; round++) {
    const now = deps.clock.now();
    if (await deps.store.deliveries.leaseQueuing(accountId, holder, now + QUEUING_LEASE_MS, now)) return now + QUEUING_LEASE_MS;
    if (round * 100 > 2 * QUEUING_LEASE_MS)
      throw new Error(`The queuing lease of account ${accountId} stayed taken for over ${(2 * QUEUING_LEASE_MS) / 1000} s; the batch is retried`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, 5 * 2 ** round)));
  }
}
