/** Endpoints in the webhooks table: `ACCT#<account> / EP#<id>`, secrets included (routes never return them). */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EndpointRecord, EndpointStore } from '../ports/webhooks.ts';
import { accountItems, accountKey, applied, getItem, isConditionFailure, removeItem, type Item, type WebhookTable } from './dynamodb-webhook-table.ts';

function toEndpoint(item: Item): EndpointRecord {
  return {
    id: String(item.id), accountId: String(item.account_id), url: String(item.url), description: String(item.description ?? ''),
    status: item.status as EndpointRecord['status'], secret: String(item.secret),
    previousSecret: (item.previous_secret as string | undefined) ?? null, previousSecretExpiresAt: (item.previous_secret_expires_at as string | undefined) ?? null,
    consecutiveFailures: Number(item.consecutive_failures ?? 0), firstFailureAt: (item.first_failure_at as string | undefined) ?? null,
    slowUntil: (item.slow_until as string | undefined) ?? null,
    createdAt: String(item.created_at),
  };
}

export function dynamoEndpointStore(table: WebhookTable): EndpointStore {
  const { client, tableName } = table;
  const key = (accountId: string, id: string) => ({ pk: accountKey(accountId), sk: `EP#${id}` });
  const itemOf = (endpoint: EndpointRecord) => ({
    ...key(endpoint.accountId, endpoint.id), id: endpoint.id, account_id: endpoint.accountId, url: endpoint.url,
    description: endpoint.description, status: endpoint.status, secret: endpoint.secret, previous_secret: endpoint.previousSecret,
    previous_secret_expires_at: endpoint.previousSecretExpiresAt, consecutive_failures: endpoint.consecutiveFailures,
    // Absent rather than NULL while there is no streak: the failure update sets it with if_not_exists.
    ...(endpoint.firstFailureAt !== null && { first_failure_at: endpoint.firstFailureAt }), created_at: endpoint.createdAt,
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
    async noteFailure(accountId, endpointId, at) {
      try {
        const { Attributes } = await client.send(new UpdateCommand({
          TableName: tableName, Key: key(accountId, endpointId),
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
    async setSlowUntil(accountId, endpointId, until) {
      await applied(client.send(new UpdateCommand({
        TableName: tableName, Key: key(accountId, endpointId),
        UpdateExpression: until === null ? 'REMOVE slow_until' : 'SET slow_until = :until',
        ConditionExpression: 'attribute_exists(sk)',
        ...(until !== null && { ExpressionAttributeValues: { ':until': until } }),
      })));
    },
    async noteSuccess(accountId, endpointId) {
      await applied(client.send(new UpdateCommand({
        TableName: tableName, Key: key(accountId, endpointId),
        UpdateExpression: 'SET consecutive_failures = :zero REMOVE first_failure_at',
        ConditionExpression: 'attribute_exists(sk)',
        ExpressionAttributeValues: { ':zero': 0 },
      })));
    },
    autoDisable(accountId, endpointId, rule) {
      // Judged on the stored streak, so a success recorded meanwhile by another worker wins.
      return applied(client.send(new UpdateCommand({
        TableName: tableName, Key: key(accountId, endpointId),
        UpdateExpression: 'SET #status = :disabled',
        ConditionExpression: '#status = :active AND consecutive_failures >= :min AND first_failure_at <= :before',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':disabled': 'auto_disabled', ':active': 'active', ':min': rule.minFailures, ':before': rule.firstFailureAtOrBefore },
      })));
    },
  };
}
