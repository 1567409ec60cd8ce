/**
 * Credits: each account has its plan's monthly allowance (calendar month, UTC), and the data routes
 * debit it as the specification prices rows: 1 credit per 1,000 rows returned, at least 1 per
 * request. Webhook deliveries cost nothing. When a debit takes the remaining share of the month's
 * allowance down past whole percents, the crossings are announced as user events, from which
 * `billing.credit_low` rules fire at their configured levels.
 */
import { PLANS } from '../plans.ts';
import type { Caller } from '../accounts.ts';
import type { Clock } from '#ports/clock.ts';
import type { UserEventMessage } from '#schemas/messages.ts';

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
  const month = monthOf(deps.clock.now());
  // A route may price its rows higher (altx book history at finer granularities).
  await announceCrossings(deps, account, month, [await deps.ledger.debit(account.id, month, creditsFor(rows) * multiplier)]);
}

export interface PendingCharge {
  /** Debits what the request's rows cost beyond the minimum already debited, then announces the levels reached. */
  settle(rows: number, multiplier?: number): Promise<void>;
  /** The request failed: the minimum debited up front is given back, and nothing is announced. */
  cancel(): Promise<void>;
}

/**
 * A request's debit, begun before its rows are known so the ledger's round trip overlaps the read:
 * the minimum every request costs is debited at once, the rest once the rows are counted, and the
 * levels reached are announced only then. The month's total is the same as `chargeRequest`'s; a
 * request that fails is not charged (its minimum is credited back).
 */
export function beginCharge(deps: ChargeDeps, account: Caller): PendingCharge {
  const month = monthOf(deps.clock.now());
  const upfront = deps.ledger.debit(account.id, month, MINIMUM_CREDITS_PER_REQUEST);
  // Awaited by settle or cancel; a failure must not surface as an unhandled rejection meanwhile.
  upfront.catch(() => undefined);
  return {
    async settle(rows, multiplier = 1) {
      const first = await upfront;
      const rest = creditsFor(rows) * multiplier - MINIMUM_CREDITS_PER_REQUEST;
      const debits = rest === 0 ? [first] : [first, await deps.ledger.debit(account.id, month, rest)];
      await announceCrossings(deps, account, month, debits);
    },
    async cancel() {
      await upfront;
      await deps.ledger.debit(account.id, month, -MINIMUM_CREDITS_PER_REQUEST);
    },
  };
}

/** Announces the whole-percent levels the debits took the account's remaining credits to (none on an unmetered plan). */
async function announceCrossings(deps: ChargeDeps, account: Caller, month: string, debits: readonly { before: number; after: number }[]): Promise<void> {
  const allowance = account.monthlyCredits ?? PLANS[account.plan].monthlyCredits;
  if (allowance === null) return;
  const at = deps.clock.now();
  for (const { before, after } of debits) {
    for (const level of crossedLevels(before, after, allowance)) {
      await deps.announce({
        type: 'billing.credit_low.v1',
        account_id: account.id,
        month,
        level_pct: level,
        credits_remaining: Math.max(0, allowance - after),
        credits_limit: allowance,
        at,
      });
    }
  }
}
