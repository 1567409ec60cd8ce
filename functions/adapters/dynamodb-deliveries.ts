/**
 * The delivery log in the webhooks table: `ACCT#<account> / DLV#<id>` (gsi1: `EPD#<endpoint>` /
 * `<created_at>#<id>`; gsi2 while an attempt is owed: `DUE#<shard>` / `<next_attempt_at>#<id>`), expiring after 30 days; `run`, `attempts` and `lease_until` are top-level
 * attributes so the attempt lease and outcomes are conditional writes.
 */
import { createHash } from 'node:crypto';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveryRecord, DeliveryStore } from '../ports/webhooks.ts';
import { accountKey, applied, getItem, type Item, type WebhookTable } from './dynamodb-webhook-table.ts';

/** The delivery log is kept 30 days (DynamoDB TTL on `expires_at`). */
const DELIVERY_RETENTION_S = 30 * 86_400;

/**
 * gsi2 holds a delivery while it is owed an attempt (`next_attempt_at` set), keyed by when: the
 * overdue sweep reads it. Spread over shards by id, so a burst of deliveries is not one hot key.
 */
const DUE_SHARDS = 16;
const dueShard = (id: string) => `DUE#${createHash('sha256').update(id).digest()[0]! % DUE_SHARDS}`;

function deliveryItem(delivery: DeliveryRecord): Item {
  return {
    pk: accountKey(delivery.accountId), sk: `DLV#${delivery.id}`, gsi1pk: `EPD#${delivery.endpointId}`, gsi1sk: `${delivery.createdAt}#${delivery.id}`,
    ...(delivery.nextAttemptAt !== null && { gsi2pk: dueShard(delivery.id), gsi2sk: `${delivery.nextAttemptAt}#${delivery.id}` }),
    run: delivery.run, attempts: delivery.attempts,
    record: JSON.stringify(delivery), expires_at: Math.floor(Date.parse(delivery.createdAt) / 1000) + DELIVERY_RETENTION_S,
  };
}

/** DynamoDB deletes expired items up to two days late and reads return them until then. */
const expired = (item: Item) => Number(item.expires_at) * 1000 <= Date.now();

const atExpected = {
  ConditionExpression: '#run = :run AND attempts = :attempts',
  ExpressionAttributeNames: { '#run': 'run' },
};

export function dynamoDeliveryStore(table: WebhookTable): DeliveryStore {
  const { client, tableName } = table;
  return {
    async put(delivery) {
      await client.send(new PutCommand({ TableName: tableName, Item: deliveryItem(delivery) }));
    },
    create(delivery) {
      return applied(client.send(new PutCommand({ TableName: tableName, Item: deliveryItem(delivery), ConditionExpression: 'attribute_not_exists(sk)' })));
    },
    claimAttempt(accountId, id, expected, leaseUntil, now) {
      return applied(client.send(new UpdateCommand({
        TableName: tableName, Key: { pk: accountKey(accountId), sk: `DLV#${id}` },
        UpdateExpression: 'SET lease_until = :until',
        ...atExpected,
        ConditionExpression: `${atExpected.ConditionExpression} AND (attribute_not_exists(lease_until) OR lease_until < :now)`,
        ExpressionAttributeValues: { ':until': leaseUntil, ':run': expected.run, ':attempts': expected.attempts, ':now': now },
      })));
    },
    recordAttempt(delivery, expected) {
      // A put without lease_until: recording the outcome releases the lease.
      return applied(client.send(new PutCommand({
        TableName: tableName, Item: deliveryItem(delivery), ...atExpected,
        ExpressionAttributeValues: { ':run': expected.run, ':attempts': expected.attempts },
      })));
    },
    async get(accountId, id) {
      const item = await getItem(table, accountKey(accountId), `DLV#${id}`);
      return item && !expired(item) ? (JSON.parse(String(item.record)) as DeliveryRecord) : undefined;
    },
    async list(accountId, endpointId, limit) {
      const { Items = [] } = await client.send(new QueryCommand({
        TableName: tableName, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': `EPD#${endpointId}` }, ScanIndexForward: false, Limit: limit,
      }));
      // Endpoint ids are unique, but the account check keeps one account from ever reading another's log.
      return Items.filter((item) => !expired(item)).map((item) => JSON.parse(String(item.record)) as DeliveryRecord).filter((d) => d.accountId === accountId);
    },
    async overdue(before, limit) {
      const shards = await Promise.all(Array.from({ length: DUE_SHARDS }, (_, shard) => client.send(new QueryCommand({
        TableName: tableName, IndexName: 'gsi2', KeyConditionExpression: 'gsi2pk = :shard AND gsi2sk < :before',
        ExpressionAttributeValues: { ':shard': `DUE#${shard}`, ':before': before }, Limit: limit,
      }))));
      return shards.flatMap((page) => page.Items ?? [])
        .sort((a, b) => String(a.gsi2sk).localeCompare(String(b.gsi2sk)))
        .slice(0, limit)
        .map((item) => ({ accountId: String(item.pk).slice('ACCT#'.length), id: String(item.sk).slice('DLV#'.length) }));
    },
  };
}
