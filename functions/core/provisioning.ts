/** Creating an account with its first API key. The key is returned once and never stored in clear. */
import type { AccountStore } from '../ports/accounts.ts';
import type { Account } from './accounts.ts';
import { hashApiKey, keyHint, mintApiKey, newId } from './api-keys.ts';
import type { PlanName } from './plans.ts';

export interface UsageKeyRegistry {
  /** Registers the account's usage key with its tier's API Gateway usage plan (throttling). */
  register(account: Account): Promise<void>;
}

export interface NewAccount {
  account: Account;
  apiKey: string;
}

export async function createAccount(deps: { accounts: AccountStore; usageKeys?: UsageKeyRegistry; now: () => Date }, plan: PlanName): Promise<NewAccount> {
  const apiKey = mintApiKey();
  const id = newId('acct');
  const account: Account = { id, plan, usageKey: newId('usage'), createdAt: deps.now().toISOString() };
  await deps.usageKeys?.register(account);
  await deps.accounts.create(account, { hash: hashApiKey(apiKey), hint: keyHint(apiKey) });
  return { account, apiKey };
}
