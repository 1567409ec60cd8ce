import { describe, expect, it } from 'vitest';
import { dryRun, estimate } from '#core/detect/preview.ts';
import { SCAN_BUDGET_MS, type PreviewDeps } from '#core/detect/scan.ts';
import type { WebhookStores } from '#ports/webhooks.ts';

const T = Date.UTC(2026, 10, 21, 12, 0, 0);

/** A clock that reads `T` until the scan starts, then jumps past the scan budget. */
function deps(readsBeforeJump: number): PreviewDeps & { tokens: number } {
  let reads = 0;
  const state = { tokens: 0 };
  // Only what a preview touches before its scan: the watched list and the shared budget.
  const store = {
    rules: { listAddresses: async () => [] } as unknown as WebhookStores['rules'],
    allowances: {
      takeToken: async () => {
        state.tokens += 1;
        return true;
      },
    } as unknown as WebhookStores['allowances'],
  };
  return Object.assign(state, {
    store,
    clock: { now: () => (reads++ < readsBeforeJump ? T : T + SCAN_BUDGET_MS + 1) },
    // Never reached: the budget check comes first.
    archive: {} as PreviewDeps['archive'],
    breadth: {} as PreviewDeps['breadth'],
    references: {} as PreviewDeps['references'],
  });
}

describe('previews out of time', () => {
  it('answers 504 asking for a shorter lookback when the dry-run scan runs past its budget', async () => {
    const d = deps(2);
    await expect(dryRun(d, { id: 'acct', plan: 'free' }, { event_type: 'market.liquidation', lookback_s: 86_400 })).rejects.toMatchObject({
      code: 'scan_timeout',
      status: 504,
      message: expect.stringMatching(/shorter lookback_s/),
    });
    expect(d.tokens).toBe(1); // the call still counts against the shared budget
  });

  it('refuses an out-of-range lookback with 400 before spending any of the budget', async () => {
    const d = deps(99);
    await expect(dryRun(d, { id: 'acct', plan: 'free' }, { event_type: 'market.liquidation', lookback_s: 86_401 })).rejects.toMatchObject({
      status: 400,
      param: 'lookback_s',
    });
    await expect(estimate(d, { id: 'acct', plan: 'free' }, { event_type: 'market.liquidation', lookback_days: 31 })).rejects.toMatchObject({
      status: 400,
      param: 'lookback_days',
    });
    await expect(dryRun(d, { id: 'acct', plan: 'free' }, { event_type: 'market.liquidation', limit: 0 })).rejects.toMatchObject({
      status: 400,
      param: 'limit',
    });
    expect(d.tokens).toBe(0);
  });
});
