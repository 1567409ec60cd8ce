/** Bodies and response shapes of the webhook management routes. */
import * as v from 'valibot';
import { integerParam, stringParam } from './params.ts';
import { DELIVERY_STATES, ENDPOINT_STATUSES } from './stored.ts';

export const idPath = { id: stringParam({ description: 'Object id (UUID)', maxLength: 64, required: true }) };

export const CreateEndpointBody = v.strictObject({
  url: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(2048, 'must be at most 2048 characters')),
  description: v.optional(v.pipe(v.string('must be a string'), v.maxLength(256, 'must be at most 256 characters')), ''),
});

export const EndpointSchema = v.object({
  id: v.string(),
  url: v.string(),
  description: v.string(),
  status: v.picklist(ENDPOINT_STATUSES),
  consecutive_failures: v.pipe(v.number(), v.description('Failed attempts in a row; any success resets it')),
  failing_since: v.pipe(v.nullable(v.string()), v.description('When the current failure streak began')),
  created_at: v.string(),
});

export const CreatedEndpointSchema = v.object({ ...EndpointSchema.entries, secret: v.pipe(v.string(), v.description('Shown once')) });
export const RotatedSecretSchema = v.object({ secret: v.string(), previous_secret_expires_at: v.string() });
export const DeletedSchema = v.object({ deleted: v.literal(true), id: v.string() });

const allowance = v.object({ used: v.number(), limit: v.nullable(v.number()), remaining: v.nullable(v.number()) });
export const LimitsSchema = v.object({
  plan: v.string(),
  included: v.boolean(),
  preview_included: v.boolean(),
  endpoints: allowance,
  subscriptions: allowance,
  watched_addresses: allowance,
  deliveries_per_day: v.object({ ...allowance.entries, unlimited: v.boolean(), resets_at: v.string() }),
  paused_subscriptions: v.object({
    count: v.pipe(v.number(), v.integer()),
    earliest_paused_at: v.optional(v.string()),
    reasons: v.array(v.string()),
    message: v.optional(v.string()),
  }),
  notice: v.optional(v.string()),
});

export const EventTypeSchema = v.object({
  type: v.string(),
  schema_version: v.number(),
  live: v.boolean(),
  description: v.string(),
  scope: v.picklist(['public', 'addresses', 'user']),
  venues: v.array(v.string()),
  filters: v.array(v.string()),
  params: v.record(v.string(), v.unknown()),
  metrics: v.record(v.string(), v.unknown()),
  operators: v.record(v.string(), v.array(v.string())),
  cost_floor: v.nullable(v.record(v.string(), v.unknown())),
  latency_class: v.picklist(['seconds', 'minutes']),
  filters_example: v.record(v.string(), v.unknown()),
});

const anyObject = v.record(v.string(), v.unknown());

/** Operators as stored (word form); `>`, `>=`, `<`, `<=`, `==`, `=`, `!=` are accepted for them. */
const CONDITION_OPERATORS = [
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  'equal',
  'not_equal',
  'between',
  'not_between',
  'in',
  'not_in',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'before',
  'after',
  'is_empty',
  'is_not_empty',
  '>',
  '>=',
  '<',
  '<=',
  '==',
  '=',
  '!=',
];

/**
 * `filters` (alias `config`) as the OpenAPI document publishes it. The body is checked member by
 * member by the core (core/webhooks/filters.ts) against the event type's declaration, so its errors
 * name the exact member (`filters.conditions.0.op`) and list what the type accepts; the shell lets
 * any object through to it.
 */
export const FILTERS_OPENAPI = {
  type: 'object',
  description:
    "A rule's scope, conditions and params. Which scope keys, metrics, operators and params an event type takes is in its catalogue entry "
    + '(GET /v1/webhooks/event-types: `filters`, `metrics`, `operators`, `params`, and `filters_example`, which every type has with a condition). '
    + 'A declared param may also be given at the top level.',
  properties: {
    venue: { description: 'One family or a list of them (case-insensitive)', oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    symbols: { type: 'array', items: { type: 'string' }, description: 'Markets the rule watches (where the type is per market)' },
    addresses: { type: 'array', items: { type: 'string' }, description: 'Watched wallets the rule is limited to (address-scoped types)' },
    min_notional_usd: { type: 'number', minimum: 0, description: "Shorthand for a greater_than_or_equal condition on the type's notional metric" },
    conditions: {
      type: 'array',
      maxItems: 16,
      description: 'All must hold (AND). Each names a metric the type declares and an operator its metric type takes',
      items: {
        type: 'object',
        required: ['metric', 'op'],
        additionalProperties: false,
        properties: {
          metric: { type: 'string', description: "A key of the type's `metrics`" },
          op: { type: 'string', enum: CONDITION_OPERATORS },
          value: {
            description:
              "Absent for is_empty and is_not_empty; [low, high] for between and not_between; a list for in and not_in; else one value of the metric's type (number, text, true/false, or an RFC 3339 time)",
          },
        },
      },
      example: [{ metric: 'notional_usd', op: 'greater_than_or_equal', value: 100000 }],
    },
    params: { type: 'object', additionalProperties: true, description: "Values of the type's declared params (defaults filled in on store)" },
  },
  additionalProperties: true,
} as const;

const filters = v.pipe(anyObject, v.metadata({ openapi: FILTERS_OPENAPI }));

/** Members are checked by the core, which names misplaced `conditions`/`params` precisely. */
export const CreateSubscriptionBody = v.looseObject({
  endpoint_id: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(64, 'must be at most 64 characters')),
  event_type: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(64, 'must be at most 64 characters')),
  filters: v.optional(filters),
  config: v.optional(filters),
});

