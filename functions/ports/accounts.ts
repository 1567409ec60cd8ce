import type { PlanName } from '../core/plans.ts';

export interface AccountRecord {
  id: string;
  plan: PlanName;
  /**
   * The API Gateway usage-plan key this account is throttled under (returned by the authorizer as
   * `usageIdentifierKey`). It is not a secret: clients never send it.
   */
  usageKey: string;
  /** Credits a month agreed for this account, instead of its plan's (enterprise deals, the local demo). */
  monthlyCredits?: number;
  createdAt: string;
}

export interface AccountStore {
  /** The account owning the key with this digest, or undefined for an unknown or revoked key. */
  findByKeyHash(keyHash: string): Promise<AccountRecord | undefined>;
  getAccount(id: string): Promise<AccountRecord | undefined>;
  /** Stores the account, then the key digest that resolves to it; refuses to overwrite either. */
  create(account: AccountRecord, key: { hash: string; hint: string }): Promise<void>;
}
