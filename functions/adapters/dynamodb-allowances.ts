/**
 * Counters in the webhooks table, each changed only by a conditional update so racing workers never
 * pass a limit: allowances (`ACCT#<account> / USAGE`), deliveries counted per UTC day
 * (`DAY#<date>`), and fixed-window rate buckets (e.g. `PREVIEW#<minute>`, the estimate and dry-run budget).
 */
import * as v from 'valibot';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AllowanceStore } from '../ports/webhooks.ts';
import { accountKey, applied, getItem, type WebhookTable } from './dynamodb-webhook-table.ts';
import { parseItem } from './stored-item.ts';

/** Counters start absent: an allowance never taken, a day with no delivery counted. */
const count = v.optional(v.number(), 0);
const UsageItem = v.object({ endpoints: count, subscriptions: count, addresses: count });
const DayItem = v.object({ deliveries: count });

/** A limit of zero grants nothing (the counters' conditions pass on an item not yet written). */
const nothingAllowed = (limit: number | null) => limit !== null && limit <= 0;

export function dynamoAllowanceStore(table: WebhookTable): AllowanceStore {
  const { client, tableName } = table;
  const deliveriesOn = async (accountId: string, day: string) => {
    const item = await getItem(table, accountKey(accountId), `DAY#${day}`);
    return item ? parseItem(DayItem, tableName, item).deliveries : 0;
  };
  const usageKey = (accountId: string) => ({ pk: accountKey(accountId), sk: 'USAGE' });
  const dayKey = (accountId: string, day: string) => ({ pk: accountKey(accountId), sk: `DAY#${day}` });
  const addToDay = (accountId: string, day: string, n: number, limit: number | null) => applied(client.send(new UpdateCommand({
    TableName: tableName, Key: dayKey(accountId, day),
    UpdateExpression: 'ADD #n :n SET expires_at = if_not_exists(expires_at, :expires)',
    // Evaluated against the latest count, so racing workers together never pass the limit.
    ...(limit !== null && { ConditionExpression: 'attribute_not_exists(#n) OR #n <= :most' }),
    ExpressionAttributeNames: { '#n': 'deliveries' },
    ExpressionAttributeValues: { ':n': n, ':expires': Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + 2 * 86_400, ...(limit !== null && { ':most': limit - n }) },
  })));
  /**
   * One write when the whole count fits (the usual case); when it does not, the count is read and
   * what is left of the limit is asked for, again conditionally, until it is granted or none is left.
   */
  async function countDeliveries(accountId: string, day: string, wanted: number, limit: number | null): Promise<number> {
    if (wanted <= 0 || nothingAllowed(limit)) return 0;
    let n = limit === null ? wanted : Math.min(wanted, limit);
    while (!(await addToDay(accountId, day, n, limit))) {
      if (n === 1) return 0; // a count of one refused leaves nothing to ask for
      const used = await deliveriesOn(accountId, day);
      n = Math.min(wanted, limit! - used);
      if (n <= 0) return 0;
    }
    return n;
  }
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
      return item ? parseItem(UsageItem, tableName, item) : { endpoints: 0, subscriptions: 0, addresses: 0 };
    },
    async countDelivery(accountId, day, limit) {
      return (await countDeliveries(accountId, day, 1, limit)) === 1;
    },
    countDeliveries,
    deliveriesCounted: deliveriesOn,
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
