/** Route group `webhooks`: the event-type catalogue, plan limits, endpoints, subscriptions and watched addresses. */
import { publicDeclaration } from '../core/webhooks/catalog.ts';
import { EVENT_TYPES } from '../core/events/registry.ts';
import { createEndpoint, deleteEndpoint, enableEndpoint, endpointView, getEndpoint, limitsView, rotateSecret } from '../core/webhooks/endpoints.ts';
import type { Caller } from '../core/accounts.ts';
import {
  addressLimit,
  addressView,
  createSubscription,
  deleteSubscription,
  getSubscription,
  patchSubscription,
  resumeAll,
  resumeSubscription,
  subscriptionView,
  unwatchAddress,
  watchAddress,
} from '../core/webhooks/subscriptions.ts';
import { clock, queueSender, webhookDestinations, webhookStores } from '../shared/deps.ts';
import { listDeliveries, queueTestDelivery, redeliver } from '../core/webhooks/manual-deliveries.ts';
import { httpRouteGroup, ok, type RequestContext } from '../shared/http.ts';
import { WEBHOOK_OPERATIONS } from '../routes/webhooks.ts';

const catalogue = EVENT_TYPES.map(publicDeclaration);
const ROTATED_NOTE = 'The new secret is shown once. The previous secret stays valid for 24 hours.';
const REDELIVERED_NOTE = 'The delivery record is reset in place and attempted again with the same event id.';
const deliveryDeps = () => ({ store: webhookStores(), queues: queueSender(), clock });
const rulesDeps = () => ({ store: webhookStores(), clock });
const caller = (ctx: RequestContext): Caller => ctx.account!;
const id = (input: { params: { id: string } }) => input.params.id;
/** A DELETE by id, answered with what it deleted. */
const deleting =
  (remove: (store: ReturnType<typeof webhookStores>, caller: Caller, id: string) => Promise<unknown>) =>
  async (input: { params: { id: string } }, ctx: RequestContext) => {
    await remove(webhookStores(), caller(ctx), id(input));
    return ok({ deleted: true as const, id: id(input) });
  };

export const handler = httpRouteGroup(WEBHOOK_OPERATIONS, {
  listWebhookEventTypes: async () => ok(catalogue),
  getWebhookLimits: async (_input, ctx) => ok(await limitsView(webhookStores(), caller(ctx), clock.now())),
  listWebhookEndpoints: async (_input, ctx) => ok((await webhookStores().endpoints.list(caller(ctx).id)).map(endpointView)),
  createWebhookEndpoint: async (input, ctx) => {
    const deps = { store: webhookStores(), clock, ...webhookDestinations() };
    const created = await createEndpoint(deps, caller(ctx), input.body);
    return ok(created, { status: 201, siblings: { note: 'The secret is shown once. Store it now; list and read routes never return it.' } });
  },
  getWebhookEndpoint: async (input, ctx) => ok(endpointView(await getEndpoint(webhookStores(), caller(ctx), id(input)))),
  deleteWebhookEndpoint: deleting(deleteEndpoint),
  enableWebhookEndpoint: async (input, ctx) => ok(await enableEndpoint(webhookStores(), caller(ctx), id(input))),
  rotateWebhookSecret: async (input, ctx) => ok(await rotateSecret(rulesDeps(), caller(ctx), id(input)), { siblings: { note: ROTATED_NOTE } }),

  testWebhookEndpoint: async (input, ctx) => ok(await queueTestDelivery(deliveryDeps(), caller(ctx), id(input)), { status: 202 }),
  listWebhookDeliveries: async (input, ctx) => ok(await listDeliveries(webhookStores(), caller(ctx), id(input), input.query.limit)),
  redeliverWebhookDelivery: async (input, ctx) =>
    ok(await redeliver(deliveryDeps(), caller(ctx), id(input)), { status: 202, siblings: { note: REDELIVERED_NOTE } }),

  listWebhookSubscriptions: async (_input, ctx) => ok((await webhookStores().rules.list(caller(ctx).id)).map(subscriptionView)),
  createWebhookSubscription: async (input, ctx) => ok(await createSubscription(rulesDeps(), caller(ctx), input.body), { status: 201 }),
  getWebhookSubscription: async (input, ctx) => ok(subscriptionView(await getSubscription(webhookStores(), caller(ctx), id(input)))),
  patchWebhookSubscription: async (input, ctx) => ok(await patchSubscription(rulesDeps(), caller(ctx), id(input), input.body)),
  deleteWebhookSubscription: deleting(deleteSubscription),
  resumeWebhookSubscription: async (input, ctx) => {
    const { subscription, ...siblings } = await resumeSubscription(rulesDeps(), caller(ctx), id(input));
    return ok(subscription, { siblings });
  },
  resumeAllWebhookSubscriptions: async (_input, ctx) => {
    const { subscriptions, ...siblings } = await resumeAll(rulesDeps(), caller(ctx));
    return ok(subscriptions, { siblings });
  },

  listWatchedAddresses: async (_input, ctx) =>
    ok((await webhookStores().rules.listAddresses(caller(ctx).id)).map(addressView), { siblings: { limit: addressLimit(caller(ctx)) } }),
  watchAddress: async (input, ctx) =>
    ok(await watchAddress(rulesDeps(), caller(ctx), input.body), { status: 201, siblings: { limit: addressLimit(caller(ctx)) } }),
  unwatchAddress: deleting(unwatchAddress),
});
