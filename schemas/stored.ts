/**
 * What the webhook, replay and export stores keep and read back, as valibot schemas: the ports'
 * record types are derived from them (one definition), and the adapters parse each item they read
 * with them (functions/adapters/stored-item.ts), so a malformed item is an error naming its table,
 * key and field rather than a wrong value deep in the core. Items kept as attributes have their
 * schemas beside their layouts in the adapters; these are the shapes those share.
 */
import * as v from 'valibot';
import { ExportFileSchema } from './exports.ts';
import { FAMILIES } from './venues.ts';

const object = v.record(v.string(), v.unknown());

export const ENDPOINT_STATUSES = ['active', 'disabled', 'auto_disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

export const DELIVERY_STATES = ['pending', 'delivered', 'failed', 'exhausted'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** A condition on a declared metric, operator in word form (core/webhooks/filters.ts). */
export const Condition = v.object({ metric: v.string(), op: v.string(), value: v.optional(v.unknown()) });
export type Condition = v.InferOutput<typeof Condition>;

/**
 * A rule's configuration as normalized on store (core/webhooks/filters.ts `normalizeConfig`, which
 * always writes `conditions` and `params`; read as empty where a stored one lacks them).
 */
export const StoredConfig = v.object({
  venue: v.optional(v.array(v.picklist(FAMILIES))),
  symbols: v.optional(v.array(v.string())),
  addresses: v.optional(v.array(v.string())),
  conditions: v.optional(v.array(Condition), []),
  params: v.optional(object, {}),
  min_notional_usd: v.optional(v.number()),
});
export type StoredConfig = v.InferOutput<typeof StoredConfig>;

/** The delivery engine's pause of a rule (its daily cap), and what it suppressed meanwhile. */
export const PauseRecord = v.object({
  pausedAt: v.string(),
  reason: v.string(),
  suppressedCount: v.number(),
  suppressedFirstAt: v.nullable(v.string()),
  suppressedLastAt: v.nullable(v.string()),
});
export type PauseRecord = v.InferOutput<typeof PauseRecord>;

/** The last pause, kept once resumed. */
export const LastPause = v.object({ ...PauseRecord.entries, resumedAt: v.string() });

/** The owner's part of a rule (the engine's pause is kept apart: an owner's PATCH never overwrites it). */
export const SubscriptionOwnerPart = v.object({
  id: v.string(),
  accountId: v.string(),
  endpointId: v.string(),
  eventType: v.string(),
  /** The stored, normalized configuration. */
  filters: StoredConfig,
  /** The owner's switch; the engine's pause is separate and never touches it. */
  enabled: v.boolean(),
  /** Identifies the trigger: the event type with its params (different params, different events). */
  triggerId: v.string(),
  createdAt: v.string(),
});

export const SubscriptionRecord = v.object({
  ...SubscriptionOwnerPart.entries,
  /** Set by the delivery engine when the daily cap pauses the rule; cleared only by resume. */
  pause: v.nullable(PauseRecord),
  lastPause: v.nullable(LastPause),
});
export type SubscriptionRecord = v.InferOutput<typeof SubscriptionRecord>;

/** A delivery's state: everything but the envelope, rewritten by every attempt. */
export const DeliveryStateRecord = v.object({
  /** Deterministic per event and endpoint: one record per (event, endpoint), rewritten by a redelivery. */
  id: v.string(),
  accountId: v.string(),
  endpointId: v.string(),
  /** The rule that matched; null for `webhook.test`. */
  subscriptionId: v.nullable(v.string()),
  /** The event's id: the same for every attempt and redelivery of one occurrence and trigger. */
  eventId: v.string(),
  eventType: v.string(),
  state: v.picklist(DELIVERY_STATES),
  /** Incremented by each redelivery, so queue messages of an earlier run are recognised as stale. */
  run: v.number(),
  attempts: v.number(),
  firstAttemptAt: v.nullable(v.string()),
  lastStatusCode: v.nullable(v.number()),
  lastError: v.nullable(v.string()),
  lastLatencyMs: v.nullable(v.number()),
  nextAttemptAt: v.nullable(v.string()),
  deliveredAt: v.nullable(v.string()),
  createdAt: v.string(),
});

/** The exact event envelope that is signed and sent. */
export const DeliveryPayload = object;

export const DeliveryRecord = v.object({ ...DeliveryStateRecord.entries, payload: DeliveryPayload });
export type DeliveryRecord = v.InferOutput<typeof DeliveryRecord>;

/** One written partition file of an export job (its item's attributes are these members): the route's file but its link. */
export const ExportFileRecord = v.object({
  index: v.number(),
  ...v.omit(ExportFileSchema, ['api_url']).entries,
  /** Object key in the exports bucket. */
  key: v.string(),
});
export type ExportFileRecord = v.InferOutput<typeof ExportFileRecord>;

/** One occurrence as a replay keeps it. */
export const ReplayOccurrence = v.object({ eventId: v.optional(v.string()), occurredAt: v.number(), data: object });
export type ReplayOccurrence = v.InferOutput<typeof ReplayOccurrence>;
