/**
 * `npm run keys -- create --plan build`: creates an account and prints its API key once.
 *   --target local (default) writes to the running local cloud (npm start);
 *   --target aws writes to the deployed accounts table (--table, or TABLE_ACCOUNTS) and attaches
 *     the account to its tier's usage plan (--usage-plan-id, from the stack output UsagePlanId<Tier>).
 */
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { createAccount, type UsageKeyRegistry } from '../functions/core/provisioning.ts';
import { isPlanName, PLAN_NAMES } from '../functions/core/plans.ts';
import { dynamoAccountStore } from '../functions/adapters/dynamodb-accounts.ts';
import { apiGatewayUsageKeys } from '../functions/adapters/apigateway-usage-keys.ts';
import { attachToRunningCloud } from '../functions/local/cloud.ts';
import { localSettings } from '../functions/local/settings.ts';
import { accountStore } from '../functions/shared/deps.ts';
import type { AccountStore } from '../functions/ports/accounts.ts';

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    plan: { type: 'string' },
    target: { type: 'string', default: 'local' },
    table: { type: 'string' },
    'usage-plan-id': { type: 'string' },
  },
});

if (positionals[0] !== 'create') fail('usage: npm run keys -- create --plan <free|build|pro|scale|enterprise> [--target local|aws]');
const plan = values.plan ?? '';
if (!isPlanName(plan)) fail(`--plan must be one of ${PLAN_NAMES.join(', ')}`);

let accounts: AccountStore;
let usageKeys: UsageKeyRegistry | undefined;
if (values.target === 'local') {
  try {
    attachToRunningCloud(localSettings().LOCAL_DATA_DIR);
  } catch (error) {
    fail((error as Error).message);
  }
  accounts = accountStore();
} else if (values.target === 'aws') {
  const table = values.table ?? process.env.TABLE_ACCOUNTS ?? fail('--table (or TABLE_ACCOUNTS) names the deployed accounts table');
  const usagePlanId = values['usage-plan-id'] ?? fail('--usage-plan-id is the stack output UsagePlanId<Tier> of this plan');
  accounts = dynamoAccountStore(DynamoDBDocumentClient.from(new DynamoDBClient({})), table);
  usageKeys = apiGatewayUsageKeys(new APIGatewayClient({}), { [plan]: usagePlanId });
} else {
  fail('--target must be local or aws');
}

const { account, apiKey } = await createAccount({ accounts, usageKeys, now: () => new Date() }, plan);
console.log(
  `account  ${account.id}\nplan     ${account.plan}\napi key  ${apiKey}\n\nThe key is shown once and stored only as a hash. Send it as the X-API-Key header.`,
);
