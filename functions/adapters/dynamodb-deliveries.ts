/**
 * The delivery log in the webhooks table, two items a delivery (expiring after 30 days):
 * - `ACCT#<account> / DLV#<id>`: its state, rewritten by every attempt, so kept small (under 1 KB,
 *   one write unit) and out of gsi1: `run`, `attempts`, `lease_until` and `lease_holder` top-level for the lease's
 *   and the outcome's conditional writes; gsi2 (`DUE#<shard>` / `<next_attempt_at>#<id>`, keys
 *   only) while it is owed an attempt.
 * - `ACCT#<account> / DLV#<id>#E`: the envelope, written when the delivery is queued or redelivered
 *   and never by an attempt, and the one in gsi1 (`EPD#<endpoint>` / `<created_at>#<id>`), which
 *   projects every attribute: an attempt rewrites no index entry of it.
 * One strongly consistent query (`begins_with DLV#<id>`) reads both.
 * Detection creates deliveries many a request (`createMany`) while it holds the account's queuing
 * lease, `ACCT#<account> / QUEUING` (`holder`, `lease_until` epoch ms).
 */
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getAll, putAll } from './dynamodb-batch.ts';
import type { DeliveryStore } from '../ports/webhooks.ts';
import { DeliveryPayload, DeliveryRecord, DeliveryStateRecord } from '#schemas/stored.ts';
import { accountKey, applied, type Item, type WebhookTable } from './dynamodb-webhook-table.ts';
import { json, parseItem } from './stored-item.ts';

/** The delivery log is kept 30 days (DynamoDB TTL on `expires_at`). */
const DELIVERY_RETENTION_S = 30 * 86_400;
const QUEUING_KEY = 'QUEUING';

/**
 * gsi2 holds a delivery while it is owed an attempt, keyed by when: the overdue sweep reads it. Spread over shards by id, so a burst of deliveries is not one hot key.
 */
const DUE_SHARDS = 16;
const dueShard = (id: string) => `DUE#${createHash('sha256').update(id).digest()[0]! % DUE_SHARDS}`;

const stateKey = (id: string) => `DLV#${id}`;
const envelopeKey = (id: string) => `DLV#${id}#E`;
const expiresAt = (delivery: DeliveryRecord) => Math.floor(Date.parse(delivery.createdAt) / 1000) + DELIVERY_RETENTION_S;

function stateItem(delivery: DeliveryRecord): Item {
  const { payload: _payload, ...state } = delivery;
  return {
    pk: accountKey(delivery.accountId),
    sk: stateKey(delivery.id),
    ...(delivery.nextAttemptAt !== null && { gsi2pk: dueShard(delivery.id), gsi2sk: `${delivery.nextAttemptAt}#${delivery.id}` }),
    run: delivery.run,
    attempts: delivery.attempts,
    record: JSON.stringify(state),
    expires_at: expiresAt(delivery),
  };
}

function envelopeItem(delivery: DeliveryRecord): Item {
  return {
    pk: accountKey(delivery.accountId),
    sk: envelopeKey(delivery.id),
    gsi1pk: `EPD#${delivery.endpointId}`,
    gsi1sk: `${delivery.createdAt}#${delivery.id}`,
    payload: JSON.stringify(delivery.payload),
    expires_at: expiresAt(delivery),
  };
}

/** A delivery's state item; one written before state and envelope were apart holds both (its record has the payload). */
const StateItem = v.object({ sk: v.string(), record: json(v.object({ ...DeliveryStateRecord.entries, payload: v.optional(DeliveryPayload) })) });
type StateItem = v.InferOutput<typeof StateItem>;
const EnvelopeItem = v.object({ sk: v.string(), gsi1sk: v.string(), payload: json(DeliveryPayload) });
/** A delivery written as one item, listed in gsi1 from it. */
const WholeItem = v.object({ gsi1sk: v.string(), record: json(DeliveryRecord) });

