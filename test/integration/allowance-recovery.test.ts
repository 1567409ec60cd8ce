/**
 * An allowance unit taken by a worker that died before storing its item (issue 44): the unit is
 * kept while the item could still be on its way, and given back at the next refusal once it is
 * older than any create takes, so the account is not left a unit short for ever. The core runs on
 * the DynamoDB adapters against dynalite, with a clock of the test's own.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { webhookStores } from '#shared/deps.ts';
import { createEndpoint, deleteEndpoint, UNSTORED_UNIT_MS } from '#core/webhooks/endpoints.ts';
import { createSubscription } from '#core/webhooks/subscriptions.ts';
import { AppError } from '#core/errors.ts';
import type { Caller } from '#core/accounts.ts';

let env: ScratchEmulators;
beforeAll(async () => {
  env = await startScratchEmulators();
});
afterAll(async () => {
  await env?.stop();
});

const T0 = Date.UTC(2026, 10, 21, 12);
const resolve = async () => ['93.184.216.34'];

describe('allowance units of items never stored', () => {
  it('are given back at a refusal once older than a create takes, and not before', async () => {
    let now = T0;
    const deps = { store: webhookStores(), clock: { now: () => now }, resolve };
    const caller: Caller = { id: `acct_${randomUUID().slice(0, 8)}`, plan: 'build' }; // one endpoint
    // A create that counted its endpoint and died before storing it.
    expect(await deps.store.allowances.reserve(caller.id, 'endpoints', 1, 'never-stored', now)).toBe(true);
    now += UNSTORED_UNIT_MS - 1_000;
    await expect(createEndpoint(deps, caller, { url: 'https://hooks.example.com/a' })).rejects.toMatchObject({ code: 'plan_limit' });
    now += 2_000;
    const endpoint = await createEndpoint(deps, caller, { url: 'https://hooks.example.com/a' });
    expect((await deps.store.allowances.usage(caller.id)).endpoints).toBe(1);
    expect((await deps.store.allowances.counted(caller.id, 'endpoints')).map((u) => u.id)).toEqual([endpoint.id]);
    // A stored endpoint's unit is never given back, however old.
    now += 10 * UNSTORED_UNIT_MS;
    await expect(createEndpoint(deps, caller, { url: 'https://hooks.example.com/b' })).rejects.toBeInstanceOf(AppError);
    expect((await deps.store.allowances.usage(caller.id)).endpoints).toBe(1);
  });

  it('left by a delete that died before giving the unit back are given back too', async () => {
    let now = T0;
    const deps = { store: webhookStores(), clock: { now: () => now }, resolve };
    const caller: Caller = { id: `acct_${randomUUID().slice(0, 8)}`, plan: 'build' }; // eight subscriptions
    const endpoint = await createEndpoint(deps, caller, { url: 'https://hooks.example.com/a' });
    const body = { endpoint_id: endpoint.id, event_type: 'market.liquidation', filters: { venue: 'perpx', min_notional_usd: 50_000 } };
    const subscriptions = [];
    for (let i = 0; i < 8; i += 1) subscriptions.push(await createSubscription(deps, caller, body));
    // The subscription is deleted; its unit is not given back (the worker died).
    expect(await deps.store.rules.delete(caller.id, subscriptions[0]!.id)).toBe(true);
    await expect(createSubscription(deps, caller, body)).rejects.toMatchObject({ code: 'plan_limit' });
    now += UNSTORED_UNIT_MS;
    await createSubscription(deps, caller, body);
    expect((await deps.store.allowances.usage(caller.id)).subscriptions).toBe(8);
    await deleteEndpoint(deps.store, caller, endpoint.id);
    expect(await deps.store.allowances.usage(caller.id)).toEqual({ endpoints: 0, subscriptions: 0, addresses: 0 });
  });
});
