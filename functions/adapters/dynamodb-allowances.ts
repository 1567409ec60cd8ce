/**
 * Counters in the webhooks table, each changed only by a conditional update so racing workers never
 * pass a limit: allowances (`ACCT#<account> / USAGE`), deliveries counted per UTC day
 * (`DAY#<date>`), and fixed-window rate buckets (e.g. `PREVIEW#<minute>`, the estimate and dry-run budget).
 *
 * Allowances and the day's count are idempotent, keyed on what they count: a unit of an allowance
 * is taken with a mark naming its item (`u#<what>#<id>`, the time it was taken) and given back with
 * the mark, so a write that landed unanswered and is sent again changes nothing; the day's count
 * records a key of the deliveries it counted (dynamodb-once.ts), so a batch counted by a worker that
 * died before storing it is not counted again when the batch is redone. A rate bucket's take records
 * the call's key the same way, so an SDK retry of a take that landed takes no second token.
 */
import * as v from 'valibot';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AllowanceStore, Countable } from '../ports/webhooks.ts';
import { accountKey, applied, getItem, type WebhookTable } from './dynamodb-webhook-table.ts';
import { parseItem } from './stored-item.ts';
import { countedBefore, countedOnce, keyOfItems } from './dynamodb-once.ts';

/** Counters start absent: an allowance never taken, a day with no delivery counted. */
const count = v.optional(v.number(), 0);
const UsageItem = v.object({ endpoints: count, subscriptions: count, addresses: count });
const DayItem = v.object({ deliveries: count });

/** A limit of zero grants nothing (the counters' conditions pass on an item not yet written). */
const nothingAllowed = (limit: number | null) => limit !== null && limit <= 0;

const markPrefix = (what: Countable) => `u#${what}#`;
/** A batch of deliveries redone after its worker died comes back within the queue's retries. */
const DAY_KEY_SLOT_MS = 3_600_000;
/** A rate bucket's take is sent again only by the SDK's retries, within seconds. */
const TOKEN_KEY_SLOT_MS = 60_000;

