/**
 * Queueing a batch's matches together (core/webhooks/deliveries.ts `queueOccurrences`) against
 * dynalite: what batching could break. A batch redelivered, or processed twice at once, creates and
 * counts each delivery once and sends every new delivery's job; a batch spanning the daily cap
 * admits exactly up to it, and the rules it pauses count exactly what they missed.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { queueSender, webhookStores } from '#shared/deps.ts';
import { config } from '#shared/config.ts';
import { TABLES } from '#functions/resources.ts';
import { queueOccurrences, utcDay, type DeliveryDeps, type QueueOutcome, type QueueRequest, type QueueRule } from '#core/webhooks/deliveries.ts';
import { deliveryIdOf, eventIdOf } from '#core/webhooks/envelope.ts';
import { PLANS, type PlanName } from '#core/plans.ts';
import type { QueueBatchSender } from '#ports/queues.ts';
import type { DeliveryJobMessage } from '#schemas/messages.ts';
import { endpointRecord, subscriptionRecord } from '../contracts/webhook-stores.ts';

let env: ScratchEmulators;
beforeAll(async () => {
  env = await startScratchEmulators();
});
afterAll(async () => {
  await env?.stop();
});

const now = Date.parse('2026-11-21T12:00:00.000Z');
const clock = { now: () => now };

/** The real queue, recording the delivery jobs sent through it. */
function recordingQueues(): QueueBatchSender & { jobs: DeliveryJobMessage[] } {
  const real = queueSender();
  const jobs: DeliveryJobMessage[] = [];
  return {
    jobs,
    send: async (queue, body, delay) => {
      jobs.push(JSON.parse(body));
      await real.send(queue, body, delay);
    },
    sendBatch: async (queue, messages) => {
      jobs.push(...messages.map((m) => JSON.parse(m.body)));
      await real.sendBatch(queue, messages);
    },
  };
}

/** An account with `rules` rules, each on an endpoint of its own (rules sharing an endpoint and trigger are one delivery). */
async function account(plan: PlanName, rules: number): Promise<QueueRule[]> {
  const accountId = `acct_${randomUUID().slice(0, 8)}`;
  return Promise.all(
    Array.from({ length: rules }, async () => {
      const endpoint = endpointRecord(accountId);
      const subscription = subscriptionRecord(accountId, {
        endpointId: endpoint.id,
        eventType: 'market.liquidation',
        triggerId: `market.liquidation#${randomUUID().slice(0, 6)}`,
        filters: { conditions: [], params: {} },
      });
      await webhookStores().rules.put(subscription);
      return { plan, subscription, endpoint };
    }),
  );
}

const occurrence = (key = randomUUID(), occurredAt = now - 1_000) => ({
  key,
  type: 'market.liquidation',
  occurredAt,
  data: { venue: 'perpx', symbol: 'BTC', notional_usd: 250_000 },
});
const deliveryOf = (request: QueueRequest) => deliveryIdOf(eventIdOf(request.occurrence.key, request.rule.subscription.triggerId), request.rule.endpoint.id);
const tally = (outcomes: QueueOutcome[]) => {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
};

describe('a batch queued again', () => {
  it("redelivered, creates and counts nothing new; processed twice at once, creates and counts each delivery once and sends each one's job", async () => {
    const [first, second] = [await account('enterprise', 3), await account('pro', 2)];
    const requests: QueueRequest[] = [...first, ...second].flatMap((rule) => Array.from({ length: 12 }, () => ({ rule, occurrence: occurrence() })));
    // The same occurrence twice for one rule in one batch is one delivery.
    requests.push({ ...requests[0]! });
    const queues = recordingQueues();
    const deps: DeliveryDeps = { store: webhookStores(), queues, clock };

    const [a, b] = await Promise.all([queueOccurrences(deps, requests), queueOccurrences(deps, requests)]);
    const again = await queueOccurrences(deps, requests);

    expect(tally([...a, ...b])).toEqual({ queued: 60, duplicate: 62 });
    expect(tally(again)).toEqual({ duplicate: 61 });
    for (const [accountId, rules] of [
      [first[0]!.subscription.accountId, first],
      [second[0]!.subscription.accountId, second],
    ] as const) {
      expect(await webhookStores().allowances.deliveriesCounted(accountId, utcDay(now))).toBe(rules.length * 12);
      for (const rule of rules) expect(await webhookStores().deliveries.list(accountId, rule.endpoint.id, 50)).toHaveLength(12);
    }
    // At least once: every delivery's job was sent (a pending one's again when seen again; the engine drops the extra copies).
    expect(new Set(queues.jobs.map((job) => job.delivery_id))).toEqual(new Set(requests.map(deliveryOf)));
  });
});

