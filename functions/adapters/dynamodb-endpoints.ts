/** Endpoints in the webhooks table: `ACCT#<account> / EP#<id>`, secrets included (routes never return them). */
import * as v from 'valibot';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EndpointRecord, EndpointStore } from '../ports/webhooks.ts';
import { ENDPOINT_STATUSES } from '#schemas/stored.ts';
import { accountItems, accountKey, applied, getItem, isConditionFailure, removeItem, type Item, type WebhookTable } from './dynamodb-webhook-table.ts';
import { parseItem } from './stored-item.ts';
import { countedBefore, countedOnce } from './dynamodb-once.ts';

/** A failed attempt's key is remembered this long (an SDK retry of a lost answer comes within seconds). */
const FAILURE_KEY_SLOT_MS = 60_000;

/** An endpoint's attributes; the streak's start and the slow lane are absent while there is none (and are removed, not nulled). */
const EndpointItem = v.object({
  id: v.string(),
  account_id: v.string(),
  url: v.string(),
  description: v.optional(v.string(), ''),
  status: v.picklist(ENDPOINT_STATUSES),
  secret: v.string(),
  previous_secret: v.nullish(v.string()),
  previous_secret_expires_at: v.nullish(v.string()),
  consecutive_failures: v.optional(v.number(), 0),
  first_failure_at: v.nullish(v.string()),
  slow_until: v.nullish(v.string()),
  created_at: v.string(),
});

/** The streak as the failure update leaves it (it sets both). */
const StreakAttributes = v.object({ consecutive_failures: v.number(), first_failure_at: v.string() });

export function dynamoEndpointStore(table: WebhookTable): EndpointStore {
  const { client, tableName } = table;
  function toEndpoint(stored: Item): EndpointRecord {
    const item = parseItem(EndpointItem, tableName, stored);
    return {
      id: item.id,
      accountId: item.account_id,
      url: item.url,
      description: item.description,
      status: item.status,
      secret: item.secret,
      previousSecret: item.previous_secret ?? null,
      previousSecretExpiresAt: item.previous_secret_expires_at ?? null,
      consecutiveFailures: item.consecutive_failures,
      firstFailureAt: item.first_failure_at ?? null,
      slowUntil: item.slow_until ?? null,
      createdAt: item.created_at,
    };
  }
  const key = (accountId: string, id: string) => ({ pk: accountKey(accountId), sk: `EP#${id}` });
  const itemOf = (endpoint: EndpointRecord) => ({
    ...key(endpoint.accountId, endpoint.id),
    id: endpoint.id,
    account_id: endpoint.accountId,
    url: endpoint.url,
    description: endpoint.description,
    status: endpoint.status,
    secret: endpoint.secret,
    previous_secret: endpoint.previousSecret,
    previous_secret_expires_at: endpoint.previousSecretExpiresAt,
    consecutive_failures: endpoint.consecutiveFailures,
    // Absent rather than NULL while there is no streak: the failure update sets it with if_not_exists.
    ...(endpoint.firstFailureAt !== null && { first_failure_at: endpoint.firstFailureAt }),
    created_at: endpoint.createdAt,
    ...(endpoint.slowUntil !== null && { slow_until: endpoint.slowUntil }),
  });
  return {
    async put(endpoint) {
      await client.send(new PutCommand({ TableName: tableName, Item: itemOf(endpoint) }));
    },
    replace: (endpoint) => applied(client.send(new PutCommand({ TableName: tableName, Item: itemOf(endpoint), ConditionExpression: 'attribute_exists(sk)' }))),
    async get(accountId, id) {
      const item = await getItem(table, accountKey(accountId), `EP#${id}`);
      return item ? toEndpoint(item) : undefined;
    },
    async list(accountId) {
      return (await accountItems(table, accountId, 'EP#')).map(toEndpoint).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    delete: (accountId, id) => removeItem(table, accountId, `EP#${id}`),
    async noteFailure(accountId, endpointId, at, attemptKey) {
      const once = countedOnce(attemptKey, Date.now(), FAILURE_KEY_SLOT_MS);
      const streakOf = (stored: Item) => {
        const streak = parseItem(StreakAttributes, tableName, stored);
        return { failures: streak.consecutive_failures, firstFailureAt: streak.first_failure_at };
      };
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key(accountId, endpointId),
            UpdateExpression: `ADD consecutive_failures :one, ${once.add} SET first_failure_at = if_not_exists(first_failure_at, :at) REMOVE ${once.remove}`,
            ConditionExpression: `attribute_exists(sk) AND ${once.condition}`,
            ExpressionAttributeNames: once.names,
            ExpressionAttributeValues: { ':one': 1, ':at': at, ...once.values },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return streakOf(Attributes ?? {});
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        // Gone meanwhile, or this attempt was counted by a write whose answer was lost: the streak as stored.
        const stored = await getItem(table, accountKey(accountId), `EP#${endpointId}`);
        return stored && countedBefore(stored, attemptKey) ? streakOf(stored) : undefined;
      }
    },
    async setSlowUntil(accountId, endpointId, until) {
      await applied(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key(accountId, endpointId),
            UpdateExpression: until === null ? 'REMOVE slow_until' : 'SET slow_until = :until',
            ConditionExpression: 'attribute_exists(sk)',
            ...(until !== null && { ExpressionAttributeValues: { ':until': until } }),
          }),
        ),
      );
    },
    async noteSuccess(accountId, endpointId) {
      await applied(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key(accountId, endpointId),
            UpdateExpression: 'SET consecutive_failures = :zero REMOVE first_failure_at',
            ConditionExpression: 'attribute_exists(sk)',
            ExpressionAttributeValues: { ':zero': 0 },
          }),
        ),
      );
    },
    autoDisable(accountId, endpointId, rule) {
      // Judged on the stored streak, so a success recorded meanwhile by another worker wins.
      return applied(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key(accountId, endpointId),
            UpdateExpression: 'SET #status = :disabled',
            ConditionExpression: '#status = :active AND consecutive_failures >= :min AND first_failure_at <= :before',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':disabled': 'auto_disabled', ':active': 'active', ':min': rule.minFailures, ':before': rule.firstFailureAtOrBefore },
          }),
        ),
      );
    },
  };
}
