/** Bodies and response shapes of the webhook management routes. */
import * as v from 'valibot';
import { stringParam } from './params.ts';

export const idPath = { id: stringParam({ description: 'Object id (UUID)', maxLength: 64, required: true }) };

export const CreateEndpointBody = v.strictObject({
  url: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(2048, 'must be at most 2048 characters')),
  description: v.optional(v.pipe(v.string('must be a string'), v.maxLength(256, 'must be at most 256 characters')), ''),
});

export const EndpointSchema = v.object({
  id: v.string(), url: v.string(), description: v.string(), status: v.picklist(['active', 'disabled', 'auto_disabled']),
  consecutive_failures: v.number(), created_at: v.string(),
});

export const CreatedEndpointSchema = v.object({ ...EndpointSchema.entries, secret: v.pipe(v.string(), v.description('Shown once')) });
export const RotatedSecretSchema = v.object({ secret: v.string(), previous_secret_expires_at: v.string() });
export const DeletedSchema = v.object({ deleted: v.literal(true), id: v.string() });

const allowance = v.object({ used: v.number(), limit: v.nullable(v.number()), remaining: v.nullable(v.number()) });
export const LimitsSchema = v.object({
  plan: v.string(), included: v.boolean(), preview_included: v.boolean(), endpoints: allowance, subscriptions: allowance,
  watched_addresses: allowance, deliveries_per_day: v.object({ ...allowance.entries, unlimited: v.boolean(), resets_at: v.string() }),
  notice: v.optional(v.string()),
});

export const EventTypeSchema = v.object({
  type: v.string(), schema_version: v.number(), live: v.boolean(), description: v.string(), scope: v.picklist(['public', 'addresses', 'user']),
  venues: v.array(v.string()), filters: v.array(v.string()), params: v.record(v.string(), v.unknown()), metrics: v.record(v.string(), v.unknown()),
  operators: v.record(v.string(), v.array(v.string())), cost_floor: v.nullable(v.record(v.string(), v.unknown())),
  latency_class: v.picklist(['seconds', 'minutes']), filters_example: v.record(v.string(), v.unknown()),
});
