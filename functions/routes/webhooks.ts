/** Webhook management, and its previews (estimate, dry-run, replay), which run DuckDB in a group of their own. */
import * as v from 'valibot';
import {
  CreateEndpointBody,
  CreateSubscriptionBody,
  CreatedEndpointSchema,
  DeletedSchema,
  DeliveryLogQuery,
  DeliverySchema,
  DryRunBody,
  DryRunSchema,
  EndpointSchema,
  EstimateBody,
  EstimateSchema,
  EventTypeSchema,
  LimitSibling,
  LimitsSchema,
  NoteSibling,
  PatchSubscriptionBody,
  ResumeAllSiblings,
  ResumeSiblings,
  QueuedDeliverySchema,
  RedeliverySchema,
  RotatedSecretSchema,
  SubscriptionSchema,
  WatchAddressBody,
  WatchedAddressSchema,
  idPath,
} from '#schemas/webhooks.ts';
import { ReplayBody, ReplayJobSchema, ReplayPageQuery, ReplayPageSchema, replayIdPath } from '#schemas/replays.ts';
import { type HttpMethod, operationGroup, page } from './operation.ts';

const webhooks = (method: HttpMethod, path: string) => ({ method, path: `/v1/webhooks${path}`, tags: ['Webhooks'] });

/** Webhook management (SPEC "Webhook routes"; paths not shown there follow the real service). */
export const WEBHOOK_OPERATIONS = operationGroup('webhooks', {
  listWebhookEventTypes: {
    ...webhooks('GET', '/event-types'),
    summary: 'The live catalogue of event declarations',
    response: page(v.array(EventTypeSchema), 'Every declared event type'),
  },
  getWebhookLimits: {
    ...webhooks('GET', '/limits'),
    summary: "Allowances and usage of the caller's plan",
    response: page(LimitsSchema, 'Plan, delivery inclusion, used versus limit'),
  },
  listWebhookEndpoints: {
    ...webhooks('GET', '/endpoints'),
    summary: "The caller's endpoints, oldest first (no secrets)",
    response: page(v.array(EndpointSchema), 'Endpoints'),
  },
  createWebhookEndpoint: {
    ...webhooks('POST', '/endpoints'),
    summary: 'Create an endpoint; its secret is shown once',
    body: CreateEndpointBody,
    response: page(CreatedEndpointSchema, 'The endpoint with its secret', 201, NoteSibling),
  },
  getWebhookEndpoint: {
    ...webhooks('GET', '/endpoints/{id}'),
    summary: 'One endpoint (no secret)',
    pathParams: idPath,
    response: page(EndpointSchema, 'The endpoint'),
  },
  deleteWebhookEndpoint: {
    ...webhooks('DELETE', '/endpoints/{id}'),
    summary: 'Delete an endpoint',
    pathParams: idPath,
    response: page(DeletedSchema, 'Deleted'),
  },
  enableWebhookEndpoint: {
    ...webhooks('POST', '/endpoints/{id}/enable'),
    summary: 'Re-enable a disabled endpoint',
    pathParams: idPath,
    response: page(EndpointSchema, 'The endpoint, active'),
  },
  rotateWebhookSecret: {
    ...webhooks('POST', '/endpoints/{id}/rotate'),
    summary: 'A new secret, shown once; the previous one stays valid 24 hours',
    pathParams: idPath,
    response: page(RotatedSecretSchema, 'The new secret', 200, NoteSibling),
  },
  testWebhookEndpoint: {
    ...webhooks('POST', '/endpoints/{id}/test'),
    summary: 'Queue a signed webhook.test delivery',
    pathParams: idPath,
    response: page(QueuedDeliverySchema, 'The queued delivery', 202),
  },
  listWebhookDeliveries: {
    ...webhooks('GET', '/endpoints/{id}/deliveries'),
    summary: "The endpoint's delivery log, newest first (30 days)",
    pathParams: idPath,
    query: DeliveryLogQuery,
    response: page(v.array(DeliverySchema), 'Deliveries'),
  },
  redeliverWebhookDelivery: {
    ...webhooks('POST', '/deliveries/{id}/redeliver'),
    summary: 'A new attempt of a past delivery, keeping its event id',
    pathParams: idPath,
    response: page(RedeliverySchema, 'The delivery, pending again', 202, NoteSibling),
  },
  listWebhookSubscriptions: {
    ...webhooks('GET', '/subscriptions'),
    summary: "The caller's subscriptions across endpoints",
    response: page(v.array(SubscriptionSchema), 'Subscriptions'),
  },
  createWebhookSubscription: {
    ...webhooks('POST', '/subscriptions'),
    summary: 'Create a rule; echoes the stored configuration with defaults',
    body: CreateSubscriptionBody,
    response: page(SubscriptionSchema, 'The subscription', 201),
  },
  getWebhookSubscription: {
    ...webhooks('GET', '/subscriptions/{id}'),
    summary: 'One subscription',
    pathParams: idPath,
    response: page(SubscriptionSchema, 'The subscription'),
  },
  patchWebhookSubscription: {
    ...webhooks('PATCH', '/subscriptions/{id}'),
    summary: 'Replace the configuration, or switch enabled',
    pathParams: idPath,
    body: PatchSubscriptionBody,
    response: page(SubscriptionSchema, 'The subscription'),
  },
  deleteWebhookSubscription: {
    ...webhooks('DELETE', '/subscriptions/{id}'),
    summary: 'Remove a rule',
    pathParams: idPath,
    response: page(DeletedSchema, 'Deleted'),
  },
  resumeWebhookSubscription: {
    ...webhooks('POST', '/subscriptions/{id}/resume'),
    summary: 'Resume one paused rule (replays nothing)',
    pathParams: idPath,
    response: page(SubscriptionSchema, 'The subscription; sibling gap', 200, ResumeSiblings),
  },
  resumeAllWebhookSubscriptions: {
    ...webhooks('POST', '/subscriptions/resume'),
    summary: 'Resume every paused rule (replays nothing)',
    response: page(v.array(SubscriptionSchema), 'Resumed subscriptions; siblings resumed_count and gap', 200, ResumeAllSiblings),
  },
  listWatchedAddresses: {
    ...webhooks('GET', '/addresses'),
    summary: "Watched addresses; sibling limit is the plan's cap",
    response: page(v.array(WatchedAddressSchema), 'Watched addresses', 200, LimitSibling),
  },
  watchAddress: {
    ...webhooks('POST', '/addresses'),
    summary: 'Watch an address (idempotent); sibling limit',
    body: WatchAddressBody,
    response: page(WatchedAddressSchema, 'The watched address', 201, LimitSibling),
  },
  unwatchAddress: {
    ...webhooks('DELETE', '/addresses/{id}'),
    summary: 'Stop watching an address',
    pathParams: idPath,
    response: page(DeletedSchema, 'Deleted'),
  },
});

