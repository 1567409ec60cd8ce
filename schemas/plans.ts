/** The plan tiers by name, which configuration and records are validated against; their allowances are core/plans.ts. */
export const PLAN_NAMES = ['free', 'build', 'pro', 'scale', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export function isPlanName(value: string): value is PlanName {
  return (PLAN_NAMES as readonly string[]).includes(value);
}
