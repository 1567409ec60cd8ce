/**
 * One usage plan per plan tier, throttled with the tier's rate limit. Accounts' keys are attached
 * by the keys CLI, which finds each plan through the API stack's `UsagePlanId<Tier>` outputs.
 */
import type { RestApi, UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import { PLANS, type PlanName } from '#core/plans.ts';
import { mapRecord } from '../typed-records.ts';

export function addUsagePlans(api: RestApi): Record<PlanName, UsagePlan> {
  return mapRecord(PLANS, (tier, plan) =>
    // No quota: monthly credits are metered per request weight by the service, not by call count.
    api.addUsagePlan(`usage-plan-${tier}`, {
      name: tier,
      description: `${tier} plan: ${plan.rateLimit.rps} requests/s, burst ${plan.rateLimit.burst}`,
      throttle: { rateLimit: plan.rateLimit.rps, burstLimit: plan.rateLimit.burst },
      apiStages: [{ api, stage: api.deploymentStage }],
    }),
  );
}
