/**
 * Webhook state in DynamoDB, one partition per account (so another account's ids are simply not
 * found):
 *   ACCT#<account> / USAGE        allowance counters, changed only by conditional updates
 *   ACCT#<account> / EP#<id>      an endpoint (its secrets included; routes never return them)
 *   ACCT#<account> / SUB#<id>     a subscription (its configuration and pause state as JSON)
 *   ACCT#<account> / ADDR#<addr>  a watched address (lowercase)
 *   ACCT#<account> / DAY#<date>   deliveries counted at queue time that UTC day
 *   ACCT#<account> / DLV#<id>     a delivery (gsi1: EPD#<endpoint> / <created_at>#<id>), expiring after 30 days
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
    consecutiveFailures: Number(item.consecutive_failures ?? 0), createdAt: String(item.created_at),
  };
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
  return {
    async reserve(accountId, what, limit) {
      try {
        await client.send(new UpdateCommand({
          TableName: tableName,
          Key: { pk: accountKey(accountId), sk: 'USAGE' },
          UpdateExpression: 'ADD #n :one',
          // Concurrent creates race here; DynamoDB evaluates each condition against the latest count.
          ...(limit !== null && { ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit', ExpressionAttributeValues: { ':one': 1, ':limit': limit } }),
          ...(limit === null && { ExpressionAttributeValues: { ':one': 1 } }),
          ExpressionAttributeNames: { '#n': what },
        }));
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
    async release(accountId, what) {
      await client.send(new UpdateCommand({
        TableName: tableName, Key: { pk: accountKey(accountId), sk: 'USAGE' },
        UpdateExpression: 'ADD #n :minus', ConditionExpression: '#n > :zero',
        ExpressionAttributeNames: { '#n': what }, ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      })).catch((error: unknown) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
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
          previous_secret_expires_at: endpoint.previousSecretExpiresAt, consecutive_failures: endpoint.consecutiveFailures, created_at: endpoint.createdAt,
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
      await client.send(new PutCommand({
        TableName: tableName,
        Item: { pk: accountKey(subscription.accountId), sk: `SUB#${subscription.id}`, created_at: subscription.createdAt, record: JSON.stringify(subscription) },
      }));
    },
    async getSubscription(accountId, id) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: accountKey(accountId), sk: `SUB#${id}` }, ConsistentRead: true }));
      return Item ? (JSON.parse(String(Item.record)) as SubscriptionRecord) : undefined;
    },
    async listSubscriptions(accountId) {
      const items = await list(accountId, 'SUB#');
      return items.map((item) => JSON.parse(String(item.record)) as SubscriptionRecord).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
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
      try {
        await client.send(new UpdateCommand({
          TableName: tableName, Key: { pk: accountKey(accountId), sk: `DAY#${day}` },
          UpdateExpression: 'ADD #n :one SET expires_at = if_not_exists(expires_at, :expires)',
          ...(limit !== null && { ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit' }),
          ExpressionAttributeNames: { '#n': 'deliveries' },
          ExpressionAttributeValues: { ':one': 1, ':expires': Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + 2 * 86_400, ...(limit !== null && { ':limit': limit }) },
        }));
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
    async deliveriesCounted(accountId, day) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: accountKey(accountId), sk: `DAY#${day}` }, ConsistentRead: true }));
      return Number(Item?.deliveries ?? 0);
    },
    async putDelivery(delivery) {
      await client.send(new PutCommand({
        TableName: tableName,
        Item: {
          pk: accountKey(delivery.accountId), sk: `DLV#${delivery.id}`, gsi1pk: `EPD#${delivery.endpointId}`, gsi1sk: `${delivery.createdAt}#${delivery.id}`,
          record: JSON.stringify(delivery), expires_at: Math.floor(Date.parse(delivery.createdAt) / 1000) + DELIVERY_RETENTION_S,
        },
      }));
    },
    async getDelivery(accountId, id) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: accountKey(accountId), sk: `DLV#${id}` }, ConsistentRead: true }));
      return Item ? (JSON.parse(String(Item.record)) as DeliveryRecord) : undefined;
    },
    async listDeliveries(accountId, endpointId, limit) {
      const { Items = [] } = await client.send(new QueryCommand({
        TableName: tableName, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': `EPD#${endpointId}` }, ScanIndexForward: false, Limit: limit,
      }));
      // Endpoint ids are unique, but the account check keeps one account from ever reading another's log.
      return Items.map((item) => JSON.parse(String(item.record)) as DeliveryRecord).filter((d) => d.accountId === accountId);
    },
  };
}
