/**
 * Plan tiers and their allowances, as data. The CDK app makes one API Gateway usage plan per tier
 * from `rateLimit`; the local gateway throttles with the same numbers; the webhook routes enforce
 * the webhook allowances. Figures follow the real service's published plans
 * (reference-real-service.md sections 5.5 and 7).
 */
import { PLAN_NAMES, isPlanName, type PlanName } from '#schemas/plans.ts';

export { PLAN_NAMES, isPlanName, type PlanName };

export interface Plan {
  name: PlanName;
  /** Steady requests per second and burst, enforced by the gateway (429 `rate_limited`). */
  rateLimit: { rps: number; burst: number };
  /** Credits granted per calendar month; `null` means unmetered. */
  monthlyCredits: number | null;
  /** May run bulk export jobs (every plan may ask for a quote). */
  exportJobs: boolean;
  webhooks: {
    deliveryIncluded: boolean;
    /** `null` means agreed per account (enterprise). */
    endpoints: number | null;
    subscriptions: number | null;
    watchedAddresses: number | null;
    deliveriesPerDay: number | null;
  };
}

export const PLANS: Readonly<Record<PlanName, Plan>> = {
  free: {
    name: 'free',
    exportJobs: false,
    rateLimit: { rps: 15, burst: 30 },
    monthlyCredits: 50_000,
    webhooks: { deliveryIncluded: false, endpoints: 0, subscriptions: 0, watchedAddresses: 0, deliveriesPerDay: 0 },
  },
  build: {
    name: 'build',
    exportJobs: true,
    rateLimit: { rps: 50, burst: 100 },
    monthlyCredits: 80_000_000,
    webhooks: { deliveryIncluded: true, endpoints: 1, subscriptions: 8, watchedAddresses: 2, deliveriesPerDay: 5_000 },
  },
  pro: {
    name: 'pro',
    exportJobs: true,
    rateLimit: { rps: 150, burst: 300 },
    monthlyCredits: 400_000_000,
    webhooks: { deliveryIncluded: true, endpoints: 4, subscriptions: 40, watchedAddresses: 15, deliveriesPerDay: 50_000 },
  },
  scale: {
    name: 'scale',
    exportJobs: true,
    rateLimit: { rps: 500, burst: 1_000 },
    monthlyCredits: 2_000_000_000,
    webhooks: { deliveryIncluded: true, endpoints: 12, subscriptions: 200, watchedAddresses: 50, deliveriesPerDay: 500_000 },
  },
  enterprise: {
    name: 'enterprise',
    exportJobs: true,
    rateLimit: { rps: 1_000, burst: 2_000 },
    monthlyCredits: null,
    webhooks: { deliveryIncluded: true, endpoints: null, subscriptions: null, watchedAddresses: null, deliveriesPerDay: null },
  },
};
