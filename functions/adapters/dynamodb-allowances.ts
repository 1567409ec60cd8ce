/**
 * Counters in the webhooks table, each changed only by a conditional update so racing workers never
 * pass a limit: allowances (`ACCT#<account> / USAGE`), deliveries counted per UTC day
 * (`DAY#<date>`), and fixed-window rate buckets (e.g. `PREVIEW#<minute>`, the estimate and dry-run budget).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AllowanceStore } from '../ports/webhooks.ts';
import { accountKey, applied, getItem, type WebhookTable } from './dynamodb-webhook-table.ts';

/** A limit of zero grants nothing (the counters' conditions pass on an item not yet written). */
const nothingAllowed = (limit: number | null) => limit !== null && limit <= 0;

export function dynamoAllowanceStore(table: WebhookTable): AllowanceStore {
  const { client, tableName } = table;
  const usageKey = (accountId: string) => ({ pk: accountKey(accountId), sk: 'USAGE' });
  return {
    async reserve(accountId, what, limit) {
      if (nothingAllowed(limit)) return false;
      return applied(client.send(new UpdateCommand({
        TableName: tableName, Key: usageKey(accountId),
        UpdateExpression: 'ADD #n :one',
        // Concurrent creates race here; DynamoDB evaluates each condition against the latest count.
        ...(limit !== null && { ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit' }),
        ExpressionAttributeNames: { '#n': what },
        ExpressionAttributeValues: { ':one': 1, ...(limit !== null && { ':limit': limit }) },
      })));
    },
    async release(accountId, what) {
      await applied(client.send(new UpdateCommand({
        TableName: tableName, Key: usageKey(accountId),
        UpdateExpression: 'ADD #n :minus', ConditionExpression: '#n > :zero',
        ExpressionAttributeNames: { '#n': what }, ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      })));
    },
    async usage(accountId) {
      const item = await getItem(table, accountKey(accountId), 'USAGE');
      return { endpoints: Number(item?.endpoints ?? 0), subscriptions: Number(item?.subscriptions ?? 0), addresses: Number(item?.addresses ?? 0) };
    },
    async countDelivery(accountId, day, limit) {
      if (nothingAllowed(limit)) return false;
      return applied(client.send(new UpdateCommand({
        TableName: tableName, Key: { pk: accountKey(accountId), sk: `DAY#${day}` },
        UpdateExpression: 'ADD #n :one SET expires_at = if_not_exists(expires_at, :expires)',
        ...(limit !== null && { ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit' }),
        ExpressionAttributeNames: { '#n': 'deliveries' },
        ExpressionAttributeValues: { ':one': 1, ':expires': Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + 2 * 86_400, ...(limit !== null && { ':limit': limit }) },
      })));
    },
    async deliveriesCounted(accountId, day) {
      return Number((await getItem(table, accountKey(accountId), `DAY#${day}`))?.deliveries ?? 0);
    },
    async takeToken(accountId, bucket, limit, expiresAt) {
      if (nothingAllowed(limit)) return false;
      return applied(client.send(new UpdateCommand({
        TableName: tableName, Key: { pk: accountKey(accountId), sk: bucket },
        UpdateExpression: 'ADD taken :one SET expires_at = if_not_exists(expires_at, :expires)',
        ConditionExpression: 'attribute_not_exists(taken) OR taken < :limit',
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expires': expiresAt },
      })));
    },
  };
}
