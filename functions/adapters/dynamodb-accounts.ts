/**
 * Accounts table layout: `KEY#<sha256>`/`KEY` -> account id (one item per API key) and
 * `ACCOUNT#<id>`/`ACCOUNT` -> plan and usage key. Two reads per authorization; API Gateway caches
 * the authorizer's answer per key for five minutes.
 */
import * as v from 'valibot';
import { DeleteCommand, GetCommand, PutCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Account } from '../core/accounts.ts';
import { isPlanName } from '../core/plans.ts';
import type { AccountStore } from '../ports/accounts.ts';
import { parseItem } from './stored-item.ts';

export interface KeyDigest {
  hash: string;
  hint: string;
}

const KeyItem = v.object({ account_id: v.string(), revoked_at: v.optional(v.unknown()) });
/** The plan is read as any name: an account on a plan this version does not know is no account (see toAccount). */
const AccountItem = v.object({ plan: v.string(), usage_key: v.string(), created_at: v.string(), monthly_credits: v.optional(v.number()) });

function toAccount(tableName: string, id: string, stored: Record<string, unknown>): Account | undefined {
  const { plan, usage_key, created_at, monthly_credits } = parseItem(AccountItem, tableName, stored);
  if (!isPlanName(plan)) return undefined;
  return { id, plan, usageKey: usage_key, createdAt: created_at, ...(monthly_credits !== undefined && { monthlyCredits: monthly_credits }) };
}

const accountItem = (account: Account) => ({
  pk: `ACCOUNT#${account.id}`,
  sk: 'ACCOUNT',
  plan: account.plan,
  usage_key: account.usageKey,
  created_at: account.createdAt,
  ...(account.monthlyCredits !== undefined && { monthly_credits: account.monthlyCredits }),
});

const keyItem = (account: Account, key: KeyDigest) => ({
  pk: `KEY#${key.hash}`,
  sk: 'KEY',
  account_id: account.id,
  hint: key.hint,
  created_at: account.createdAt,
});

export function dynamoAccountStore(client: DynamoDBDocumentClient, tableName: string): AccountStore {
  const store: AccountStore = {
    async findByKeyHash(keyHash) {
      const { Item: keyItem } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: `KEY#${keyHash}`, sk: 'KEY' } }));
      if (!keyItem) return undefined;
      const key = parseItem(KeyItem, tableName, keyItem);
      if (key.revoked_at) return undefined;
      return store.getAccount(key.account_id);
    },

    async getAccount(id) {
      const { Item: item } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: `ACCOUNT#${id}`, sk: 'ACCOUNT' } }));
      return item ? toAccount(tableName, id, item) : undefined;
    },

    async create(account, key) {
      // No transactions (dynalite lacks them): the account goes first so a key never points nowhere.
      await client.send(new PutCommand({ TableName: tableName, Item: accountItem(account), ConditionExpression: 'attribute_not_exists(pk)' }));
      await client.send(new PutCommand({ TableName: tableName, Item: keyItem(account, key), ConditionExpression: 'attribute_not_exists(pk)' }));
    },
  };
  return store;
}

/**
 * Makes `seeded` the whole set of seeded keys: each account and key is written over whatever is
 * stored (so a key seeded again with another plan changes plan), and keys seeded earlier that are
 * not in the set are deleted. Keys made with `create` are never touched.
 */
export async function replaceSeededAccounts(
  client: DynamoDBDocumentClient,
  tableName: string,
  seeded: readonly { account: Account; key: KeyDigest }[],
): Promise<void> {
  for (const { account, key } of seeded) {
    await client.send(new PutCommand({ TableName: tableName, Item: accountItem(account) }));
    await client.send(new PutCommand({ TableName: tableName, Item: { ...keyItem(account, key), seeded_locally: true } }));
  }
  const wanted = new Set(seeded.map(({ key }) => `KEY#${key.hash}`));
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'seeded_locally = :t',
        ExpressionAttributeValues: { ':t': true },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      if (!wanted.has(String(item.pk))) await client.send(new DeleteCommand({ TableName: tableName, Key: { pk: item.pk, sk: item.sk } }));
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
