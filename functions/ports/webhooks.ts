import type { DeliveryRecord, DeliveryState, EndpointStatus, PauseRecord, SubscriptionRecord } from '#schemas/stored.ts';

/** The records as stored: their schemas (schemas/stored.ts) are what the adapters parse. */
export type { DeliveryRecord, DeliveryState, EndpointStatus, PauseRecord, SubscriptionRecord };

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
  /** The failure streak: consecutive failed attempts and when the first of them happened. */
  consecutiveFailures: number;
  firstFailureAt: string | null;
  /** Until when its attempts go to the slow lane (it hung or answered slowly); null when it is quick. */
  slowUntil: string | null;
  createdAt: string;
}

export type Countable = 'endpoints' | 'subscriptions' | 'addresses';

export interface WatchedAddressRecord {
  address: string;
  label: string;
  createdAt: string;
}

/** Endpoints and their failure streak. */
export interface EndpointStore {
  put(endpoint: EndpointRecord): Promise<void>;
  /** Rewrites an endpoint that exists; false when it is gone (a change never brings a deleted endpoint back). */
  replace(endpoint: EndpointRecord): Promise<boolean>;
  get(accountId: string, id: string): Promise<EndpointRecord | undefined>;
  /** The account's endpoints, oldest first. */
  list(accountId: string): Promise<EndpointRecord[]>;
  /** Deletes the endpoint; false when it did not exist. */
  delete(accountId: string, id: string): Promise<boolean>;
  /**
   * Adds a failed attempt (`attemptKey`: counted once, however often the write is sent) to the
   * endpoint's streak; returns the streak as stored (undefined when the endpoint is gone).
   */
  noteFailure(accountId: string, endpointId: string, at: string, attemptKey: string): Promise<{ failures: number; firstFailureAt: string } | undefined>;
  /** Ends the endpoint's failure streak. */
  noteSuccess(accountId: string, endpointId: string): Promise<void>;
  /** Sends the endpoint's attempts to the slow lane until `until` (ISO), or back to the main lane (null). */
  setSlowUntil(accountId: string, endpointId: string, until: string | null): Promise<void>;
  /** Sets an active endpoint `auto_disabled` if its stored streak still meets the rule; false otherwise. */
  autoDisable(accountId: string, endpointId: string, rule: { minFailures: number; firstFailureAtOrBefore: string }): Promise<boolean>;
}

/** Subscriptions (rules), the engine's pauses on them, and the watched addresses rules scope to. */
export interface RuleStore {
  /** Writes the owner's part of the rule; an engine pause on it is kept. */
  put(subscription: SubscriptionRecord): Promise<void>;
  /** As put, for a rule that exists; false when it is gone (an edit never brings a deleted rule back). */
  replace(subscription: SubscriptionRecord): Promise<boolean>;
  get(accountId: string, id: string): Promise<SubscriptionRecord | undefined>;
  /** The account's rules, oldest first. */
  list(accountId: string): Promise<SubscriptionRecord[]>;
  delete(accountId: string, id: string): Promise<boolean>;
  /** Every account's rules of one event type (what detectors match against). */
  listOfType(eventType: string): Promise<SubscriptionRecord[]>;
  /**
   * Marks a rule paused by the engine at `at` (once) and counts `count` (default 1) more occurrences it
   * missed, the first at `firstMissedAt` (default `missedAt`) and the last at `missedAt`.
   */
  suppress(
    accountId: string,
    subscriptionId: string,
    pause: { at: string; missedAt: string; reason: string; count?: number; firstMissedAt?: string },
  ): Promise<void>;
  /** Clears the engine's pause, keeping it as `lastPause`; returns the rule as it now is. */
  clearPause(accountId: string, subscriptionId: string, resumedAt: string): Promise<SubscriptionRecord | undefined>;
  /** Adds the address unless it is there; returns the stored row and whether it was new. */
  addAddress(accountId: string, address: WatchedAddressRecord): Promise<{ row: WatchedAddressRecord; created: boolean }>;
  listAddresses(accountId: string): Promise<WatchedAddressRecord[]>;
  deleteAddress(accountId: string, address: string): Promise<boolean>;
}

