/**
 * Subscriptions (rules) and watched addresses. Creation checks the plan, the event type (declared
 * and live), the caller's endpoint and the allowance; the configuration is validated and stored
 * normalized and echoed with its defaults. PATCH replaces the configuration wholesale or flips
 * `enabled`, never touching the engine's pause; resume clears a pause and replays nothing.
 */
import { pauseMessage } from './pauses.ts';
import { createHash, randomUUID } from 'node:crypto';
import { AppError } from '../errors.ts';
import { PLANS } from '../plans.ts';
import type { Clock } from '#ports/clock.ts';
import type { SubscriptionRecord, WatchedAddressRecord, WebhookStores } from '#ports/webhooks.ts';
import { EVENT_TYPE_BY_NAME } from './catalog.ts';
import { EVENT_TYPES } from '../events/registry.ts';
import { normalizeConfig } from './filters.ts';
import { getEndpoint, requireDelivery, reserveAllowance } from './endpoints.ts';
import type { Caller } from '../accounts.ts';

export interface SubscriptionDeps {
  store: Pick<WebhookStores, 'rules' | 'allowances' | 'endpoints'>;
  clock: Clock;
}

const BODY_KEYS = ['endpoint_id', 'event_type', 'filters', 'config'];
/** Addresses the venue itself moves funds with; watching them would only echo system traffic. */
export const SYSTEM_ADDRESSES: ReadonlySet<string> = new Set([
  '0x2df1c51e09aecf9cacb7bc98cb1742757f163df7', // the perpx bridge
  '0x2222222222222222222222222222222222222222', // the native token's system address
  '0x0000000000000000000000000000000000000000',
]);
export const LABEL_MAX = 64;

export function subscriptionView(s: SubscriptionRecord) {
  return {
    id: s.id,
    endpoint_id: s.endpointId,
    event_type: s.eventType,
    filters: s.filters,
    enabled: s.enabled,
    status: s.pause ? ('auto_paused' as const) : ('active' as const),
    ...(s.pause && { pause_message: pauseMessage(s.pause.reason) }),
    paused_at: s.pause?.pausedAt ?? null,
    pause_reason: s.pause?.reason ?? null,
    suppressed_count: s.pause?.suppressedCount ?? null,
    suppressed_first_at: s.pause?.suppressedFirstAt ?? null,
    suppressed_last_at: s.pause?.suppressedLastAt ?? null,
    last_paused_at: s.lastPause?.pausedAt ?? null,
    last_resumed_at: s.lastPause?.resumedAt ?? null,
    last_pause_reason: s.lastPause?.reason ?? null,
    last_suppressed_count: s.lastPause?.suppressedCount ?? null,
    trigger_id: s.triggerId,
    created_at: s.createdAt,
  };
}

/** Same event type and params, same trigger (and so the same event ids); other params, another. */
export function triggerIdOf(eventType: string, params: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([eventType, params]))
    .digest('hex')
    .slice(0, 24);
}

function configOf(body: Record<string, unknown>): unknown {
  if (body.filters !== undefined && body.config !== undefined) {
    throw new AppError('invalid_parameter', 'Send filters or its alias config, not both.', { param: 'config' });
  }
  return body.filters ?? body.config;
}

function checkBodyKeys(body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(body)) {
    if (key === 'conditions' || key === 'params') {
      throw new AppError('invalid_parameter', `${key} belongs inside filters (or config), not at the top level of the body.`, { param: key });
    }
    if (!allowed.includes(key))
      throw new AppError('invalid_parameter', `Unknown member ${key}; the body takes: ${allowed.join(', ')}.`, { param: key, validValues: allowed });
  }
}

function eventTypeOf(name: unknown) {
  const decl = typeof name === 'string' ? EVENT_TYPE_BY_NAME.get(name) : undefined;
  if (!decl)
    throw new AppError('invalid_parameter', 'Unknown event_type; GET /v1/webhooks/event-types lists them.', {
      param: 'event_type',
      validValues: EVENT_TYPES.map((d) => d.type),
    });
  if (!decl.live) throw new AppError('invalid_parameter', `${decl.type} is not yet available; it is declared but not live.`, { param: 'event_type' });
  return decl;
}

async function watchedSet(store: Pick<WebhookStores, 'rules'>, caller: Caller): Promise<Set<string>> {
  return new Set((await store.rules.listAddresses(caller.id)).map((a) => a.address));
}

const noSuchEndpoint = () => new AppError('invalid_parameter', 'endpoint_id names no endpoint of yours.', { param: 'endpoint_id' });

