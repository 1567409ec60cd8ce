/** Resolving an API key to its account; the authorizer handler is a thin shell around this. */
import type { AccountStore } from '../ports/accounts.ts';
import type { Account } from './accounts.ts';
import { hashApiKey } from './api-keys.ts';

/** Keys longer than this are refused without a lookup (nothing we mint is near it). */
const MAX_KEY_LENGTH = 256;

export async function resolveApiKey(accounts: AccountStore, presented: string | undefined): Promise<Account | undefined> {
  const key = presented?.trim();
  if (!key || key.length > MAX_KEY_LENGTH) return undefined;
  return accounts.findByKeyHash(hashApiKey(key));
}

/**
 * API Gateway caches one authorizer answer per key for every route, so the policy must allow the
 * whole stage, not just the method that happened to be called first.
 */
export function stageWideResource(methodArn: string): string {
  // arn:aws:execute-api:<region>:<account>:<api-id>/<stage>/<METHOD>/<path…>
  const [apiArn, stage] = methodArn.split('/');
  return `${apiArn}/${stage}/*`;
}
