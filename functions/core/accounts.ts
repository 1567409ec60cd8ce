/** The one account type: the owner of API keys, credits and webhook rules, and the caller of a request. */
import type { PlanName } from './plans.ts';

export interface Account {
  id: string;
  plan: PlanName;
  /** Credits a month agreed for this account, instead of its plan's (enterprise deals, the local demo). */
  monthlyCredits?: number;
  /**
   * The API Gateway usage-plan key this account is throttled under (returned by the authorizer as
   * `usageIdentifierKey`). It is not a secret: clients never send it.
   */
  usageKey: string;
  createdAt: string;
}

/** The account as a request knows it: what the authorizer passes on to the route's function. */
export type Caller = Pick<Account, 'id' | 'plan' | 'monthlyCredits'>;