/** The delivery log, one record per (event, endpoint), and the attempt lease that serializes workers on it. */
export interface DeliveryStore {
  put(delivery: DeliveryRecord): Promise<void>;
  /** Stores a new delivery unless one with its id exists; false when it did. */
  create(delivery: DeliveryRecord): Promise<boolean>;
  /**
   * Stores new deliveries many a request, without a condition on each: only for a caller that holds
   * the account's queuing lease and has seen (`states`) that none of them exists. Envelopes are all
   * written before any state, so a state is never left without its envelope.
   */
  createMany(deliveries: readonly DeliveryRecord[]): Promise<void>;
  /** The stored state (all but the payload) of those of `ids` that exist in the account, by id; strongly consistent. */
  states(accountId: string, ids: readonly string[]): Promise<Map<string, Omit<DeliveryRecord, 'payload'>>>;
  /**
   * Takes the account's queuing lease for `holder` until `until` (epoch ms): false while another
   * holder's lease is unexpired at `now` (true for the holder's own, so a take that landed unanswered
   * and is sent again is not refused). Whoever creates an account's deliveries holds it, so no two
   * workers create the same delivery at once.
   */
  leaseQueuing(accountId: string, holder: string, until: number, now: number): Promise<boolean>;
  /** Gives the lease back, if `holder` still holds it. */
  releaseQueuing(accountId: string, holder: string): Promise<void>;
  /**
   * Takes the right to make attempt `attempts + 1` of run `run` for `holder` until `leaseUntil` (epoch
   * ms): false when the record has moved on, or another holder has an unexpired lease on it. True
   * again for the same holder (a claim that landed unanswered and is sent again is still its own).
   */
  claimAttempt(accountId: string, id: string, expected: { run: number; attempts: number }, holder: string, leaseUntil: number, now: number): Promise<boolean>;
  /** Writes the outcome of an attempt (and releases the lease) if the record is still at `expected`. */
  recordAttempt(delivery: DeliveryRecord, expected: { run: number; attempts: number }): Promise<boolean>;
  get(accountId: string, id: string): Promise<DeliveryRecord | undefined>;
  /** An endpoint's deliveries, newest first. */
  list(accountId: string, endpointId: string, limit: number): Promise<DeliveryRecord[]>;
  /** Deliveries owed an attempt that was due before `before` (ISO), oldest due first, at most `limit`. */
  overdue(before: string, limit: number): Promise<{ accountId: string; id: string }[]>;
}

/**
 * Counters that must never pass a limit however many workers race: allowances, the daily cap, rate
 * buckets. Allowances and the daily cap are keyed on what they count: the same call made again (a
 * write that landed unanswered, a batch redone) counts nothing more.
 */
export interface AllowanceStore {
  /**
   * Takes one unit of an allowance for item `id` (at `at`, epoch ms); false when `limit` units are
   * already used (null = unlimited). True again, taking nothing, for an id that holds its unit.
   */
  reserve(accountId: string, what: Countable, limit: number | null, id: string, at: number): Promise<boolean>;
  /** Gives item `id`'s unit back; nothing when it holds none (given back already). */
  release(accountId: string, what: Countable, id: string): Promise<void>;
  /** The items holding a unit, with when each took it: a unit whose item was never stored can be found. */
  counted(accountId: string, what: Countable): Promise<{ id: string; at: number }[]>;
  usage(accountId: string): Promise<Record<Countable, number>>;
  /** Counts delivery `id` against the account's day (UTC); false when `limit` are already counted. */
  countDelivery(accountId: string, day: string, id: string, limit: number | null): Promise<boolean>;
  /**
   * Counts the first of `ids` against the account's day, as many as `limit` leaves room for, and
   * returns how many it counted. The same ids counted again (within an hour) count nothing more.
   */
  countDeliveries(accountId: string, day: string, ids: readonly string[], limit: number | null): Promise<number>;
  deliveriesCounted(accountId: string, day: string): Promise<number>;
  /**
   * Takes one of `limit` tokens from the account's bucket (a fixed window, expiring at `expiresAt`
   * epoch s) for the call named `key`; false when spent. The same key again (a write that landed
   * unanswered and is sent again) takes nothing more and is granted if its token was taken.
   */
  takeToken(accountId: string, bucket: string, limit: number, expiresAt: number, key: string): Promise<boolean>;
}

/** Where the minute detection job got to (epoch ms); it never moves backwards. */
export interface DetectionCursorStore {
  read(): Promise<number | undefined>;
  write(at: number): Promise<void>;
}

/** The webhook stores, as the composition root builds them; a core function asks only for those it uses. */
export interface WebhookStores {
  endpoints: EndpointStore;
  rules: RuleStore;
  deliveries: DeliveryStore;
  allowances: AllowanceStore;
  detectionCursor: DetectionCursorStore;
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
