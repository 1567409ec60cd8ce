import { describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { APIGatewayClient, CreateApiKeyCommand, CreateUsagePlanKeyCommand } from '@aws-sdk/client-api-gateway';
import { apiGatewayUsageKeys } from '#adapters/apigateway-usage-keys.ts';
import { createAccount } from '#core/provisioning.ts';
import type { AccountStore } from '#ports/accounts.ts';

// No emulator speaks the API Gateway control plane, so this adapter is checked against a mocked client.
describe("registering an account with its tier's usage plan", () => {
  it("creates a gateway key holding the account's usage key (not its secret) and attaches it to the plan", async () => {
    // Prepare
    const gateway = mockClient(APIGatewayClient);
    gateway.on(CreateApiKeyCommand).resolves({ id: 'key-123' });
    gateway.on(CreateUsagePlanKeyCommand).resolves({});
    const stored: unknown[] = [];
    const accounts: AccountStore = {
      findByKeyHash: async () => undefined,
      getAccount: async () => undefined,
      create: async (...args) => {
        stored.push(args);
      },
    };
    // Act
    const { account, apiKey } = await createAccount(
      { accounts, usageKeys: apiGatewayUsageKeys(new APIGatewayClient({ region: 'us-east-1' }), { pro: 'plan-pro' }), now: () => new Date(0) },
      'pro',
    );
    // Assess
    expect(gateway.commandCalls(CreateApiKeyCommand)[0]!.args[0].input).toEqual({ name: account.id, value: account.usageKey, enabled: true });
    expect(gateway.commandCalls(CreateUsagePlanKeyCommand)[0]!.args[0].input).toEqual({ usagePlanId: 'plan-pro', keyId: 'key-123', keyType: 'API_KEY' });
    expect(JSON.stringify(gateway.calls().map((c) => c.args[0].input))).not.toContain(apiKey);
    expect(stored).toHaveLength(1);
  });

  it('stores nothing when the gateway refuses the key', async () => {
    const gateway = mockClient(APIGatewayClient);
    gateway.on(CreateApiKeyCommand).rejects(new Error('TooManyRequestsException'));
    const stored: unknown[] = [];
    const accounts: AccountStore = {
      findByKeyHash: async () => undefined,
      getAccount: async () => undefined,
      create: async (...args) => {
        stored.push(args);
      },
    };
    await expect(
      createAccount(
        { accounts, usageKeys: apiGatewayUsageKeys(new APIGatewayClient({ region: 'us-east-1' }), { build: 'plan-build' }), now: () => new Date() },
        'build',
      ),
    ).rejects.toThrow('TooManyRequestsException');
    expect(stored).toEqual([]);
  });
});
