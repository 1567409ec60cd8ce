/**
 * What every backend of the account port (functions/ports/accounts.ts) and of the credit ledger
 * (functions/core/billing/credits.ts) must do. Each test works in accounts of its own.
 */
import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Account } from '#core/accounts.ts';
import type { CreditLedger } from '#core/billing/credits.ts';
import type { AccountStore } from '#ports/accounts.ts';

const digest = () => createHash('sha256').update(randomUUID()).digest('hex');
const account = (overrides: Partial<Account> = {}): Account => ({
  id: `acct_${randomUUID().slice(0, 8)}`,
  plan: 'build',
  usageKey: `u_${randomUUID().slice(0, 8)}`,
  createdAt: '2026-11-21T12:00:00.000Z',
  ...overrides,
});

export function accountStoreContract(store: () => AccountStore): void {
  describe('AccountStore', () => {
    it("finds an account by id and by its key's digest, and nothing for an unknown one", async () => {
      const plain = account();
      const enterprise = account({ plan: 'scale', monthlyCredits: 5_000_000 });
      const [key1, key2] = [digest(), digest()];
      await store().create(plain, { hash: key1, hint: 'mda_…a1' });
      await store().create(enterprise, { hash: key2, hint: 'mda_…b2' });
      expect(await store().getAccount(plain.id)).toEqual(plain);
      expect(await store().findByKeyHash(key1)).toEqual(plain);
      expect(await store().findByKeyHash(key2)).toEqual(enterprise);
      expect(await store().findByKeyHash(digest())).toBeUndefined();
      expect(await store().getAccount(`acct_${randomUUID()}`)).toBeUndefined();
    });

    it('refuses to overwrite an existing key digest or account, keeping what was stored', async () => {
      const first = account();
      const key = digest();
      await store().create(first, { hash: key, hint: 'x' });
      await expect(store().create(account(), { hash: key, hint: 'x' })).rejects.toThrow();
      expect(await store().findByKeyHash(key)).toEqual(first);
      await expect(store().create({ ...first, plan: 'scale' }, { hash: digest(), hint: 'y' })).rejects.toThrow();
      expect(await store().getAccount(first.id)).toEqual(first);
    });
  });
}

/** `answersLost`, when given: the ledger over a client that sends every write again after it landed (the SDK, its answer lost). */
export function creditLedgerContract(ledger: () => CreditLedger, answersLost?: () => CreditLedger): void {
  describe('CreditLedger', () => {
    it('adds every concurrent debit exactly once, each seeing the running total it moved, per month', async () => {
      const id = `acct_${randomUUID().slice(0, 8)}`;
      expect(await ledger().used(id, '2026-11')).toBe(0);
      const debits = await Promise.all([5, 1, 7, 3, 2].map((n) => ledger().debit(id, '2026-11', n)));
      for (const [i, d] of debits.entries()) expect(d.after - d.before).toBe([5, 1, 7, 3, 2][i]);
      // The debits, in the order they were applied, tile [0, 18] without a gap or an overlap.
      const applied = [...debits].sort((x, y) => x.before - y.before);
      applied.forEach((d, i) => {
        expect(d.before).toBe(i === 0 ? 0 : applied[i - 1]!.after);
      });
      expect(applied.at(-1)!.after).toBe(18);
      expect(await ledger().used(id, '2026-11')).toBe(18);
      expect(await ledger().debit(id, '2026-12', 4)).toEqual({ before: 0, after: 4 });
      expect(await ledger().used(id, '2026-11')).toBe(18);
      expect(await ledger().used(`acct_${randomUUID()}`, '2026-11')).toBe(0);
    });

    if (answersLost) {
      it('debits once when each debit lands and the SDK sends it again, its answer lost', async () => {
        const id = `acct_${randomUUID().slice(0, 8)}`;
        const debits = await Promise.all([5, 1, 7].map((n) => answersLost().debit(id, '2026-11', n)));
        expect(debits.map((d) => d.after - d.before)).toEqual([5, 1, 7]);
        expect(await ledger().used(id, '2026-11')).toBe(13);
        await answersLost().debit(id, '2026-11', -1);
        expect(await ledger().used(id, '2026-11')).toBe(12);
      });
    }
  });
}
