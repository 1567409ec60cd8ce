/**
 * The local cloud's accounts: one per key in LOCAL_API_KEYS (default: a build, a pro and a free
 * key), seeded through the adapter that owns the accounts table. Keys seeded by an earlier start that
 * are no longer listed are revoked, so the variable really replaces the set; keys minted with
 * `npm run keys` are left alone.
 */
import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { replaceSeededAccounts } from '../adapters/dynamodb-accounts.ts';
import { hashApiKey, keyHint } from '../core/api-keys.ts';
import type { PlanName } from '../core/plans.ts';

/** A local key, its plan and, optionally, its own monthly credits (instead of the plan's). */
export interface LocalKey {
  key: string;
  plan: PlanName;
  monthlyCredits?: number;
}

export function localAccountId(key: string): string {
  return `acct_local_${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

export async function seedLocalAccounts(client: DynamoDBDocumentClient, tableName: string, keys: readonly LocalKey[]): Promise<void> {
  const createdAt = new Date().toISOString();
  await replaceSeededAccounts(
    client,
    tableName,
    keys.map(({ key, plan, monthlyCredits }) => {
      const id = localAccountId(key);
      return {
        account: { id, plan, usageKey: id, createdAt, ...(monthlyCredits !== undefined && { monthlyCredits }) },
        key: { hash: hashApiKey(key), hint: keyHint(key) },
      };
    }),
  );
}
