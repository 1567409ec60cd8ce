import { describe, expect, it } from 'vitest';
import { beginCharge, chargeRequest, creditsFor, crossedLevels, type CreditLedger } from '#core/billing/credits.ts';
import type { UserEventMessage } from '#schemas/messages.ts';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

function ledgerAt(used: number): CreditLedger {
  let total = used;
  return {
    async debit(_account, _month, credits) {
      total += credits;
      return { before: total - credits, after: total };
    },
    async used() {
      return total;
    },
  };
}

describe('creditsFor', () => {
  it('charges 1 credit per 1,000 rows, at least 1 per request', () => {
    expect([0, 1, 1_000, 1_001, 10_000].map(creditsFor)).toEqual([1, 1, 1, 2, 10]);
  });
});

describe('crossedLevels', () => {
  it('reaches a level when that share or less remains, and lists every level a large debit passes', () => {
    expect(crossedLevels(59_999_999, 60_000_000, 80_000_000)).toEqual([25]);
    expect(crossedLevels(59_000_000, 59_999_999, 80_000_000)).toEqual([26]);
    expect(crossedLevels(59_999_000, 59_999_999, 80_000_000)).toEqual([]);
    expect(crossedLevels(70_000_000, 73_000_000, 80_000_000)).toEqual([12, 11, 10, 9]);
    expect(crossedLevels(79_999_999, 80_000_005, 80_000_000)).toEqual([0]);
    expect(crossedLevels(0, 1, 80_000_000)).toEqual([]);
  });
});

describe('chargeRequest', () => {
  it('announces each level reached with what remains, and nothing for an unmetered plan', async () => {
    const announced: UserEventMessage[] = [];
    const deps = (used: number) => ({
      ledger: ledgerAt(used),
      clock: { now: () => NOW },
      announce: async (e: UserEventMessage) => {
        announced.push(e);
      },
    });

    await chargeRequest(deps(59_999_999), { id: 'acct_1', plan: 'build' }, 500);
    await chargeRequest(deps(10_000_000_000), { id: 'acct_2', plan: 'enterprise' }, 500);

    expect(announced).toEqual([
      {
        type: 'billing.credit_low.v1',
        account_id: 'acct_1',
        month: '2026-11',
        level_pct: 25,
        credits_remaining: 20_000_000,
        credits_limit: 80_000_000,
        at: NOW,
      },
    ]);
  });

  it("uses the account's own monthly credits when it has them instead of the plan's", async () => {
    const announced: UserEventMessage[] = [];
    const deps = {
      ledger: ledgerAt(374),
      clock: { now: () => NOW },
      announce: async (e: UserEventMessage) => {
        announced.push(e);
      },
    };

    await chargeRequest(deps, { id: 'acct_3', plan: 'pro', monthlyCredits: 500 }, 10);

    expect(announced.map((e) => e.type === 'billing.credit_low.v1' && [e.level_pct, e.credits_remaining, e.credits_limit])).toEqual([[25, 125, 500]]);
  });
});

describe('beginCharge', () => {
  const deps = (ledger: CreditLedger, announced: UserEventMessage[]) => ({
    ledger,
    clock: { now: () => NOW },
    announce: async (e: UserEventMessage) => {
      announced.push(e);
    },
  });

  it('debits the minimum before the rows are known, and in all what chargeRequest debits, announcing the same levels', async () => {
    for (const [rows, multiplier] of [
      [0, 1],
      [1_000, 1],
      [2_500, 1],
      [2_500, 3],
      [80_000_000, 1],
    ] as const) {
      const [one, two] = [ledgerAt(59_999_000), ledgerAt(59_999_000)];
      const once: UserEventMessage[] = [];
      const begun: UserEventMessage[] = [];
      await chargeRequest(deps(one, once), { id: 'acct_1', plan: 'build' }, rows, multiplier);
      const pending = beginCharge(deps(two, begun), { id: 'acct_1', plan: 'build' });
      // The minimum is on the ledger while the route is still reading.
      expect(await two.used('acct_1', '2026-11')).toBe(59_999_001);
      expect(begun).toEqual([]);
      await pending.settle(rows, multiplier);
      expect(await two.used('acct_1', '2026-11'), `${rows} rows x${multiplier}`).toBe(await one.used('acct_1', '2026-11'));
      expect(begun, `${rows} rows x${multiplier}`).toEqual(once);
    }
  });

  it('gives the minimum back and announces nothing when the request fails', async () => {
    const ledger = ledgerAt(59_999_999);
    const announced: UserEventMessage[] = [];
    const pending = beginCharge(deps(ledger, announced), { id: 'acct_1', plan: 'build' });
    await pending.cancel();
    expect(await ledger.used('acct_1', '2026-11')).toBe(59_999_999);
    expect(announced).toEqual([]);
  });
});
