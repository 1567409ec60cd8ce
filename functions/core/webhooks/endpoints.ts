/**
 * Webhook endpoints: creation (HTTPS only, destination checked against SSRF, within the plan's
 * allowance), reads that never show a secret, rotation (the previous secret stays valid 24 hours;
 * rotating again replaces it), enabling, deletion. Pure apart from the ports it is given.
 */
import { pauseMessage } from './pauses.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../errors.ts';
import { PLANS, type PlanName } from '../plans.ts';
import type { Caller } from '../accounts.ts';
import type { Clock } from '#ports/clock.ts';
import type { Countable, EndpointRecord, WebhookStores } from '#ports/webhooks.ts';
import { validateDestination } from './ssrf.ts';

export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export interface EndpointDeps {
  store: WebhookStores;
  clock: Clock;
  /** Resolves a host name to every address (A and AAAA). */
  resolve: (host: string) => Promise<string[]>;
  /** Local cloud only (WEBHOOK_ALLOWED_TARGETS): hosts exempt from the address checks. */
  allowHosts?: readonly string[];
  /** Local cloud only: how to allow a refused host, appended to the refusal. */
  allowHint?: string;
}

export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('hex')}`;
}

/** What list and read routes show of an endpoint: never a secret. */
export function endpointView(e: EndpointRecord) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    status: e.status,
    consecutive_failures: e.consecutiveFailures,
    failing_since: e.firstFailureAt,
    created_at: e.createdAt,
  };
}

export function requireDelivery(plan: PlanName): void {
  if (!PLANS[plan].webhooks.deliveryIncluded) {
    throw new AppError('plan_no_webhooks', `Webhook delivery is not included on the ${plan} plan; it starts on the Build plan.`, {
      details: { plan, included_from: 'build' },
    });
  }
}

const ALLOWANCE: Record<Countable, { key: 'endpoints' | 'subscriptions' | 'watchedAddresses'; one: string; many: string }> = {
  endpoints: { key: 'endpoints', one: 'endpoint', many: 'endpoints' },
  subscriptions: { key: 'subscriptions', one: 'subscription', many: 'subscriptions' },
  addresses: { key: 'watchedAddresses', one: 'watched address', many: 'watched addresses' },
};

/**
 * A unit taken this long ago whose item is not stored was taken by a worker that died before storing
 * it (a create stores its item within its request's time limit, far below this).
 */
export const UNSTORED_UNIT_MS = 10 * 60_000;

type AllowanceDeps = { store: Pick<WebhookStores, 'allowances' | 'endpoints' | 'rules'>; clock: Clock };

/** Whether the item a unit was taken for is stored. */
async function isStored(store: AllowanceDeps['store'], accountId: string, what: Countable, id: string): Promise<boolean> {
  if (what === 'endpoints') return (await store.endpoints.get(accountId, id)) !== undefined;
  if (what === 'subscriptions') return (await store.rules.get(accountId, id)) !== undefined;
  return (await store.rules.listAddresses(accountId)).some((row) => row.address === id);
}

/**
 * Takes item `id`'s unit of an allowance or refuses with 400 naming the limit. At the limit, units
 * long held by items never stored are given back first (their workers died between counting and
 * storing), so a death does not keep a unit forever.
 */
export async function reserveAllowance(deps: AllowanceDeps, caller: Caller, what: Countable, id: string): Promise<void> {
  const limit = PLANS[caller.plan].webhooks[ALLOWANCE[what].key];
  const reserve = () =>
    deps.store.allowances.reserve(caller.id, what, limit, id, deps.clock.now()).catch(async (error: unknown) => {
      // It may have landed: the unit is given back (if it was taken) before the request fails.
      await deps.store.allowances.release(caller.id, what, id).catch(() => undefined);
      throw error;
    });
  if (await reserve()) return;
  const now = deps.clock.now();
  let freed = 0;
  for (const unit of await deps.store.allowances.counted(caller.id, what)) {
    if (now - unit.at < UNSTORED_UNIT_MS || (await isStored(deps.store, caller.id, what, unit.id))) continue;
    await deps.store.allowances.release(caller.id, what, unit.id);
    freed += 1;
  }
  if (freed > 0 && (await reserve())) return;
  const { one, many } = ALLOWANCE[what];
  throw new AppError('plan_limit', `The ${caller.plan} plan allows ${limit} ${limit === 1 ? one : many}; delete one or upgrade.`, {
    details: { limit, plan: caller.plan },
  });
}

export async function createEndpoint(deps: EndpointDeps, caller: Caller, body: { url: string; description?: string }) {
  requireDelivery(caller.plan);
  const destination = await validateDestination(body.url, deps.resolve, { allowHosts: deps.allowHosts }).catch((cause: unknown) => {
    throw new AppError('upstream_unavailable', 'The URL host could not be resolved right now; retry shortly.', { cause, headers: { 'retry-after': '5' } });
  });
  if (!destination.ok) {
    // Only an address refusal (loopback, private, ...) can be lifted by the allow-list.
    const hint = deps.allowHint && /address/.test(destination.reason) ? ` ${deps.allowHint}` : '';
    throw new AppError('invalid_parameter', `Invalid url: ${destination.reason}.${hint}`, { param: 'url' });
  }
  const id = randomUUID();
  await reserveAllowance(deps, caller, 'endpoints', id);
  const endpoint: EndpointRecord = {
    id,
    accountId: caller.id,
    url: destination.url.href,
    description: body.description ?? '',
    status: 'active',
    secret: newSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    consecutiveFailures: 0,
    firstFailureAt: null,
    slowUntil: null,
    createdAt: new Date(deps.clock.now()).toISOString(),
  };
  try {
    await deps.store.endpoints.put(endpoint);
  } catch (error) {
    await deps.store.allowances.release(caller.id, 'endpoints', endpoint.id);
    throw error;
  }
  return { ...endpointView(endpoint), secret: endpoint.secret };
}

export async function getEndpoint(store: Pick<WebhookStores, 'endpoints'>, caller: Caller, id: string): Promise<EndpointRecord> {
  const endpoint = await store.endpoints.get(caller.id, id);
  if (!endpoint) throw new AppError('not_found', 'No such endpoint.', { param: 'id' });
  return endpoint;
}

export async function rotateSecret(deps: Pick<EndpointDeps, 'store' | 'clock'>, caller: Caller, id: string) {
  const endpoint = await getEndpoint(deps.store, caller, id);
  const previousSecretExpiresAt = new Date(deps.clock.now() + ROTATION_OVERLAP_MS).toISOString();
  // Only one previous secret is kept: a second rotation inside the window replaces it.
  const rotated: EndpointRecord = { ...endpoint, secret: newSecret(), previousSecret: endpoint.secret, previousSecretExpiresAt };
  // Only onto the endpoint still there: a rotation racing a delete must not bring the endpoint back.
  if (!(await deps.store.endpoints.replace(rotated))) throw new AppError('not_found', 'No such endpoint.', { param: 'id' });
  return { secret: rotated.secret, previous_secret_expires_at: previousSecretExpiresAt };
}

/** Makes the endpoint active with a fresh failure streak; what was missed while disabled is not replayed. */
export async function enableEndpoint(store: Pick<WebhookStores, 'endpoints'>, caller: Caller, id: string) {
  const endpoint = await getEndpoint(store, caller, id);
  const enabled: EndpointRecord = { ...endpoint, status: 'active', consecutiveFailures: 0, firstFailureAt: null };
  if (!(await store.endpoints.replace(enabled))) throw new AppError('not_found', 'No such endpoint.', { param: 'id' });
  return endpointView(enabled);
}

/**
 * Deletes an endpoint and the subscriptions that deliver to it, giving their allowances back.
 *
 * The endpoint goes first and its subscriptions are listed after: with createSubscription writing
 * its subscription before it looks at the endpoint again, every subscription of the endpoint is
 * removed, whatever the interleaving (the argument is at createSubscription). Reversed, a create
 * could write after the listing and still find the endpoint.
 */
export async function deleteEndpoint(store: WebhookStores, caller: Caller, id: string): Promise<void> {
  if (!(await store.endpoints.delete(caller.id, id))) throw new AppError('not_found', 'No such endpoint.', { param: 'id' });
  await store.allowances.release(caller.id, 'endpoints', id);
  // A consistent read of the partition, after the delete took effect.
  for (const subscription of await store.rules.list(caller.id)) {
    if (subscription.endpointId === id && (await store.rules.delete(caller.id, subscription.id)))
      await store.allowances.release(caller.id, 'subscriptions', subscription.id);
  }
}

/** GET /v1/webhooks/limits: the plan, whether delivery is included, and used versus limit. */
export async function limitsView(store: Pick<WebhookStores, 'allowances' | 'rules'>, caller: Caller, now: number) {
  const plan = PLANS[caller.plan].webhooks;
  const [used, deliveredToday, rules] = await Promise.all([
    store.allowances.usage(caller.id),
    store.allowances.deliveriesCounted(caller.id, new Date(now).toISOString().slice(0, 10)),
    store.rules.list(caller.id),
  ]);
  const pauses = rules.flatMap((r) => (r.pause ? [r.pause] : [])).sort((a, b) => a.pausedAt.localeCompare(b.pausedAt));
  const reasons = [...new Set(pauses.map((p) => p.reason))];
  const allowance = (n: number, limit: number | null) => ({ used: n, limit, remaining: limit === null ? null : Math.max(0, limit - n) });
  const tomorrow = new Date(now - (now % 86_400_000) + 86_400_000).toISOString();
  return {
    plan: caller.plan,
    included: plan.deliveryIncluded,
    preview_included: true,
    endpoints: allowance(used.endpoints, plan.endpoints),
    subscriptions: allowance(used.subscriptions, plan.subscriptions),
    watched_addresses: allowance(used.addresses, plan.watchedAddresses),
    // Counted at queue time; a retry is not counted again.
    deliveries_per_day: { ...allowance(deliveredToday, plan.deliveriesPerDay), unlimited: plan.deliveriesPerDay === null, resets_at: tomorrow },
    paused_subscriptions: {
      count: pauses.length,
      reasons,
      ...(pauses[0] && { earliest_paused_at: pauses[0].pausedAt, message: pauseMessage(pauses[0].reason) }),
    },
    ...(!plan.deliveryIncluded && { notice: 'Webhook delivery starts on the Build plan; estimate and dry-run work on every plan.' }),
  };
}
