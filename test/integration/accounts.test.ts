import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { createAccount } from '#core/provisioning.ts';
import { hashApiKey } from '#core/api-keys.ts';
import { accountStore } from '#shared/deps.ts';
import { seedLocalAccounts, localAccountId } from '#local/accounts.ts';
import { invoke } from '#local/invoke.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';

let env: ScratchEmulators;
beforeAll(async () => {
  env = await startScratchEmulators();
});
afterAll(async () => {
  await env?.stop();
});

const methodArn = 'arn:aws:execute-api:us-east-1:000000000000:api123/prod/GET/v1/perpx/trades/BTC';
const authorizerEvent = (headers: Record<string, string>) => ({ type: 'REQUEST', methodArn, headers, resource: '/', path: '/', httpMethod: 'GET' });

describe('accounts in DynamoDB', () => {
  it('stores only the digest of a new key and resolves the key to its account', async () => {
    // Act
    const { account, apiKey } = await createAccount({ accounts: accountStore(), now: () => new Date() }, 'pro');
    // Assess
    await expect(accountStore().findByKeyHash(hashApiKey(apiKey))).resolves.toEqual(account);
    const scan = await env.dynamo.send(new ScanCommand({ TableName: env.emulators.names.tables.accounts }));
    expect(JSON.stringify(scan.Items)).not.toContain(apiKey);
  });

  it('seeds the local keys and revokes seeded keys no longer listed', async () => {
    const table = env.emulators.names.tables.accounts;
    await seedLocalAccounts(env.dynamo, table, [
      { key: 'old-local-key', plan: 'build' },
      { key: 'kept-local-key', plan: 'free' },
    ]);
    await seedLocalAccounts(env.dynamo, table, [{ key: 'kept-local-key', plan: 'scale' }]);
    await expect(accountStore().findByKeyHash(hashApiKey('old-local-key'))).resolves.toBeUndefined();
    await expect(accountStore().findByKeyHash(hashApiKey('kept-local-key'))).resolves.toMatchObject({ id: localAccountId('kept-local-key'), plan: 'scale' });
  });
});

describe('the authorizer handler', () => {
  it('allows a known key for the whole stage with the account in its context', async () => {
    const { account, apiKey } = await createAccount({ accounts: accountStore(), now: () => new Date() }, 'build');
    const result = (await invoke('authorizer', authorizerEvent({ 'x-api-key': apiKey }))) as APIGatewayAuthorizerResult;
    expect(result).toMatchObject({
      principalId: account.id,
      context: { account_id: account.id, plan: 'build' },
      usageIdentifierKey: account.usageKey,
      policyDocument: { Statement: [{ Effect: 'Allow', Resource: 'arn:aws:execute-api:us-east-1:000000000000:api123/prod/*' }] },
    });
  });

  it('throws Unauthorized for a missing or unknown key', async () => {
    await expect(invoke('authorizer', authorizerEvent({}))).rejects.toThrow(/^Unauthorized$/);
    await expect(invoke('authorizer', authorizerEvent({ 'X-API-Key': 'mda_not_a_key' }))).rejects.toThrow(/^Unauthorized$/);
  });

  it('does not find a key item once it is revoked', async () => {
    const { apiKey } = await createAccount({ accounts: accountStore(), now: () => new Date() }, 'build');
    const table = env.emulators.names.tables.accounts;
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    await env.dynamo.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: `KEY#${hashApiKey(apiKey)}`, sk: 'KEY' },
        UpdateExpression: 'SET revoked_at = :t',
        ExpressionAttributeValues: { ':t': 'now' },
      }),
    );
    await expect(invoke('authorizer', authorizerEvent({ 'X-API-Key': apiKey }))).rejects.toThrow(/^Unauthorized$/);
    const item = await env.dynamo.send(new GetCommand({ TableName: table, Key: { pk: `KEY#${hashApiKey(apiKey)}`, sk: 'KEY' } }));
    expect(item.Item?.revoked_at).toBe('now');
  });
});
