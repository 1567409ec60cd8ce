/** Route group `webhooks`: the event-type catalogue, plan limits, endpoints, subscriptions and watched addresses. */
import { publicDeclaration } from '../core/webhooks/catalog.ts';
import { EVENT_TYPES } from '../core/events/registry.ts';
import {
  createEndpoint, deleteEndpoint, enableEndpoint, endpointView, getEndpoint, limitsView, rotateSecret,
} from '../core/webhooks/endpoints.ts';
import type { Caller } from '../core/accounts.ts';
import {
  addressLimit, addressView, createSubscription, deleteSubscription, getSubscription, patchSubscription, resumeAll, resumeSubscription,
  subscriptionView, unwatchAddress, watchAddress,
} from '../core/webhooks/subscriptions.ts';
import { clock, queueSender, webhookDestinations, webhookStores } from '../shared/deps.ts';
import { listDeliveries, queueTestDelivery, redeliver } from '../core/webhooks/deliveries.ts';
import { httpRouteGroup, ok, type RequestContext } from '../shared/http.ts';
import { WEBHOOK_OPERATIONS } from '../routes/webhooks.ts';

const catalogue = EVENT_TYPES.map(publicDeclaration);
const deliveryDeps = () => ({ store: webhookStores(), queues: queueSender(), clock });
const caller = (ctx: RequestContext): Caller => ctx.account!;
const id = (input: { params: { id: string } }) => input.params.id;

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
  deleteWebhookEndpoint: async (input, ctx) => {
    await deleteEndpoint(webhookStores(), caller(ctx), id(input));
    return ok({ deleted: true, id: id(input) });
  },
  enableWebhookEndpoint: async (input, ctx) => ok(await enableEndpoint(webhookStores(), caller(ctx), id(input))),
  rotateWebhookSecret: async (input, ctx) => ok(await rotateSecret({ store: webhookStores(), clock }, caller(ctx), id(input)), {
    siblings: { note: 'The new secret is shown once. The previous secret stays valid for 24 hours.' },
  }),

  testWebhookEndpoint: async (input, ctx) => ok(await queueTestDelivery(deliveryDeps(), caller(ctx), id(input)), { status: 202 }),
  listWebhookDeliveries: async (input, ctx) => ok(await listDeliveries(webhookStores(), caller(ctx), id(input), input.query.limit)),
  redeliverWebhookDelivery: async (input, ctx) => ok(await redeliver(deliveryDeps(), caller(ctx), id(input)), {
    status: 202, siblings: { note: 'The delivery record is reset in place and attempted again with the same event id.' },
  }),

  listWebhookSubscriptions: async (_input, ctx) => ok((await webhookStores().rules.list(caller(ctx).id)).map(subscriptionView)),
  createWebhookSubscription: async (input, ctx) =>
    ok(await createSubscription({ store: webhookStores(), clock }, caller(ctx), input.body), { status: 201 }),
  getWebhookSubscription: async (input, ctx) => ok(subscriptionView(await getSubscription(webhookStores(), caller(ctx), id(input)))),
  patchWebhookSubscription: async (input, ctx) =>
    ok(await patchSubscription({ store: webhookStores(), clock }, caller(ctx), id(input), input.body)),
  deleteWebhookSubscription: async (input, ctx) => {
    await deleteSubscription(webhookStores(), caller(ctx), id(input));
    return ok({ deleted: true, id: id(input) });
  },
  resumeWebhookSubscription: async (input, ctx) => {
    const { subscription, ...siblings } = await resumeSubscription({ store: webhookStores(), clock }, caller(ctx), id(input));
    return ok(subscription, { siblings });
  },
  resumeAllWebhookSubscriptions: async (_input, ctx) => {
    const { subscriptions, ...siblings } = await resumeAll({ store: webhookStores(), clock }, caller(ctx));
    return ok(subscriptions, { siblings });
  },

  listWatchedAddresses: async (_input, ctx) =>
    ok((await webhookStores().rules.listAddresses(caller(ctx).id)).map(addressView), { siblings: { limit: addressLimit(caller(ctx)) } }),
  watchAddress: async (input, ctx) =>
    ok(await watchAddress({ store: webhookStores(), clock }, caller(ctx), input.body), { status: 201, siblings: { limit: addressLimit(caller(ctx)) } }),
  unwatchAddress: async (input, ctx) => {
    await unwatchAddress(webhookStores(), caller(ctx), id(input));
    return ok({ deleted: true, id: id(input) });
  },
});
