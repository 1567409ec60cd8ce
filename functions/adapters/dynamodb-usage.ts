/**
 * Credits used per account and month: `ACCT#<id>` / `CREDITS#<YYYY-MM>`, one atomic counter, kept
 * 400 days. Each debit carries a key of its own (dynamodb-once.ts): the SDK sending it again after
 * its answer was lost debits nothing more.
 */
import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { DeleteCommand, GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CreditLedger } from '../core/billing/credits.ts';
import { parseItem } from './stored-item.ts';
import { isConditionFailure } from './dynamodb-webhook-table.ts';
import { countedOnce } from './dynamodb-once.ts';

const RETENTION_S = 400 * 86_400;
/** The SDK's retries of one request fall within seconds; a debit's key is kept 10 to 20 s. */
const DEBIT_KEY_SLOT_MS = 10_000;
const UsedItem = v.object({ used: v.number() });

const key = (accountId: string, month: string) => ({ pk: `ACCT#${accountId}`, sk: `CREDITS#${month}` });

export function dynamoCreditLedger(client: DynamoDBDocumentClient, tableName: string): CreditLedger {
  const used = async (accountId: string, month: string) => {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key(accountId, month), ConsistentRead: true }));
    return Item ? parseItem(UsedItem, tableName, Item).used : 0;
  };
  return {
    async debit(accountId, month, credits) {
      const once = countedOnce(randomBytes(16).toString('base64url'), Date.now(), DEBIT_KEY_SLOT_MS);
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key(accountId, month),
            UpdateExpression: `ADD used :n, ${once.add} SET expires_at = if_not_exists(expires_at, :expires) REMOVE ${once.remove}`,
            ConditionExpression: once.condition,
            ExpressionAttributeNames: once.names,
            ExpressionAttributeValues: { ':n': credits, ':expires': Math.floor(Date.parse(`${month}-01T00:00:00Z`) / 1000) + RETENTION_S, ...once.values },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        // UPDATED_NEW holds the updated attributes only (no key): the key is named for the error.
        const after = Attributes ? parseItem(UsedItem, tableName, { ...key(accountId, month), ...Attributes }).used : credits;
        return { before: after - credits, after };
      } catch (error) {
        // Only a retry of this very debit, landed before, is refused: it counted; the total read now stands for its result.
        if (!isConditionFailure(error)) throw error;
        const after = await used(accountId, month);
        return { before: after - credits, after };
      }
    },
    used,
  };
}

/** Forgets an account's use in `month`, as if it had used nothing (the local cloud, at start). */
export async function clearCreditUse(client: DynamoDBDocumentClient, tableName: string, accountId: string, month: string): Promise<void> {
  await client.send(new DeleteCommand({ TableName: tableName, Key: key(accountId, month) }));
}