export function dynamoAllowanceStore(table: WebhookTable): AllowanceStore {
  const { client, tableName } = table;
  const deliveriesOn = async (accountId: string, day: string) => {
    const item = await getItem(table, accountKey(accountId), `DAY#${day}`);
    return item ? parseItem(DayItem, tableName, item).deliveries : 0;
  };
  const usageKey = (accountId: string) => ({ pk: accountKey(accountId), sk: 'USAGE' });
  const dayKey = (accountId: string, day: string) => ({ pk: accountKey(accountId), sk: `DAY#${day}` });
  const addToDay = (accountId: string, day: string, ids: readonly string[], limit: number | null) => {
    const once = countedOnce(keyOfItems(ids), Date.now(), DAY_KEY_SLOT_MS);
    return applied(
      client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: dayKey(accountId, day),
          UpdateExpression: `ADD #n :n, ${once.add} SET expires_at = if_not_exists(expires_at, :expires) REMOVE ${once.remove}`,
          // Evaluated against the latest count, so racing workers together never pass the limit.
          ConditionExpression: limit === null ? once.condition : `${once.condition} AND (attribute_not_exists(#n) OR #n <= :most)`,
          ExpressionAttributeNames: { '#n': 'deliveries', ...once.names },
          ExpressionAttributeValues: {
            ':n': ids.length,
            ':expires': Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + 2 * 86_400,
            ...once.values,
            ...(limit !== null && { ':most': limit - ids.length }),
          },
        }),
      ),
    );
  };
  /**
   * One write when the whole count fits (the usual case); when it does not, the count is read and
   * what is left of the limit is asked for, again conditionally, until it is granted or none is left.
   * A refusal whose deliveries the day already holds was this count landed before (retried unanswered
   * or redone): it counted.
   */
  async function countDeliveries(accountId: string, day: string, ids: readonly string[], limit: number | null): Promise<number> {
    if (ids.length === 0 || nothingAllowed(limit)) return 0;
    let n = limit === null ? ids.length : Math.min(ids.length, limit);
    while (!(await addToDay(accountId, day, ids.slice(0, n), limit))) {
      const item = await getItem(table, accountKey(accountId), `DAY#${day}`);
      if (countedBefore(item, keyOfItems(ids.slice(0, n)))) return n;
      if (n === 1) return 0; // a count of one refused leaves nothing to ask for
      const used = item ? parseItem(DayItem, tableName, item).deliveries : 0;
      n = Math.min(ids.length, limit! - used);
      if (n <= 0) return 0;
    }
    return n;
  }
  return {
    async reserve(accountId, what, limit, id, at) {
      if (nothingAllowed(limit)) return false;
      const mark = markPrefix(what) + id;
      const taken = await applied(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: usageKey(accountId),
            UpdateExpression: 'ADD #n :one SET #mark = :at',
            // Concurrent creates race here; DynamoDB evaluates each condition against the latest count.
            ConditionExpression: limit === null ? 'attribute_not_exists(#mark)' : 'attribute_not_exists(#mark) AND (attribute_not_exists(#n) OR #n < :limit)',
            ExpressionAttributeNames: { '#n': what, '#mark': mark },
            ExpressionAttributeValues: { ':one': 1, ':at': at, ...(limit !== null && { ':limit': limit }) },
          }),
        ),
      );
      // Refused with the mark there: this very unit was taken by an attempt whose answer was lost.
      return taken || (await getItem(table, accountKey(accountId), 'USAGE'))?.[mark] !== undefined;
    },
    async release(accountId, what, id) {
      const mark = markPrefix(what) + id;
      const released = await applied(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: usageKey(accountId),
            UpdateExpression: 'ADD #n :minus REMOVE #mark',
            ConditionExpression: 'attribute_exists(#mark) AND #n > :zero',
            ExpressionAttributeNames: { '#n': what, '#mark': mark },
            ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
          }),
        ),
      );
      if (released) return;
      // No mark: given back already, or a unit counted before marks were kept, given back only while
      // the count holds more units than marks (a race with a reservation may leave one such unit).
      const item = await getItem(table, accountKey(accountId), 'USAGE');
      if (!item || item[mark] !== undefined) return;
      const marks = Object.keys(item).filter((name) => name.startsWith(markPrefix(what))).length;
      await applied(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: usageKey(accountId),
            UpdateExpression: 'ADD #n :minus',
            ConditionExpression: '#n > :marks',
            ExpressionAttributeNames: { '#n': what },
            ExpressionAttributeValues: { ':minus': -1, ':marks': marks },
          }),
        ),
      );
    },
    async counted(accountId, what) {
      const item = await getItem(table, accountKey(accountId), 'USAGE');
      return Object.entries(item ?? {}).flatMap(([name, at]) =>
        name.startsWith(markPrefix(what)) && typeof at === 'number' ? [{ id: name.slice(markPrefix(what).length), at }] : [],
      );
    },
    async usage(accountId) {
      const item = await getItem(table, accountKey(accountId), 'USAGE');
      return item ? parseItem(UsageItem, tableName, item) : { endpoints: 0, subscriptions: 0, addresses: 0 };
    },
    async countDelivery(accountId, day, id, limit) {
      return (await countDeliveries(accountId, day, [id], limit)) === 1;
    },
    countDeliveries,
    deliveriesCounted: deliveriesOn,
    async takeToken(accountId, bucket, limit, expiresAt, key) {
      if (nothingAllowed(limit)) return false;
      const once = countedOnce(key, Date.now(), TOKEN_KEY_SLOT_MS);
      const taken = await applied(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: accountKey(accountId), sk: bucket },
            UpdateExpression: `ADD taken :one, ${once.add} SET expires_at = if_not_exists(expires_at, :expires) REMOVE ${once.remove}`,
            ConditionExpression: `${once.condition} AND (attribute_not_exists(taken) OR taken < :limit)`,
            ExpressionAttributeNames: once.names,
            ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expires': expiresAt, ...once.values },
          }),
        ),
      );
      // Refused with the key there: this call's token was taken by a write whose answer was lost.
      return taken || countedBefore(await getItem(table, accountKey(accountId), bucket), key);
    },
  };
}