/**
 * Creates a rule on one of the caller's endpoints.
 *
 * The endpoint may be deleted while this runs (deleteEndpoint: delete the endpoint D, then list the
 * account's rules L and delete the endpoint's). Checking the endpoint first cannot prevent a rule
 * written after L, so the rule is written first (W) and the endpoint read again after (R); every
 * read is strongly consistent, and there are no transactions to lean on (dynalite has none). For
 * any interleaving, either
 *   - R sees no endpoint: D took effect before R, and this create deletes its own rule; or
 *   - R sees the endpoint: D had not completed when R began, so L, which starts after D completes,
 *     starts after W completed and lists the rule, and the deleter deletes it.
 * Either way the rule does not outlive the endpoint. Both may delete it: the allowance goes back
 * only for the delete that removed the item, so it counts exactly the rules that remain. A create
 * that loses the race answers as if the endpoint had been gone when it began.
 */
export async function createSubscription(deps: SubscriptionDeps, caller: Caller, body: Record<string, unknown>) {
  requireDelivery(caller.plan);
  checkBodyKeys(body, BODY_KEYS);
  const decl = eventTypeOf(body.event_type);
  if (typeof body.endpoint_id !== 'string') throw new AppError('invalid_parameter', 'endpoint_id is required.', { param: 'endpoint_id' });
  // The common refusal, before an allowance is taken; not what makes the race safe (see above).
  await getEndpoint(deps.store, caller, body.endpoint_id).catch(() => {
    throw noSuchEndpoint();
  });
  const filters = normalizeConfig(decl, configOf(body), await watchedSet(deps.store, caller));
  const id = randomUUID();
  await reserveAllowance(deps, caller, 'subscriptions', id);
  const subscription: SubscriptionRecord = {
    id,
    accountId: caller.id,
    endpointId: body.endpoint_id,
    eventType: decl.type,
    filters: { ...filters },
    enabled: true,
    pause: null,
    lastPause: null,
    triggerId: triggerIdOf(decl.type, filters.params),
    createdAt: new Date(deps.clock.now()).toISOString(),
  };
  try {
    await deps.store.rules.put(subscription);
  } catch (error) {
    await deps.store.allowances.release(caller.id, 'subscriptions', subscription.id);
    throw error;
  }
  if (!(await deps.store.endpoints.get(caller.id, subscription.endpointId))) {
    if (await deps.store.rules.delete(caller.id, subscription.id)) await deps.store.allowances.release(caller.id, 'subscriptions', subscription.id);
    throw noSuchEndpoint();
  }
  return subscriptionView(subscription);
}

export async function getSubscription(store: Pick<WebhookStores, 'rules'>, caller: Caller, id: string): Promise<SubscriptionRecord> {
  const subscription = await store.rules.get(caller.id, id);
  if (!subscription) throw new AppError('not_found', 'No such subscription.', { param: 'id' });
  return subscription;
}

export async function patchSubscription(deps: SubscriptionDeps, caller: Caller, id: string, body: Record<string, unknown>) {
  checkBodyKeys(body, ['filters', 'config', 'enabled']);
  const config = configOf(body);
  if (config === undefined && body.enabled === undefined)
    throw new AppError('invalid_parameter', 'Send filters (or config), enabled, or both.', { param: 'filters' });
  if (body.enabled !== undefined && typeof body.enabled !== 'boolean')
    throw new AppError('invalid_parameter', 'enabled is true or false.', { param: 'enabled' });
  const current = await getSubscription(deps.store, caller, id);
  const next = { ...current };
  if (config !== undefined) {
    // A new configuration replaces the old one entirely; omitted params return to their defaults.
    const filters = normalizeConfig(eventTypeOf(current.eventType), config, await watchedSet(deps.store, caller));
    next.filters = { ...filters };
    next.triggerId = triggerIdOf(current.eventType, filters.params);
  }
  if (typeof body.enabled === 'boolean') next.enabled = body.enabled;
  // Only onto the rule still there: an edit racing its endpoint's delete must not bring the rule back.
  if (!(await deps.store.rules.replace(next))) throw new AppError('not_found', 'No such subscription.', { param: 'id' });
  return subscriptionView(next);
}

export async function deleteSubscription(store: Pick<WebhookStores, 'rules' | 'allowances'>, caller: Caller, id: string): Promise<void> {
  if (!(await store.rules.delete(caller.id, id))) throw new AppError('not_found', 'No such subscription.', { param: 'id' });
  await store.allowances.release(caller.id, 'subscriptions', id);
}