describe('a batch spanning the daily cap', () => {
  it('admits exactly what is left of the cap, however the matches are split into batches racing each other, and pauses each rule with what it missed', async () => {
    const limit = PLANS.build.webhooks.deliveriesPerDay!;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 14 }),
        fc.integer({ min: 1, max: 3 }),
        async (left, ruleOfMatch, batches) => {
          const rules = await account('build', 3);
          const accountId = rules[0]!.subscription.accountId;
          await env.dynamo.send(
            new PutCommand({
              TableName: config()[TABLES.webhooks.envVar] as string,
              Item: { pk: `ACCT#${accountId}`, sk: `DAY#${utcDay(now)}`, deliveries: limit - left },
            }),
          );
          const requests = ruleOfMatch.map((r, i) => ({ rule: rules[r]!, occurrence: occurrence(undefined, now - 60_000 + i * 1_000) }));
          const split = Array.from({ length: batches }, (_, b) => requests.filter((_, i) => i % batches === b));
          const deps: DeliveryDeps = { store: webhookStores(), queues: queueSender(), clock };

          const perBatch = await Promise.all(split.map((batch) => queueOccurrences(deps, batch)));

          const outcomes = perBatch.flat();
          const admitted = Math.min(left, requests.length);
          expect(tally(outcomes)).toEqual({
            ...(admitted > 0 && { queued: admitted }),
            ...(requests.length > admitted && { capped: requests.length - admitted }),
          });
          expect(await webhookStores().allowances.deliveriesCounted(accountId, utcDay(now))).toBe(limit - left + admitted);
          const missedBy = new Map<string, number>();
          split.forEach((batch, b) => {
            batch.forEach((request, i) => {
              if (perBatch[b]![i] === 'capped') missedBy.set(request.rule.subscription.id, (missedBy.get(request.rule.subscription.id) ?? 0) + 1);
            });
          });
          for (const rule of rules) {
            const stored = await webhookStores().rules.get(accountId, rule.subscription.id);
            const missed = missedBy.get(rule.subscription.id) ?? 0;
            expect(stored!.pause?.suppressedCount ?? 0).toBe(missed);
            if (missed > 0) expect(stored!.pause).toMatchObject({ reason: 'deliveries_per_day_cap' });
          }
        },
      ),
      { numRuns: 15 },
    );
  });

  it("counts a rule's misses in one batch from the first to the last", async () => {
    const [rule] = await account('build', 1);
    const accountId = rule!.subscription.accountId;
    await env.dynamo.send(
      new PutCommand({
        TableName: config()[TABLES.webhooks.envVar] as string,
        Item: { pk: `ACCT#${accountId}`, sk: `DAY#${utcDay(now)}`, deliveries: PLANS.build.webhooks.deliveriesPerDay! - 1 },
      }),
    );
    const times = [now - 30_000, now - 50_000, now - 10_000, now - 40_000];

    const outcomes = await queueOccurrences(
      { store: webhookStores(), queues: queueSender(), clock },
      times.map((at) => ({ rule: rule!, occurrence: occurrence(undefined, at) })),
    );

    expect(outcomes).toEqual(['queued', 'capped', 'capped', 'capped']);
    expect((await webhookStores().rules.get(accountId, rule!.subscription.id))!.pause).toMatchObject({
      reason: 'deliveries_per_day_cap',
      suppressedCount: 3,
      suppressedFirstAt: new Date(now - 50_000).toISOString(),
      suppressedLastAt: new Date(now - 10_000).toISOString(),
    });
  });
});
