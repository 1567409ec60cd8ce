/**
 * Webhook state in DynamoDB, one partition per account (so another account's ids are simply not
 * found):
 *   ACCT#<account> / USAGE        allowance counters, changed only by conditional updates
 *   ACCT#<account> / EP#<id>      an endpoint (its secrets included; routes never return them)
 *   ACCT#<account> / SUB#<id>     a subscription: the owner's part as JSON in `record`; the engine's pause
 *                                 in its own attributes, so an owner's PATCH and a pause never overwrite each other
 *                                 (gsi1: RULES#<event type> / <account>#<id>, every account's rules of a type)
 *   ACCT#<account> / ADDR#<addr>  a watched address (lowercase)
 *   ACCT#<account> / DAY#<date>   deliveries counted at queue time that UTC day
 *   ACCT#<account> / PREVIEW#<minute>  estimate and dry-run calls that minute (shared budget)
 *   SYSTEM / DETECT#CURSOR        the end of the last window the minute detection job covered
 *   ACCT#<account> / DLV#<id>     a delivery (gsi1: EPD#<endpoint> / <created_at>#<id>), expiring after 30 days;
 *                                 `run`, `attempts` and `lease_until` are top-level for conditional writes
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Countable, DeliveryRecord, EndpointRecord, SubscriptionRecord, WatchedAddressRecord, WebhookStore } from '../ports/webhooks.ts';

/** The delivery log is kept 30 days (DynamoDB TTL on `expires_at`). */
const DELIVERY_RETENTION_S = 30 * 86_400;

const accountKey = (accountId: string) => `ACCT#${accountId}`;

function toEndpoint(item: Record<string, unknown>): EndpointRecord {
  return {
    id: String(item.id), accountId: String(item.account_id), url: String(item.url), description: String(item.description ?? ''),
    status: item.status as EndpointRecord['status'], secret: String(item.secret),
    previousSecret: (item.previous_secret as string | undefined) ?? null, previousSecretExpiresAt: (item.previous_secret_expires_at as string | undefined) ?? null,
    consecutiveFailures: Number(item.consecutive_failures ?? 0), firstFailureAt: (item.first_failure_at as string | undefined) ?? null,
    createdAt: String(item.created_at),
  };
}

type OwnerPart = Omit<SubscriptionRecord, 'pause' | 'lastPause'>;

function toSubscription(item: Record<string, unknown>): SubscriptionRecord {
  const { pause: _p, lastPause: _l, ...owner } = JSON.parse(String(item.record)) as SubscriptionRecord;
  return {
    ...(owner as OwnerPart),
    pause: item.paused_at === undefined ? null : {
      pausedAt: String(item.paused_at), reason: String(item.pause_reason), suppressedCount: Number(item.suppressed_count ?? 0),
      suppressedFirstAt: (item.suppressed_first_at as string | undefined) ?? null, suppressedLastAt: (item.suppressed_last_at as string | undefined) ?? null,
    },
    lastPause: item.last_pause === undefined ? null : (JSON.parse(String(item.last_pause)) as SubscriptionRecord['lastPause']),
  };
}

const PAUSE_ATTRIBUTES = ['paused_at', 'pause_reason', 'suppressed_count', 'suppressed_first_at', 'suppressed_last_at'];

function deliveryItem(delivery: DeliveryRecord): Record<string, unknown> {
  return {
    pk: accountKey(delivery.accountId), sk: `DLV#${delivery.id}`, gsi1pk: `EPD#${delivery.endpointId}`, gsi1sk: `${delivery.createdAt}#${delivery.id}`,
    run: delivery.run, attempts: delivery.attempts,
    record: JSON.stringify(delivery), expires_at: Math.floor(Date.parse(delivery.createdAt) / 1000) + DELIVERY_RETENTION_S,
  };
}

/** DynamoDB deletes expired items up to two days late and reads return them until then. */
const expired = (item: Record<string, unknown>) => Number(item.expires_at) * 1000 <= Date.now();

const isConditionFailure = (error: unknown) => error instanceof ConditionalCheckFailedException;

