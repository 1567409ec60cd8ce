/** Route group `webhooks`: the event-type catalogue, plan limits and endpoint management. */
import { EVENT_TYPES, publicDeclaration } from '../core/webhooks/catalog.ts';
import {
  createEndpoint, deleteEndpoint, enableEndpoint, endpointView, getEndpoint, limitsView, rotateSecret, type Caller,
} from '../core/webhooks/endpoints.ts';
import { resolveAll } from '../adapters/dns-resolver.ts';
import { config } from '../shared/config.ts';
import { clock, webhookStore } from '../shared/deps.ts';
import { httpRouteGroup, ok, type RequestContext } from '../shared/http.ts';

const catalogue = EVENT_TYPES.map(publicDeclaration);
const caller = (ctx: RequestContext): Caller => ctx.account!;
const id = (input: { params: Record<string, unknown> }) => String(input.params.id);

export const handler = httpRouteGroup('webhooks', {
  listWebhookEventTypes: async () => ok(catalogue),
  getWebhookLimits: async (_input, ctx) => ok(await limitsView(webhookStore(), caller(ctx), clock.now())),
  listWebhookEndpoints: async (_input, ctx) => ok((await webhookStore().listEndpoints(caller(ctx).id)).map(endpointView)),
  createWebhookEndpoint: async (input, ctx) => {
    const deps = { store: webhookStore(), clock, resolve: resolveAll, allowHosts: config().WEBHOOK_ALLOWED_TARGETS };
    const created = await createEndpoint(deps, caller(ctx), input.body as { url: string; description?: string });
    return ok(created, { status: 201, siblings: { note: 'The secret is shown once. Store it now; list and read routes never return it.' } });
  },
  getWebhookEndpoint: async (input, ctx) => ok(endpointView(await getEndpoint(webhookStore(), caller(ctx), id(input)))),
  deleteWebhookEndpoint: async (input, ctx) => {
    await deleteEndpoint(webhookStore(), caller(ctx), id(input));
    return ok({ deleted: true, id: id(input) });
  },
  enableWebhookEndpoint: async (input, ctx) => ok(await enableEndpoint(webhookStore(), caller(ctx), id(input))),
  rotateWebhookSecret: async (input, ctx) => ok(await rotateSecret({ store: webhookStore(), clock }, caller(ctx), id(input)), {
    siblings: { note: 'The new secret is shown once. The previous secret stays valid for 24 hours.' },
  }),
});