/** Estimate and dry-run replay the archive, so they run in their own group (with DuckDB). */
export const PREVIEW_OPERATIONS = operationGroup('webhook-preview', {
  estimateWebhookSubscription: {
    ...webhooks('POST', '/subscriptions/estimate'),
    summary: "How often a rule would fire: per day over lookback_days, a threshold ladder and the metric's distribution (6 calls a minute with dry-run)",
    body: EstimateBody,
    response: page(EstimateSchema, 'The estimate'),
  },
  dryRunWebhookSubscription: {
    ...webhooks('POST', '/subscriptions/dry-run'),
    summary: 'What a rule would have delivered over the last lookback_s, newest first (6 calls a minute with estimate)',
    body: DryRunBody,
    response: page(DryRunSchema, 'The occurrences'),
  },
  replayWebhookSubscription: {
    ...webhooks('POST', '/subscriptions/replay'),
    summary:
      'Replay a rule (a subscription, or an event type and config) over any past window as a job: its occurrences to page through, optionally delivered as late replay events; billed by archive rows read',
    body: ReplayBody,
    response: page(ReplayJobSchema, 'The job, running', 202),
  },
  getWebhookReplay: {
    ...webhooks('GET', '/subscriptions/replays/{id}'),
    summary: 'A replay job: state, progress, and a page of its occurrences oldest first',
    pathParams: replayIdPath,
    query: ReplayPageQuery,
    response: page(ReplayPageSchema, 'The job and a page of its occurrences'),
  },
  cancelWebhookReplay: {
    ...webhooks('DELETE', '/subscriptions/replays/{id}'),
    summary:
      'Cancel a queued or running replay job (409 once it has finished): nothing more is delivered; the days already replayed stay readable and are billed',
    pathParams: replayIdPath,
    response: page(ReplayJobSchema, 'The job, canceled'),
  },
});
