import type { Account } from '../core/accounts.ts';

export interface AccountStore {
  /** The account owning the key with this digest, or undefined for an unknown or revoked key. */
  findByKeyHash(keyHash: string): Promise<Account | undefined>;
  getAccount(id: string): Promise<Account | undefined>;
  /** Stores the account, then the key digest that resolves to it; refuses to overwrite either. */
  create(account: Account, key: { hash: string; hint: string }): Promise<void>;
}
