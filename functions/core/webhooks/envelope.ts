/**
 * The event envelope (SPEC, Webhook delivery) and the ids that make delivery idempotent. An event
 * id is derived from the occurrence and the trigger, so every retry, redelivery and replay of one
 * real-world fact for one rule carries the same id, and a second rule with other params another.
 * A delivery id is derived from the event and the endpoint: one record per (event, endpoint),
 * whichever of an account's identical rules matched first.
 */
import { createHash } from 'node:crypto';
import { LATE_AFTER_MS } from './ladder.ts';

export interface Occurrence {
  /** Names the fact: observing it twice (a re-ingested batch, a re-run job) gives the same key. */
  key: string;
  type: string;
  /** When it happened (chain or source time), epoch ms; null when the source has no timestamp. */
  occurredAt: number | null;
  /** What the delivery carries. Pointers only: `api_url` is a REST path, never a download link. */
  data: Record<string, unknown>;
}

/** A UUID-shaped name (RFC 9562 version 8, custom) for a hash of the parts. */
function uuidOf(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export const eventIdOf = (occurrenceKey: string, triggerId: string): string => uuidOf('event', occurrenceKey, triggerId);
export const deliveryIdOf = (eventId: string, endpointId: string): string => uuidOf('delivery', eventId, endpointId);

export interface Envelope extends Record<string, unknown> {
  id: string;
  type: string;
  schema_version: 1;
  observed_at: string;
  late_ms?: number;
  late?: boolean;
  /** Sent by a replay job (POST /v1/webhooks/subscriptions/replay), not by live detection; always late. */
  replay?: true;
  data: Record<string, unknown>;
}

/** The envelope as produced at `producedAt` (epoch ms); `late_ms` is how far behind the occurrence it is. */
export function buildEnvelope(eventId: string, occurrence: Occurrence, producedAt: number, options: { replay?: boolean } = {}): Envelope {
  const apiUrl = occurrence.data.api_url;
  if (apiUrl !== undefined && (typeof apiUrl !== 'string' || !apiUrl.startsWith('/v1/'))) {
    throw new Error(`data.api_url must be a REST path under /v1/, got ${String(apiUrl)}`);
  }
  const lateMs = occurrence.occurredAt === null ? undefined : Math.max(0, producedAt - occurrence.occurredAt);
  return {
    id: eventId,
    type: occurrence.type,
    schema_version: 1,
    observed_at: new Date(producedAt).toISOString(),
    ...(lateMs !== undefined && { late_ms: lateMs, late: lateMs > LATE_AFTER_MS }),
    ...(options.replay && { late: true, replay: true as const }),
    data: occurrence.data,
  };
}
