/**
 * Subscriptions and watched addresses in the webhooks table. A rule (`ACCT#<account> / SUB#<id>`)
 * keeps the owner's part as JSON in `record` and the engine's pause in its own attributes, so an
 * owner's PATCH and a pause never overwrite each other; gsi1 (`RULES#<event type>`) lists every
 * account's rules of a type. Addresses are `ACCT#<account> / ADDR#<address>` (lowercase).
 */
import * as v from 'valibot';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RuleStore, SubscriptionRecord, WatchedAddressRecord } from '../ports/webhooks.ts';
import { LastPause, SubscriptionOwnerPart } from '#schemas/stored.ts';
import {
  accountItems,
  accountKey,
  applied,
  getItem,
  isConditionFailure,
  queryAll,
  removeItem,
  type Item,
  type WebhookTable,
} from './dynamodb-webhook-table.ts';
import { json, parseItem } from './stored-item.ts';

/** A rule: the owner's part as JSON, the engine's pause in attributes of its own (absent while not paused), the last pause as JSON. */
const RuleItem = v.object({
  record: json(SubscriptionOwnerPart),
  paused_at: v.optional(v.string()),
  pause_reason: v.optional(v.string()),
  suppressed_count: v.optional(v.number(), 0),
  suppressed_first_at: v.optional(v.string()),
  suppressed_last_at: v.optional(v.string()),
  last_pause: v.optional(json(LastPause)),
});

const AddressItem = v.object({ address: v.string(), label: v.optional(v.string(), ''), created_at: v.string() });

const PAUSE_ATTRIBUTES = ['paused_at', 'pause_reason', 'suppressed_count', 'suppressed_first_at', 'suppressed_last_at'];

export function dynamoRuleStore(table: WebhookTable): RuleStore {
  const { client, tableName } = table;
  function toSubscription(stored: Item): SubscriptionRecord {
    const item = parseItem(RuleItem, tableName, stored);
    return {
      ...item.record,
      pause:
        item.paused_at === undefined
          ? null
          : {
              pausedAt: item.paused_at,
              reason: item.pause_reason ?? '',
              suppressedCount: item.suppressed_count,
              suppressedFirstAt: item.suppressed_first_at ?? null,
              suppressedLastAt: item.suppressed_last_at ?? null,
            },
      lastPause: item.last_pause ?? null,
    };
  }
  const toAddress = (stored: Item): WatchedAddressRecord => {
    const item = parseItem(AddressItem, tableName, stored);
    return { address: item.address, label: item.label, createdAt: item.created_at };
  };
  const key = (accountId: string, id: string) => ({ pk: accountKey(accountId), sk: `SUB#${id}` });
  async function get(accountId: string, id: string): Promise<SubscriptionRecord | undefined> {
    const item = await getItem(table, accountKey(accountId), `SUB#${id}`);
    return item ? toSubscription(item) : undefined;
  }
  /** An update, not a put: the engine's pause attributes on the item are left as they are. */
  function ownerWrite(subscription: SubscriptionRecord, onlyIfThere: boolean) {
    const { pause: _p, lastPause: _l, ...owner } = subscription;
    return client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key(subscription.accountId, subscription.id),
        UpdateExpression: 'SET created_at = :created, #record = :record, gsi1pk = :rules, gsi1sk = :owner',
        ...(onlyIfThere && { ConditionExpression: 'attribute_exists(sk)' }),
        ExpressionAttributeNames: { '#record': 'record' },
        ExpressionAttributeValues: {
          ':created': subscription.createdAt,
          ':record': JSON.stringify(owner),
          ':rules': `RULES#${subscription.eventType}`,
          ':owner': `${subscription.accountId}#${subscription.id}`,
        },
      }),
    );
  }
  return {
    async put(subscription) {
      await ownerWrite(subscription, false);
    },
    replace: (subscription) => applied(ownerWrite(subscription, true)),
    get,
    async list(accountId) {
      return (await accountItems(table, accountId, 'SUB#')).map(toSubscription).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    delete: (accountId, id) => removeItem(table, accountId, `SUB#${id}`),
    async listOfType(eventType) {
      const items = await queryAll(table, {
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': `RULES#${eventType}` },
      });
      return items.map(toSubscription);
    },
    async suppress(accountId, subscriptionId, { at, missedAt, reason, count = 1, firstMissedAt = missedAt }) {
      // A rule deleted meanwhile has nothing left to pause.
      await applied(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key(accountId, subscriptionId),
            UpdateExpression:
              'SET paused_at = if_not_exists(paused_at, :at), pause_reason = if_not_exists(pause_reason, :reason), '
              + 'suppressed_first_at = if_not_exists(suppressed_first_at, :first), suppressed_last_at = :missed ADD suppressed_count :count',
            ConditionExpression: 'attribute_exists(sk)',
            ExpressionAttributeValues: { ':at': at, ':first': firstMissedAt, ':missed': missedAt, ':reason': reason, ':count': count },
          }),
        ),
      );
    },
    async clearPause(accountId, subscriptionId, resumedAt) {
      const current = await get(accountId, subscriptionId);
      if (!current?.pause) return current;
      // Not applied when resumed concurrently; either way, what is stored now is the answer.
      await applied(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key(accountId, subscriptionId),
            UpdateExpression: `REMOVE ${PAUSE_ATTRIBUTES.join(', ')} SET last_pause = :last`,
            ConditionExpression: 'paused_at = :seen',
            ExpressionAttributeValues: { ':seen': current.pause.pausedAt, ':last': JSON.stringify({ ...current.pause, resumedAt }) },
          }),
        ),
      );
      return get(accountId, subscriptionId);
    },
    async addAddress(accountId, row) {
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: { pk: accountKey(accountId), sk: `ADDR#${row.address}`, address: row.address, label: row.label, created_at: row.createdAt },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return { row, created: true };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        return { row: toAddress((await getItem(table, accountKey(accountId), `ADDR#${row.address}`))!), created: false };
      }
    },
    async listAddresses(accountId) {
      return (await accountItems(table, accountId, 'ADDR#')).map(toAddress).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    deleteAddress: (accountId, address) => removeItem(table, accountId, `ADDR#${address}`),
  };
}
