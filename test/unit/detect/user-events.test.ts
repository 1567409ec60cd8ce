import { describe, expect, it } from 'vitest';
import { userEventCandidate } from '#core/detect/user-events.ts';
import { matches } from '#core/detect/match.ts';
import { EVENT_TYPE_BY_NAME } from '#core/webhooks/catalog.ts';
import { normalizeConfig } from '#core/webhooks/filters.ts';

const AT = Date.UTC(2026, 10, 21, 12, 0, 0);

describe('userEventCandidate', () => {
  it('turns an export job event into export.job.completed or .failed for that account only, keyed by job and outcome', () => {
    const done = userEventCandidate({
      type: 'export.job.v1',
      account_id: 'acct_1',
      job_id: 'job_9',
      status: 'completed',
      api_url: '/v1/exports/job_9',
      at: AT,
    });
    const failed = userEventCandidate({
      type: 'export.job.v1',
      account_id: 'acct_1',
      job_id: 'job_9',
      status: 'failed',
      error_message: 'disk full',
      api_url: '/v1/exports/job_9',
      at: AT,
    });

    expect(done).toMatchObject({
      type: 'export.job.completed',
      accountId: 'acct_1',
      key: 'export:job_9:completed',
      data: { job_id: 'job_9', api_url: '/v1/exports/job_9' },
    });
    expect(failed).toMatchObject({ type: 'export.job.failed', data: { error_message: 'disk full' } });
    expect(done.key).not.toBe(failed.key);
  });

  it('fires billing.credit_low only for rules that list the level reached', () => {
    const decl = EVENT_TYPE_BY_NAME.get('billing.credit_low')!;
    const level = (pct: number) =>
      userEventCandidate({
        type: 'billing.credit_low.v1',
        account_id: 'a',
        month: '2026-11',
        level_pct: pct,
        credits_remaining: 1,
        credits_limit: 100,
        at: AT,
      });

    expect(matches(decl, normalizeConfig(decl, {}, new Set()), level(25))).toBe(true);
    expect(matches(decl, normalizeConfig(decl, {}, new Set()), level(24))).toBe(false);
    expect(matches(decl, normalizeConfig(decl, { levels_pct: [50] }, new Set()), level(50))).toBe(true);
  });
});