const stateOf = ({ record }: StateItem): Omit<DeliveryRecord, 'payload'> => {
  const { payload: _payload, ...state } = record;
  return state;
};

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
      await client.send(new PutCommand({ TableName: tableName, Item: envelopeItem(delivery) }));
      await client.send(new PutCommand({ TableName: tableName, Item: stateItem(delivery) }));
    },
    async create(delivery) {
      // The envelope first: a state without its envelope is never read, an envelope without a state is not a delivery.
      await client.send(new PutCommand({ TableName: tableName, Item: envelopeItem(delivery) }));
      return applied(client.send(new PutCommand({ TableName: tableName, Item: stateItem(delivery), ConditionExpression: 'attribute_not_exists(sk)' })));
    },
    async createMany(deliveries) {
      await putAll(client, tableName, deliveries.map(envelopeItem));
      await putAll(client, tableName, deliveries.map(stateItem));
    },
    async states(accountId, ids) {
      const found = await getAll(
        client,
        tableName,
        [...new Set(ids)].map((id) => ({ pk: accountKey(accountId), sk: stateKey(id) })),
      );
      const states = found.filter((item) => !expired(item)).map((item) => parseItem(StateItem, tableName, item));
      return new Map(states.map((item) => [item.sk.slice('DLV#'.length), stateOf(item)]));
    },
    leaseQueuing(accountId, holder, until, now) {
      return applied(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: accountKey(accountId), sk: QUEUING_KEY },
            UpdateExpression: 'SET holder = :holder, lease_until = :until',
            // The holder's own lease passes too: a take that landed and lost its answer is sent again.
            ConditionExpression: 'attribute_not_exists(lease_until) OR lease_until < :now OR holder = :holder',
            ExpressionAttributeValues: { ':holder': holder, ':until': until, ':now': now },
          }),
        ),
      );
    },
    async releaseQueuing(accountId, holder) {
      // Not applied when the lease ran out and another worker took it: that one is left alone.
      await applied(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: accountKey(accountId), sk: QUEUING_KEY },
            UpdateExpression: 'REMOVE holder, lease_until',
            ConditionExpression: 'holder = :holder',
            ExpressionAttributeValues: { ':holder': holder },
          }),
        ),
      );
    },
    claimAttempt(accountId, id, expected, holder, leaseUntil, now) {
      return applied(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: accountKey(accountId), sk: stateKey(id) },
            UpdateExpression: 'SET lease_until = :until, lease_holder = :holder',
            ...atExpected,
            // The holder's own lease passes: a claim that landed and lost its answer, sent again by the SDK,
            // must not read as another worker's (the job would be dropped with nobody attempting it).
            ConditionExpression: `${atExpected.ConditionExpression} AND (attribute_not_exists(lease_until) OR lease_until < :now OR lease_holder = :holder)`,
            ExpressionAttributeValues: { ':until': leaseUntil, ':holder': holder, ':run': expected.run, ':attempts': expected.attempts, ':now': now },
          }),
        ),
      );
    },
    recordAttempt(delivery, expected) {
      // A put without lease_until and lease_holder: recording the outcome releases the lease.
      return applied(
        client.send(
          new PutCommand({
            TableName: tableName,
            Item: stateItem(delivery),
            ...atExpected,
            ExpressionAttributeValues: { ':run': expected.run, ':attempts': expected.attempts },
          }),
        ),
      );
    },
    async get(accountId, id) {
      const { Items = [] } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :id)',
          ExpressionAttributeValues: { ':pk': accountKey(accountId), ':id': stateKey(id) },
          ConsistentRead: true,
        }),
      );
      const stateItem = Items.find((item) => item.sk === stateKey(id));
      const envelopeItemRead = Items.find((item) => item.sk === envelopeKey(id));
      if (!stateItem || expired(stateItem)) return undefined;
      const state = parseItem(StateItem, tableName, stateItem);
      if (envelopeItemRead) return { ...stateOf(state), payload: parseItem(EnvelopeItem, tableName, envelopeItemRead).payload };
      // Written before state and envelope were apart (one item holding both, in gsi1): its envelope
      // is written now, once, so the attempt's state write keeps it in the log.
      const { payload } = state.record;
      if (payload === undefined) return undefined;
      const whole = { ...stateOf(state), payload };
      await client.send(new PutCommand({ TableName: tableName, Item: envelopeItem(whole) }));
      return whole;
    },
    async list(accountId, endpointId, limit) {
      const { Items: envelopes = [] } = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': `EPD#${endpointId}` },
          ScanIndexForward: false,
          Limit: limit,
        }),
      );
      // Endpoint ids are unique, but the account key keeps one account from ever reading another's log.
      const listed = envelopes.filter((item) => item.pk === accountKey(accountId) && !expired(item));
      const mine = listed.filter((item) => String(item.sk).endsWith('#E')).map((item) => parseItem(EnvelopeItem, tableName, item));
      // A delivery written as one item (before the split) is listed from it until its envelope exists.
      const whole = listed
        .filter((item) => !String(item.sk).endsWith('#E') && !mine.some((e) => e.sk === `${String(item.sk)}#E`))
        .map((item) => {
          const { gsi1sk, record } = parseItem(WholeItem, tableName, item);
          return { at: gsi1sk, delivery: record };
        });
      const states = new Map<string, StateItem>();
      const stateKeys = mine.map((item) => ({ pk: accountKey(accountId), sk: item.sk.slice(0, -'#E'.length) }));
      for (const item of await getAll(client, tableName, stateKeys)) states.set(String(item.sk), parseItem(StateItem, tableName, item));
      const split = mine.flatMap((envelope) => {
        const state = states.get(envelope.sk.slice(0, -'#E'.length));
        return state ? [{ at: envelope.gsi1sk, delivery: { ...stateOf(state), payload: envelope.payload } }] : [];
      });
      return [...split, ...whole].sort((a, b) => b.at.localeCompare(a.at)).map((entry) => entry.delivery);
    },
    async overdue(before, limit) {
      const shards = await Promise.all(
        Array.from({ length: DUE_SHARDS }, (_, shard) =>
          client.send(
            new QueryCommand({
              TableName: tableName,
              IndexName: 'gsi2',
              KeyConditionExpression: 'gsi2pk = :shard AND gsi2sk < :before',
              ExpressionAttributeValues: { ':shard': `DUE#${shard}`, ':before': before },
              Limit: limit,
            }),
          ),
        ),
      );
      return shards
        .flatMap((page) => page.Items ?? [])
        .sort((a, b) => String(a.gsi2sk).localeCompare(String(b.gsi2sk)))
        .slice(0, limit)
        .map((item) => ({ accountId: String(item.pk).slice('ACCT#'.length), id: String(item.sk).slice('DLV#'.length) }));
    },
  };
}