export const PatchSubscriptionBody = v.looseObject({
  filters: v.optional(filters),
  config: v.optional(filters),
  enabled: v.optional(v.boolean('must be true or false')),
});

export const SubscriptionSchema = v.object({
  id: v.string(),
  endpoint_id: v.string(),
  event_type: v.string(),
  filters,
  enabled: v.boolean(),
  status: v.picklist(['active', 'auto_paused']),
  pause_message: v.optional(v.string()),
  paused_at: v.nullable(v.string()),
  pause_reason: v.nullable(v.string()),
  suppressed_count: v.nullable(v.number()),
  suppressed_first_at: v.nullable(v.string()),
  suppressed_last_at: v.nullable(v.string()),
  last_paused_at: v.nullable(v.string()),
  last_resumed_at: v.nullable(v.string()),
  last_pause_reason: v.nullable(v.string()),
  last_suppressed_count: v.nullable(v.number()),
  trigger_id: v.string(),
  created_at: v.string(),
});

export const WatchAddressBody = v.strictObject({
  address: v.pipe(v.string('must be a string'), v.maxLength(100, 'must be at most 100 characters')),
  label: v.optional(v.pipe(v.string('must be a string'), v.maxLength(1000, 'must be at most 1000 characters'))),
});

export const WatchedAddressSchema = v.object({ id: v.string(), address: v.string(), label: v.string(), created_at: v.string() });

/** Members some webhook routes send beside `data` (SPEC "Webhook routes"). */
export const NoteSibling = { note: v.optional(v.pipe(v.string(), v.description('What to know about this answer'))) };
export const LimitSibling = { limit: v.pipe(v.nullable(v.number()), v.description("The plan's cap on watched addresses (null = unlimited)")) };
const gap = v.pipe(v.nullable(v.record(v.string(), v.unknown())), v.description('The paused window nothing was replayed for; null when nothing was paused'));
export const ResumeSiblings = { ...NoteSibling, gap };
export const ResumeAllSiblings = { ...ResumeSiblings, resumed_count: v.pipe(v.number(), v.integer()) };

export const DeliveryLogQuery = {
  limit: integerParam({ min: 1, max: Number.MAX_SAFE_INTEGER, default: 50, description: 'Deliveries to return, newest first (clamped to 1–200)' }),
};

export const DeliverySchema = v.object({
  id: v.string(),
  event_id: v.string(),
  event_type: v.string(),
  endpoint_id: v.string(),
  subscription_id: v.nullable(v.string()),
  state: v.picklist(DELIVERY_STATES),
  attempts: v.number(),
  last_status_code: v.nullable(v.number()),
  last_error: v.nullable(v.string()),
  last_latency_ms: v.nullable(v.number()),
  next_attempt_at: v.nullable(v.string()),
  first_attempt_at: v.nullable(v.string()),
  delivered_at: v.nullable(v.string()),
  created_at: v.string(),
  payload: anyObject,
});

export const QueuedDeliverySchema = v.object({ delivery_id: v.string(), event_id: v.string() });
export const RedeliverySchema = v.object({
  ...QueuedDeliverySchema.entries,
  event_type: v.string(),
  state: v.literal('pending'),
  attempts: v.number(),
  next_attempt_at: v.string(),
});

/** Members and ranges are checked by the core, which names the supported event types precisely. */
export const DryRunBody = v.looseObject({
  event_type: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty')),
  config: v.optional(filters),
  filters: v.optional(filters),
  lookback_s: v.optional(v.pipe(v.number('must be a number'), v.description('60 to 86400 seconds, default 3600'))),
  limit: v.optional(v.pipe(v.number('must be a number'), v.description('1 to 200, default 100'))),
});

export const EstimateBody = v.looseObject({
  event_type: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty')),
  config: v.optional(filters),
  filters: v.optional(filters),
  lookback_days: v.optional(v.pipe(v.number('must be a number'), v.description('1 to 30 days, default 7'))),
});

const previewWindow = v.object({ from: v.string(), to: v.string() });
const occurrence = v.object({ observed_at_estimate: v.string(), data: anyObject });
export const DryRunSchema = v.object({
  event_type: v.string(),
  window: previewWindow,
  matched: v.number(),
  truncated: v.boolean(),
  occurrences: v.array(occurrence),
});

/** The estimate as the real service's clients read it (reference-real-service.md 5.2 "Estimate"). */
export const EstimateSchema = v.object({
  event_type: v.string(),
  window: previewWindow,
  days: v.pipe(v.number(), v.integer()),
  total: v.pipe(v.number(), v.integer()),
  per_day: v.pipe(v.array(v.object({ date: v.string(), count: v.number() })), v.description('Oldest first, zero filled')),
  per_day_p50: v.number(),
  per_day_max: v.number(),
  primary_metric: v.nullable(v.string()),
  ladder: v.pipe(v.array(v.object({ value: v.number(), per_day: v.number() })), v.description('Ascending thresholds of the primary metric')),
  distribution: v.nullable(v.object({ n: v.number(), p50: v.number(), p90: v.number(), p99: v.number(), max: v.number() })),
  sample: v.pipe(v.array(occurrence), v.description('Matched occurrences, newest first')),
  basis: v.object({ mode: v.picklist(['exact', 'sampled', 'replayed']), note: v.nullable(v.string()) }),
});
