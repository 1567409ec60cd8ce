export type EndpointStatus = 'active' | 'disabled' | 'auto_disabled';

export interface EndpointRecord {
  id: string;
  accountId: string;
  url: string;
  description: string;
  status: EndpointStatus;
  secret: string;
  /** The secret before the last rotation, accepted (and signed with) until `previousSecretExpiresAt`. */
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  consecutiveFailures: number;
  createdAt: string;
}

export type Countable = 'endpoints' | 'subscriptions' | 'addresses';

export interface PauseRecord {
  pausedAt: string;
  reason: string;
  suppressedCount: number;
  suppressedFirstAt: string | null;
  suppressedLastAt: string | null;
}

export interface SubscriptionRecord {
  id: string;
  accountId: string;
  endpointId: string;
  eventType: string;
  /** The stored, normalized configuration (see core/webhooks/filters.ts). */
  filters: Record<string, unknown>;
  /** The owner's switch; the engine's pause is separate and never touches it. */
  enabled: boolean;
  /** Set by the delivery engine when the daily cap pauses the rule; cleared only by resume. */
  pause: PauseRecord | null;
  lastPause: (PauseRecord & { resumedAt: string }) | null;
  /** Identifies the trigger: the event type with its params (different params, different events). */
  triggerId: string;
  createdAt: string;
}

export interface WatchedAddressRecord { address: string; label: string; createdAt: string }

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'exhausted';

export interface DeliveryRecord {
  id: string;
  accountId: string;
  endpointId: string;
  /** The event's id: the same for every attempt and redelivery of one occurrence and trigger. */
  eventId: string;
  eventType: string;
  state: DeliveryState;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastLatencyMs: number | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
  /** The exact event envelope that is signed and sent. */
  payload: Record<string, unknown>;
}

export interface WebhookStore {
  /** Takes one unit of an allowance; false when `limit` units are already used (null = unlimited). */
  reserve(accountId: string, what: Countable, limit: number | null): Promise<boolean>;
  release(accountId: string, what: Countable): Promise<void>;
  usage(accountId: string): Promise<Record<Countable, number>>;
  putEndpoint(endpoint: EndpointRecord): Promise<void>;
  getEndpoint(accountId: string, id: string): Promise<EndpointRecord | undefined>;
  listEndpoints(accountId: string): Promise<EndpointRecord[]>;
  /** Deletes the endpoint; false when it did not exist. */
  deleteEndpoint(accountId: string, id: string): Promise<boolean>;
  putSubscription(subscription: SubscriptionRecord): Promise<void>;
  getSubscription(accountId: string, id: string): Promise<SubscriptionRecord | undefined>;
  listSubscriptions(accountId: string): Promise<SubscriptionRecord[]>;
  deleteSubscription(accountId: string, id: string): Promise<boolean>;
  /** Adds the address unless it is there; returns the stored row and whether it was new. */
  addAddress(accountId: string, address: WatchedAddressRecord): Promise<{ row: WatchedAddressRecord; created: boolean }>;
  listAddresses(accountId: string): Promise<WatchedAddressRecord[]>;
  deleteAddress(accountId: string, address: string): Promise<boolean>;
  /** Counts one delivery against the account's day (UTC); false when `limit` are already counted. */
  countDelivery(accountId: string, day: string, limit: number | null): Promise<boolean>;
  deliveriesCounted(accountId: string, day: string): Promise<number>;
  putDelivery(delivery: DeliveryRecord): Promise<void>;
  getDelivery(accountId: string, id: string): Promise<DeliveryRecord | undefined>;
  /** An endpoint's deliveries, newest first. */
  listDeliveries(accountId: string, endpointId: string, limit: number): Promise<DeliveryRecord[]>;
}

/** One signed POST to a webhook endpoint. */
export interface OutboundRequest {
  url: string;
  /** The exact bytes that were signed. */
  body: string;
  headers: Record<string, string>;
}

export interface SendOutcome {
  /** True only for a 2xx answer read within the budget. */
  ok: boolean;
  /** The receiver's status code, or null when none arrived (refused, timed out, blocked). */
  statusCode: number | null;
  latencyMs: number;
  /** Why the attempt failed, in words a receiver's owner understands; null on success. */
  error: string | null;
  /** The validated address the connection went to (for logs), or null when none was opened. */
  remoteAddress: string | null;
}

/** Sends one request; never rejects: every failure is an outcome. */
export type WebhookSender = (request: OutboundRequest) => Promise<SendOutcome>;
