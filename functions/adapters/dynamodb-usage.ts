/** Credits used per account and month: `ACCT#<id>` / `CREDITS#<YYYY-MM>`, one atomic counter, kept 400 days. */
import { DeleteCommand, GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CreditLedger } from '../core/billing/credits.ts';

const RETENTION_S = 400 * 86_400;

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
      const after = Number(Attributes?.used ?? credits);
      return { before: after - credits, after };
    },
    async used(accountId, month) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key(accountId, month), ConsistentRead: true }));
      return Number(Item?.used ?? 0);
    },
  };
}

/** Forgets an account's use in `month`, as if it had used nothing (the local cloud, at start). */
export async function clearCreditUse(client: DynamoDBDocumentClient, tableName: string, accountId: string, month: string): Promise<void> {
  await client.send(new DeleteCommand({ TableName: tableName, Key: key(accountId, month) }));
}