/** Runs a conditional write: true when it was applied, false when its condition did not hold. */
async function applied(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

const toAddress = (item: Record<string, unknown>): WatchedAddressRecord => ({ address: String(item.address), label: String(item.label ?? ''), createdAt: String(item.created_at) });

export function dynamoWebhookStore(client: DynamoDBDocumentClient, tableName: string): WebhookStore {
  async function list(accountId: string, prefix: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(new QueryCommand({
        TableName: tableName, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': accountKey(accountId), ':prefix': prefix }, ConsistentRead: true, ExclusiveStartKey,
      }));
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return items;
  }
  async function remove(accountId: string, sk: string): Promise<boolean> {
    const { Attributes } = await client.send(new DeleteCommand({ TableName: tableName, Key: { pk: accountKey(accountId), sk }, ReturnValues: 'ALL_OLD' }));
    return Attributes !== undefined;
  }
  async function readSubscription(accountId: string, id: string): Promise<SubscriptionRecord | undefined> {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: accountKey(accountId), sk: `SUB#${id}` }, ConsistentRead: true }));
    return Item ? toSubscription(Item) : undefined;
  }
  return {
    async reserve(accountId, what, limit) {
      return applied(client.send(new UpdateCommand({
        TableName: tableName,
        Key: { pk: accountKey(accountId), sk: 'USAGE' },
        UpdateExpression: 'ADD #n :one',
        // Concurrent creates race here; DynamoDB evaluates each condition against the latest count.
        ...(limit !== null && { ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit', ExpressionAttributeValues: { ':one': 1, ':limit': limit } }),
        ...(limit === null && { ExpressionAttributeValues: { ':one': 1 } }),
        ExpressionAttributeNames: { '#n': what },
      })));
    },
    async release(accountId, what) {
      await applied(client.send(new UpdateCommand({
        TableName: tableName, Key: { pk: accountKey(accountId), sk: 'USAGE' },
        UpdateExpression: 'ADD #n :minus', ConditionExpression: '#n > :zero',
        ExpressionAttributeNames: { '#n': what }, ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      })));
    },
    async usage(accountId) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: accountKey(accountId), sk: 'USAGE' }, ConsistentRead: true }));
      return { endpoints: Number(Item?.endpoints ?? 0), subscriptions: Number(Item?.subscriptions ?? 0), addresses: Number(Item?.addresses ?? 0) };
    },
    async putEndpoint(endpoint) {
      await client.send(new PutCommand({
        TableName: tableName,
        Item: {
          pk: accountKey(endpoint.accountId), sk: `EP#${endpoint.id}`, id: endpoint.id, account_id: endpoint.accountId, url: endpoint.url,
          description: endpoint.description, status: endpoint.status, secret: endpoint.secret, previous_secret: endpoint.previousSecret,
          previous_secret_expires_at: endpoint.previousSecretExpiresAt, consecutive_failures: endpoint.consecutiveFailures,
          // Absent rather than NULL while there is no streak: the failure update sets it with if_not_exists.
          ...(endpoint.firstFailureAt !== null && { first_failure_at: endpoint.firstFailureAt }), created_at: endpoint.createdAt,
        },
      }));
    },
    async getEndpoint(accountId, id) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: accountKey(accountId), sk: `EP#${id}` }, ConsistentRead: true }));
      return Item ? toEndpoint(Item) : undefined;
    },
    async listEndpoints(accountId) {
      return (await list(accountId, 'EP#')).map(toEndpoint).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    async deleteEndpoint(accountId, id) {
      return remove(accountId, `EP#${id}`);
    },
    async putSubscription(subscription) {
      // An update, not a put: the engine's pause attributes on the item are left as they are.
      const { pause: _p, lastPause: _l, ...owner } = subscription;
      await client.send(new UpdateCommand({
        TableName: tableName, Key: { pk: accountKey(subscription.accountId), sk: `SUB#${subscription.id}` },
        UpdateExpression: 'SET created_at = :created, #record = :record, gsi1pk = :rules, gsi1sk = :owner',
        ExpressionAttributeNames: { '#record': 'record' },
        ExpressionAttributeValues: {
          ':created': subscription.createdAt, ':record': JSON.stringify(owner),
          ':rules': `RULES#${subscription.eventType}`, ':owner': `${subscription.accountId}#${subscription.id}`,
        },
      }));
    },
    getSubscription: readSubscription,
    async listSubscriptions(accountId) {
      return (await list(accountId, 'SUB#')).map(toSubscription).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    async readDetectionCursor() {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: 'SYSTEM', sk: 'DETECT#CURSOR' }, ConsistentRead: true }));
      return Item ? Number(Item.at) : undefined;
    },
    async writeDetectionCursor(at) {
      // Never backwards: an overlapping late run must not make the next one repeat a window.
      await applied(client.send(new UpdateCommand({
        TableName: tableName, Key: { pk: 'SYSTEM', sk: 'DETECT#CURSOR' }, UpdateExpression: 'SET #at = :at',
        ConditionExpression: 'attribute_not_exists(#at) OR #at < :at', ExpressionAttributeNames: { '#at': 'at' }, ExpressionAttributeValues: { ':at': at },
      })));
    },
    async listRules(eventType) {
      const items: Record<string, unknown>[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await client.send(new QueryCommand({
          TableName: tableName, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': `RULES#${eventType}` }, ExclusiveStartKey,
        }));
        items.push(...(page.Items ?? []));
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return items.map(toSubscription);
    },
    async suppress(accountId, subscriptionId, { at, missedAt, reason }) {
      // A rule deleted meanwhile has nothing left to pause.
      await applied(client.send(new UpdateCommand({
        TableName: tableName, Key: { pk: accountKey(accountId), sk: `SUB#${subscriptionId}` },
        UpdateExpression: 'SET paused_at = if_not_exists(paused_at, :at), pause_reason = if_not_exists(pause_reason, :reason), '
          + 'suppressed_first_at = if_not_exists(suppressed_first_at, :missed), suppressed_last_at = :missed ADD suppressed_count :one',
        ConditionExpression: 'attribute_exists(sk)',
        ExpressionAttributeValues: { ':at': at, ':missed': missedAt, ':reason': reason, ':one': 1 },
      })));
    },
    async clearPause(accountId, subscriptionId, resumedAt) {
      const current = await readSubscription(accountId, subscriptionId);
      if (!current?.pause) return current;
      // Not applied when resumed concurrently; either way, what is stored now is the answer.
      await applied(client.send(new UpdateCommand({
        TableName: tableName, Key: { pk: accountKey(accountId), sk: `SUB#${subscriptionId}` },
        UpdateExpression: `REMOVE ${PAUSE_ATTRIBUTES.join(', ')} SET last_pause = :last`,
        ConditionExpression: 'paused_at = :seen',
        ExpressionAttributeValues: { ':seen': current.pause.pausedAt, ':last': JSON.stringify({ ...current.pause, resumedAt }) },
      })));
      return readSubscription(accountId, subscriptionId);
    },
    async deleteSubscription(accountId, id) {
      return remove(accountId, `SUB#${id}`);
    },
    async addAddress(accountId, row) {
      try {
        await client.send(new PutCommand({
          TableName: tableName,
          Item: { pk: accountKey(accountId), sk: `ADDR#${row.address}`, address: row.address, label: row.label, created_at: row.createdAt },
          ConditionExpression: 'attribute_not_exists(pk)',
        }));
        return { row, created: true };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: accountKey(accountId), sk: `ADDR#${row.address}` }, ConsistentRead: true }));
        return { row: toAddress(Item!), created: false };
      }
    },
    async listAddresses(accountId) {
      return (await list(accountId, 'ADDR#')).map(toAddress).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    async deleteAddress(accountId, address) {
      return remove(accountId, `ADDR#${address}`);
    },
    async countDelivery(accountId, day, limit) {
      return applied(client.send(new UpdateCommand({
        TableName: tableName, Key: { pk: accountKey(accountId), sk: `DAY#${day}` },
        UpdateExpression: 'ADD #n :one SET expires_at = if_not_exists(expires_at, :expires)',
        ...(limit !== null && { ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit' }),
        ExpressionAttributeNames: { '#n': 'deliveries' },
        ExpressionAttributeValues: { ':one': 1, ':expires': Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + 2 * 86_400, ...(limit !== null && { ':limit': limit }) },
      })));
    },
    async takeToken(accountId, bucket, limit, expiresAt) {
      return applied(client.send(new UpdateCommand({
        TableName: tableName, Key: { pk: accountKey(accountId), sk: bucket },
        UpdateExpression: 'ADD taken :one SET expires_at = if_not_exists(expires_at, :expires)',
        ConditionExpression: 'attribute_not_exists(taken) OR taken < :limit',
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expires': expiresAt },
      })));
    },
    async deliveriesCounted(accountId, day) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: accountKey(accountId), sk: `DAY#${day}` }, ConsistentRead: true }));
      return Number(Item?.deliveries ?? 0);
    },
    async putDelivery(delivery) {
      await client.send(new PutCommand({ TableName: tableName, Item: deliveryItem(delivery) }));
    },
    async createDelivery(delivery) {
      return applied(client.send(new PutCommand({ TableName: tableName, Item: deliveryItem(delivery), ConditionExpression: 'attribute_not_exists(sk)' })));
    },
    async claimAttempt(accountId, id, expected, leaseUntil, now) {
      return applied(client.send(new UpdateCommand({
        TableName: tableName, Key: { pk: accountKey(accountId), sk: `DLV#${id}` },
        UpdateExpression: 'SET lease_until = :until',
        ConditionExpression: '#run = :run AND attempts = :attempts AND (attribute_not_exists(lease_until) OR lease_until < :now)',
        ExpressionAttributeNames: { '#run': 'run' },
        ExpressionAttributeValues: { ':until': leaseUntil, ':run': expected.run, ':attempts': expected.attempts, ':now': now },
      })));
    },
    async recordAttempt(delivery, expected) {
      // A put without lease_until: recording the outcome releases the lease.
      return applied(client.send(new PutCommand({
        TableName: tableName, Item: deliveryItem(delivery),
        ConditionExpression: '#run = :run AND attempts = :attempts',
        ExpressionAttributeNames: { '#run': 'run' },
        ExpressionAttributeValues: { ':run': expected.run, ':attempts': expected.attempts },
      })));
    },
    async noteEndpointFailure(accountId, endpointId, at) {
      try {
        const { Attributes } = await client.send(new UpdateCommand({
          TableName: tableName, Key: { pk: accountKey(accountId), sk: `EP#${endpointId}` },
          UpdateExpression: 'ADD consecutive_failures :one SET first_failure_at = if_not_exists(first_failure_at, :at)',
          ConditionExpression: 'attribute_exists(sk)',
          ExpressionAttributeValues: { ':one': 1, ':at': at }, ReturnValues: 'ALL_NEW',
        }));
        return { failures: Number(Attributes!.consecutive_failures), firstFailureAt: String(Attributes!.first_failure_at) };
      } catch (error) {
        if (isConditionFailure(error)) return undefined; // deleted meanwhile
        throw error;
      }
    },
    async noteEndpointSuccess(accountId, endpointId) {
      await applied(client.send(new UpdateCommand({
        TableName: tableName, Key: { pk: accountKey(accountId), sk: `EP#${endpointId}` },
        UpdateExpression: 'SET consecutive_failures = :zero REMOVE first_failure_at',
        ConditionExpression: 'attribute_exists(sk)',
        ExpressionAttributeValues: { ':zero': 0 },
      })));
    },
    async autoDisableEndpoint(accountId, endpointId, rule) {
      // Judged on the stored streak, so a success recorded meanwhile by another worker wins.
        return applied(client.send(new UpdateCommand({
        TableName: tableName, Key: { pk: accountKey(accountId), sk: `EP#${endpointId}` },
        UpdateExpression: 'SET #status = :disabled',
        ConditionExpression: '#status = :active AND consecutive_failures >= :min AND first_failure_at <= :before',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':disabled': 'auto_disabled', ':active': 'active', ':min': rule.minFailures, ':before': rule.firstFailureAtOrBefore },
      })));
    },
    async getDelivery(accountId, id) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: accountKey(accountId), sk: `DLV#${id}` }, ConsistentRead: true }));
      return Item && !expired(Item) ? (JSON.parse(String(Item.record)) as DeliveryRecord) : undefined;
    },
    async listDeliveries(accountId, endpointId, limit) {
      const { Items = [] } = await client.send(new QueryCommand({
        TableName: tableName, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': `EPD#${endpointId}` }, ScanIndexForward: false, Limit: limit,
      }));
      // Endpoint ids are unique, but the account check keeps one account from ever reading another's log.
      return Items.filter((item) => !expired(item)).map((item) => JSON.parse(String(item.record)) as DeliveryRecord).filter((d) => d.accountId === accountId);
    },
  };
}
