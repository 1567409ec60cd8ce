/** Credits used per account and month: `ACCT#<id>` / `CREDITS#<YYYY-MM>`, one atomic counter, kept 400 days. */
import * as v from 'valibot';
import { DeleteCommand, GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CreditLedger } from '../core/billing/credits.ts';
import { parseItem } from './stored-item.ts';

const RETENTION_S = 400 * 86_400;
const UsedItem = v.object({ used: v.number() });

const key = (accountId: string, month: string) => ({ pk: `ACCT#${accountId}`, sk: `CREDITS#${month}` });

export function dynamoCreditLedger(client: DynamoDBDocumentClient, tableName: string): CreditLedger {
  return {
    async debit(accountId, month, credits) {
      const { Attributes } = await client.send(new UpdateCommand({
        TableName: tableName, Key: key(accountId, month),
        UpdateExpression: 'ADD used :n SET expires_at = if_not_exists(expires_at, :expires)',
        ExpressionAttributeValues: { ':n': credits, ':expires': Math.floor(Date.parse(`${month}-01T00:00:00Z`) / 1000) + RETENTION_S },
        ReturnValues: 'UPDATED_NEW',
      }));
      // UPDATED_NEW holds the updated attributes only (no key): the key is named for the error.
      const after = Attributes ? parseItem(UsedItem, tableName, { ...key(accountId, month), ...Attributes }).used : credits;
      return { before: after - credits, after };
    },
    async used(accountId, month) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key(accountId, month), ConsistentRead: true }));
      return Item ? parseItem(UsedItem, tableName, Item).used : 0;
    },
  };
}

/** Forgets an account's use in `month`, as if it had used nothing (the local cloud, at start). */
export async function clearCreditUse(client: DynamoDBDocumentClient, tableName: string, accountId: string, month: string): Promise<void> {
  await client.send(new DeleteCommand({ TableName: tableName, Key: key(accountId, month) }));
}
