import { describe, expect, it } from 'vitest';
import { resolveApiKey, stageWideResource } from '#core/authorize.ts';
import { hashApiKey, mintApiKey } from '#core/api-keys.ts';
import type { AccountStore } from '#ports/accounts.ts';

const account = { id: 'acct_1', plan: 'build' as const, usageKey: 'usage_1', createdAt: '2026-11-21T00:00:00.000Z' };
const store = (known: string): AccountStore => ({
  findByKeyHash: async (hash) => (hash === hashApiKey(known) ? account : undefined),
  getAccount: async () => undefined,
  create: async () => undefined,
});

describe('resolveApiKey', () => {
  it('finds the account by the digest of the presented key, ignoring surrounding whitespace', async () => {
    await expect(resolveApiKey(store('mda_secret'), '  mda_secret ')).resolves.toEqual(account);
  });

  it('refuses a missing, empty, unknown or oversized key', async () => {
    const accounts = store('mda_secret');
    for (const presented of [undefined, '', '   ', 'mda_other', 'x'.repeat(300)]) {
      await expect(resolveApiKey(accounts, presented)).resolves.toBeUndefined();
    }
  });
});

describe('stageWideResource', () => {
  it('widens a method ARN to every method and path of the stage', () => {
    expect(stageWideResource('arn:aws:execute-api:eu-west-1:123:abc123/prod/GET/v1/perpx/trades/BTC')).toBe('arn:aws:execute-api:eu-west-1:123:abc123/prod/*');
  });
});

describe('mintApiKey', () => {
  it('mints distinct prefixed keys of 256 random bits', () => {
    const a = mintApiKey();
    const b = mintApiKey();
    expect(a).toMatch(/^mda_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(hashApiKey(a)).toMatch(/^[0-9a-f]{64}$/);
  });
});