/** Resuming while the day's budget is still spent would only pause the rule again at its next match. */
async function refuseAtDailyCap(deps: SubscriptionDeps, caller: Caller): Promise<void> {
  const limit = PLANS[caller.plan].webhooks.deliveriesPerDay;
  if (limit === null) return;
  const now = deps.clock.now();
  if ((await deps.store.allowances.deliveriesCounted(caller.id, new Date(now).toISOString().slice(0, 10))) >= limit) {
    const resetsAt = new Date(now - (now % 86_400_000) + 86_400_000).toISOString();
    throw new AppError('conflict', `Still at today's limit of ${limit} deliveries; resume after it resets at ${resetsAt}.`, {
      details: { limit, resets_at: resetsAt },
    });
  }
}

/** Clears a pause and its counters; replays nothing; leaves `enabled` alone. */
export async function resumeSubscription(deps: SubscriptionDeps, caller: Caller, id: string) {
  const current = await getSubscription(deps.store, caller, id);
  if (!current.pause) return { subscription: subscriptionView(current), gap: null, note: 'The subscription was not paused.' };
  await refuseAtDailyCap(deps, caller);
  const now = new Date(deps.clock.now()).toISOString();
  const next = (await deps.store.rules.clearPause(caller.id, id, now)) ?? current;
  return { subscription: subscriptionView(next), gap: gapOf(current, now), note: 'Resumed; nothing missed while paused is replayed.' };
}

export async function resumeAll(deps: SubscriptionDeps, caller: Caller) {
  const now = new Date(deps.clock.now()).toISOString();
  const paused = (await deps.store.rules.list(caller.id)).filter((s) => s.pause);
  if (paused.length > 0) await refuseAtDailyCap(deps, caller);
  const resumed: SubscriptionRecord[] = [];
  for (const s of paused) resumed.push((await deps.store.rules.clearPause(caller.id, s.id, now)) ?? s);
  return {
    subscriptions: resumed.map(subscriptionView),
    resumed_count: paused.length,
    gap:
      paused.length === 0
        ? null
        : {
            paused_at: paused.map((s) => s.pause!.pausedAt).sort()[0],
            resumed_at: now,
            reasons: [...new Set(paused.map((s) => s.pause!.reason))],
            suppressed_count: paused.reduce((n, s) => n + s.pause!.suppressedCount, 0),
          },
    ...(paused.length === 0 && { note: 'Nothing was paused.' }),
  };
}

function gapOf(s: SubscriptionRecord, now: string) {
  const p = s.pause!;
  return {
    paused_at: p.pausedAt,
    resumed_at: now,
    replay_window: { start: p.pausedAt, end: now },
    reason: p.reason,
    suppressed_count: p.suppressedCount,
    suppressed_first_at: p.suppressedFirstAt,
    suppressed_last_at: p.suppressedLastAt,
    note: 'Missed occurrences are not replayed; fetch the window from the REST routes.',
  };
}

export function addressView(a: WatchedAddressRecord) {
  return { id: a.address, address: a.address, label: a.label, created_at: a.createdAt };
}

export async function watchAddress(deps: SubscriptionDeps, caller: Caller, body: { address: string; label?: string }) {
  requireDelivery(caller.plan);
  const address = body.address.replace(/\s+/g, '').toLowerCase();
  if (!/^0x[0-9a-f]{40}$/.test(address)) throw new AppError('invalid_parameter', 'address must be 0x followed by 40 hex characters.', { param: 'address' });
  if (SYSTEM_ADDRESSES.has(address)) throw new AppError('invalid_parameter', 'Bridge and system addresses cannot be watched.', { param: 'address' });
  const row: WatchedAddressRecord = { address, label: (body.label ?? '').slice(0, LABEL_MAX), createdAt: new Date(deps.clock.now()).toISOString() };
  // The row first (a conditional put), the allowance only for the one add that created it: re-adds,
  // however many at once, neither spend nor are refused. An add the plan has no room for is undone.
  const { row: stored, created } = await deps.store.rules.addAddress(caller.id, row);
  if (!created) return addressView(stored);
  try {
    await reserveAllowance(deps, caller, 'addresses', address);
  } catch (error) {
    await deps.store.rules.deleteAddress(caller.id, address);
    throw error;
  }
  return addressView(stored);
}

export async function unwatchAddress(store: Pick<WebhookStores, 'rules' | 'allowances'>, caller: Caller, id: string): Promise<void> {
  if (!(await store.rules.deleteAddress(caller.id, id.toLowerCase()))) throw new AppError('not_found', 'No such watched address.', { param: 'id' });
  await store.allowances.release(caller.id, 'addresses', id.toLowerCase());
}

export const addressLimit = (caller: Caller) => PLANS[caller.plan].webhooks.watchedAddresses;
