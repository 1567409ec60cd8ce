/**
 * Accounts table layout: `KEY#<sha256>`/`KEY` -> account id (one item per API key) and
 * `ACCOUNT#<id>`/`ACCOUNT` -> plan and usage key. Two reads per authorization; API Gateway caches
 * the authorizer's answer per key for five minutes.
 */
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isPlanName } from '../core/plans.ts';
import type { AccountRecord, AccountStore } from '../ports/accounts.ts';

function toAccount(id: string, item: Record<string, unknown>): AccountRecord {
  return {
    id, plan: item.plan as AccountRecord['plan'], usageKey: String(item.usage_key), createdAt: String(item.created_at),
    ...(typeof item.monthly_credits === 'number' && { monthlyCredits: item.monthly_credits }),
  };
}

export function dynamoAccountStore(client: DynamoDBDocumentClient, tableName: string): AccountStore {
  return {
    async findByKeyHash(keyHash) {
      const key = await client.send(new GetCommand({ TableName: tableName, Key: { pk: `KEY#${keyHash}`, sk: 'KEY' } }));
      const accountId = key.Item?.account_id;
      if (typeof accountId !== 'string' || key.Item?.revoked_at) return undefined;
      const account = await client.send(new GetCommand({ TableName: tableName, Key: { pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' } }));
      const item = account.Item;
      if (!item || typeof item.plan !== 'string' || !isPlanName(item.plan)) return undefined;
      return toAccount(accountId, item);
    },

    async getAccount(id) {
      const { Item: item } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: `ACCOUNT#${id}`, sk: 'ACCOUNT' } }));
      if (!item || typeof item.plan !== 'string' || !isPlanName(item.plan)) return undefined;
      return toAccount(id, item);
    },

    async create(account: AccountRecord, key) {
      // No transactions (dynalite lacks them): the account goes first so a key never points nowhere.
      await client.send(new PutCommand({
        TableName: tableName,
        Item: { pk: `ACCOUNT#${account.id}`, sk: 'ACCOUNT', plan: account.plan, usage_key: account.usageKey, created_at: account.createdAt },
        ConditionExpression: 'attribute_not_exists(pk)',
      }));
      await client.send(new PutCommand({
        TableName: tableName,
        Item: { pk: `KEY#${key.hash}`, sk: 'KEY', account_id: account.id, hint: key.hint, created_at: account.createdAt },
        ConditionExpression: 'attribute_not_exists(pk)',
      }));
    },
  };
}
