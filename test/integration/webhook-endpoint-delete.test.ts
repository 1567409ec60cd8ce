/**
 * Deleting a webhook endpoint while subscriptions are created on it (and edited) leaves no
 * subscription of the deleted endpoint, and the subscription allowance `/v1/webhooks/limits` shows
 * counts exactly the subscriptions that remain (issue 40: ten creates racing a delete left ten).
 * The core functions run on the DynamoDB adapters against dynalite: first with every store call a
 * step taken in an order fast-check draws (each run a different interleaving, a failure shrunk to
 * the shortest), then freely concurrent, round after round.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { webhookStores } from '#shared/deps.ts';
import { createEndpoint, deleteEndpoint, limitsView } from '#core/webhooks/endpoints.ts';
import { createSubscription, patchSubscription } from '#core/webhooks/subscriptions.ts';
import type { Caller } from '#core/accounts.ts';
import type { WebhookStores } from '#ports/webhooks.ts';

let env: ScratchEmulators;
beforeAll(async () => {
  env = await startScratchEmulators();
});
afterAll(async () => {
  await env?.stop();
});

const clock = { now: () => Date.now() };
const resolve = async () => ['93.184.216.34'];
const caller = (): Caller => ({ id: `acct_${randomUUID().slice(0, 8)}`, plan: 'scale' });
const body = (endpointId: string) => ({ endpoint_id: endpointId, event_type: 'market.liquidation', filters: { venue: 'perpx', min_notional_usd: 50_000 } });

/**
 * Runs tasks whose every call on the stores is one step: a step runs alone, to completion, and the
 * next is the waiting step `choices` picks. Between two store calls a task runs only microtasks,
 * so after a macrotask turn every live task waits at its next call or has ended.
 */
class Interleaving {
  private readonly waiting: { run: () => Promise<unknown>; settle: (outcome: { value: unknown } | { error: unknown }) => void }[] = [];

  stores(stores: WebhookStores): WebhookStores {
    const wrap = <T extends object>(store: T): T =>
      new Proxy(store, {
        get: (target, name) => {
          const member = Reflect.get(target, name) as unknown;
          if (typeof member !== 'function') return member;
          return (...args: unknown[]) =>
            new Promise((resolveCall, rejectCall) => {
              this.waiting.push({
                run: () => (member as (...a: unknown[]) => Promise<unknown>).apply(target, args),
                settle: (outcome) => ('error' in outcome ? rejectCall(outcome.error) : resolveCall(outcome.value)),
              });
            });
        },
      });
    return Object.fromEntries(Object.entries(stores).map(([name, store]) => [name, wrap(store as object)])) as unknown as WebhookStores;
  }

  async run(tasks: readonly (() => Promise<unknown>)[], choices: readonly number[]): Promise<PromiseSettledResult<unknown>[]> {
    let live = tasks.length;
    const settled = Promise.allSettled(
      tasks.map((task) =>
        task().finally(() => {
          live -= 1;
        }),
      ),
    );
    for (let step = 0; ; step++) {
      await new Promise((turn) => setImmediate(turn));
      if (this.waiting.length === 0) break;
      const [next] = this.waiting.splice(choices[step % choices.length]! % this.waiting.length, 1);
      next!.settle(
        await next!.run().then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        ),
      );
    }
    expect(live).toBe(0);
    return settled;
  }
}

/** No subscription of the deleted endpoint; the allowance counts what is there, as limits shows it. */
async function expectClean(who: Caller, deletedEndpoint: string) {
  const stores = webhookStores();
  const left = await stores.rules.list(who.id);
  expect(left.filter((s) => s.endpointId === deletedEndpoint).map((s) => s.id)).toEqual([]);
  expect(await stores.endpoints.get(who.id, deletedEndpoint)).toBeUndefined();
  const limits = await limitsView(stores, who, Date.now());
  expect(limits.subscriptions.used).toBe(left.length);
  expect(limits.endpoints.used).toBe((await stores.endpoints.list(who.id)).length);
}

describe('deleting an endpoint while subscriptions are created on it', () => {
  it('leaves none of its subscriptions under any interleaving of store calls (creates, edits, the delete)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(fc.nat(), { minLength: 1, maxLength: 60 }), async (creates, choices) => {
        // Prepare: an endpoint with one subscription already on it, which is edited during the race.
        const who = caller();
        const endpoint = await createEndpoint({ store: webhookStores(), clock, resolve }, who, { url: 'https://example.com/hook' });
        const existing = await createSubscription({ store: webhookStores(), clock }, who, body(endpoint.id));
        const interleaving = new Interleaving();
        const store = interleaving.stores(webhookStores());
        // Act
        const outcomes = await interleaving.run(
          [
            () => deleteEndpoint(store, who, endpoint.id),
            () => patchSubscription({ store, clock }, who, existing.id, { enabled: false }),
            ...Array.from({ length: creates }, () => () => createSubscription({ store, clock }, who, body(endpoint.id))),
          ],
          choices,
        );
        // Assess: the delete succeeds; a create or edit it overtook is refused; nothing of the endpoint is left.
        expect(outcomes[0]!.status).toBe('fulfilled');
        for (const outcome of outcomes.slice(1)) {
          if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ code: expect.stringMatching(/^(invalid_parameter|not_found)$/) });
        }
        await expectClean(who, endpoint.id);
      }),
      { numRuns: 50 },
    );
  });

  it('leaves none when ten creates race the delete, round after round', async () => {
    for (let round = 0; round < 12; round++) {
      // Prepare
      const who = caller();
      const endpoint = await createEndpoint({ store: webhookStores(), clock, resolve }, who, { url: 'https://example.com/hook' });
      const deps = { store: webhookStores(), clock };
      // Act: the delete starts a few turns after the creates (a different point in them each round).
      const creates = Promise.allSettled(Array.from({ length: 10 }, () => createSubscription(deps, who, body(endpoint.id))));
      for (let turn = 0; turn < round % 6; turn++) await new Promise((turned) => setImmediate(turned));
      await deleteEndpoint(webhookStores(), who, endpoint.id);
      const outcomes = await creates;
      // Assess
      for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ code: 'invalid_parameter' });
      await expectClean(who, endpoint.id);
    }
  });
});
