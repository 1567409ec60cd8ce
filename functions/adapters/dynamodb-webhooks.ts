/**
 * Webhook state in DynamoDB, one partition per account (so another account's ids are simply not
 * found):
 *   ACCT#<account> / USAGE        allowance counters, changed only by conditional updates
 *   ACCT#<account> / EP#<id>      an endpoint (its secrets included; routes never return them)
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Countable, EndpointRecord, WebhookStore } from '../ports/webhooks.ts';

const accountKey = (accountId: string) => `ACCT#${accountId}`;

function toEndpoint(item: Record<string, unknown>): EndpointRecord {
  return {
    id: String(item.id), accountId: String(item.account_id), url: String(item.url), description: String(item.description ?? ''),
    status: item.status as EndpointRecord['status'], secret: String(item.secret),
    previousSecret: (item.previous_secret as string | undefined) ?? null, previousSecretExpiresAt: (item.previous_secret_expires_at as string | undefined) ?? null,
    consecutiveFailures: Number(item.consecutive_failures ?? 0), createdAt: String(item.created_at),
  };
}

export function dynamoWebhookStore(client: DynamoDBDocumentClient, tableName: string): WebhookStore {
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
      const { Items = [] } = await client.send(new QueryCommand({
        TableName: tableName, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ep)',
        ExpressionAttributeValues: { ':pk': accountKey(accountId), ':ep': 'EP#' }, ConsistentRead: true,
      }));
      return Items.map(toEndpoint).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    async deleteEndpoint(accountId, id) {
      const { Attributes } = await client.send(new DeleteCommand({ TableName: tableName, Key: { pk: accountKey(accountId), sk: `EP#${id}` }, ReturnValues: 'ALL_OLD' }));
      return Attributes !== undefined;
    },
  };
}
