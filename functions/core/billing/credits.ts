/**
 * Credits: each account has its plan's monthly allowance (calendar month, UTC), and the data routes
 * debit it as the specification prices rows: 1 credit per 1,000 rows returned, at least 1 per
 * request. Webhook deliveries cost nothing. When a debit takes the remaining share of the month's
 * allowance down past whole percents, the crossings are announced as user events, from which
 * `billing.credit_low` rules fire at their configured levels.
 */
import { PLANS } from '../plans.ts';
import type { Caller } from '../accounts.ts';
import type { Clock } from '../../ports/clock.ts';
import type { UserEventMessage } from '../../../schemas/messages.ts';

export const ROWS_PER_CREDIT = 1_000;
export const MINIMUM_CREDITS_PER_REQUEST = 1;

export function creditsFor(rows: number): number {
  return Math.max(MINIMUM_CREDITS_PER_REQUEST, Math.ceil(rows / ROWS_PER_CREDIT));
}

export interface CreditLedger {
  /** Adds `credits` to the account's use in `month` (YYYY-MM); returns the use before and after. */
  debit(accountId: string, month: string, credits: number): Promise<{ before: number; after: number }>;
  used(accountId: string, month: string): Promise<number>;
}

export interface ChargeDeps {
  ledger: CreditLedger;
  clock: Clock;
  /** Announces a crossing (the notify function turns it into deliveries). */
  announce: (event: UserEventMessage) => Promise<void>;
}

export const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/** The remaining share rounded up: level 25 is reached when 25% or less remains (25.4% has not yet). */
const remainingLevel = (used: number, allowance: number) => Math.max(0, Math.ceil(((allowance - used) / allowance) * 100));

/** The whole-percent levels a debit from `before` to `after` used credits reached (highest first). */
export function crossedLevels(before: number, after: number, allowance: number): number[] {
  const levels: number[] = [];
  for (let level = remainingLevel(before, allowance) - 1; level >= remainingLevel(after, allowance); level -= 1) levels.push(level);
  return levels;
}

/** Debits one request's rows; an unmetered plan (enterprise) is counted but never runs low. */
export async function chargeRequest(deps: ChargeDeps, account: Caller, rows: number, multiplier = 1): Promise<void> {
  const now = deps.clock.now();
  const month = monthOf(now);
  // A route may price its rows higher (altx book history at finer granularities).
  const credits = creditsFor(rows) * multiplier;
  const { before, after } = await deps.ledger.debit(account.id, month, credits);
  const allowance = account.monthlyCredits ?? PLANS[account.plan].monthlyCredits;
  if (allowance === null) return;
  for (const level of crossedLevels(before, after, allowance)) {
    await deps.announce({
      type: 'billing.credit_low.v1', account_id: account.id, month, level_pct: level,
      credits_remaining: Math.max(0, allowance - after), credits_limit: allowance, at: now,
    });
  }
}
