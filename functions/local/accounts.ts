/**
 * The local cloud's accounts: one per key in LOCAL_API_KEYS (default: a build, a pro and a free
 * key), seeded through the same store the authorizer reads. Keys seeded by an earlier start that
 * are no longer listed are revoked, so the variable really replaces the set; keys minted with
 * `npm run keys` are left alone.
 */
import { createHash } from 'node:crypto';
import { DeleteCommand, PutCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { hashApiKey, keyHint } from '../core/api-keys.ts';
import type { PlanName } from '../core/plans.ts';

/** A local key, its plan and, optionally, its own monthly credits (instead of the plan's). */
export interface LocalKey { key: string; plan: PlanName; monthlyCredits?: number }

export function localAccountId(key: string): string {
  return `acct_local_${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

export async function seedLocalAccounts(client: DynamoDBDocumentClient, tableName: string, keys: readonly LocalKey[]): Promise<void> {
  const wanted = new Set(keys.map((k) => `KEY#${hashApiKey(k.key)}`));
  const createdAt = new Date().toISOString();
  for (const { key, plan, monthlyCredits } of keys) {
    const id = localAccountId(key);
    // Upserts: restarting with another plan for the same key changes the plan.
    await client.send(new PutCommand({
      TableName: tableName,
      Item: { pk: `ACCOUNT#${id}`, sk: 'ACCOUNT', plan, usage_key: id, created_at: createdAt, ...(monthlyCredits !== undefined && { monthly_credits: monthlyCredits }) },
    }));
    await client.send(new PutCommand({
      TableName: tableName,
      Item: { pk: `KEY#${hashApiKey(key)}`, sk: 'KEY', account_id: id, hint: keyHint(key), created_at: createdAt, seeded_locally: true },
    }));
  }
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new ScanCommand({
      TableName: tableName, FilterExpression: 'seeded_locally = :t', ExpressionAttributeValues: { ':t': true }, ExclusiveStartKey: startKey,
    }));
    for (const item of page.Items ?? []) {
      if (!wanted.has(String(item.pk))) await client.send(new DeleteCommand({ TableName: tableName, Key: { pk: item.pk, sk: item.sk } }));
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
