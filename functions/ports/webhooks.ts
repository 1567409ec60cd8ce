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
}
