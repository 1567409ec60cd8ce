/**
 * API Gateway usage-plan keys. With `apiKeySource: AUTHORIZER` the gateway throttles a request under
 * the key the authorizer returns as `usageIdentifierKey`, so each account gets its own gateway key
 * (not the client's secret) attached to its tier's usage plan: the throttle is per account.
 */
import { type APIGatewayClient, CreateApiKeyCommand, CreateUsagePlanKeyCommand } from '@aws-sdk/client-api-gateway';
import type { UsageKeyRegistry } from '../core/provisioning.ts';
import type { PlanName } from '../core/plans.ts';

export function apiGatewayUsageKeys(client: APIGatewayClient, usagePlanIds: Partial<Record<PlanName, string>>): UsageKeyRegistry {
  return {
    async register(account) {
      const usagePlanId = usagePlanIds[account.plan];
      if (!usagePlanId) throw new Error(`No usage plan id for plan ${account.plan}`);
      const key = await client.send(new CreateApiKeyCommand({ name: account.id, value: account.usageKey, enabled: true }));
      await client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: key.id, keyType: 'API_KEY' }));
    },
  };
}
