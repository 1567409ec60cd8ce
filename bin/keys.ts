/**
 * `npm run keys -- create --plan build`: creates an account and prints its API key once.
 *   --target local (default) writes to the running local cloud (npm start);
 *   --target aws writes to the deployed accounts table (--table, or TABLE_ACCOUNTS) and attaches
 *     the account to its tier's usage plan (--usage-plan-id, from the stack output UsagePlanId<Tier>).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { createAccount, type UsageKeyRegistry } from '../functions/core/accounts.ts';
import { isPlanName, PLAN_NAMES } from '../functions/core/plans.ts';
import { dynamoAccountStore } from '../functions/adapters/dynamodb-accounts.ts';
import { apiGatewayUsageKeys } from '../functions/adapters/apigateway-usage-keys.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../functions/local/emulators.ts';
import { localSettings } from '../functions/local/settings.ts';

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

let client: DynamoDBClient;
let table: string;
let usageKeys: UsageKeyRegistry | undefined;
if (values.target === 'local') {
  const statePath = join(localSettings().LOCAL_DATA_DIR, 'local-cloud.json');
  let state: { endpoints: { dynamodb: string }; names: { tables: { accounts: string } } };
  try {
    state = JSON.parse(readFileSync(statePath, 'utf8'));
  } catch {
    fail(`No running local cloud found (${statePath}). Start it with npm start, then run this again.`);
  }
  client = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: state.endpoints.dynamodb });
  table = state.names.tables.accounts;
} else if (values.target === 'aws') {
  table = values.table ?? process.env.TABLE_ACCOUNTS ?? fail('--table (or TABLE_ACCOUNTS) names the deployed accounts table');
  const usagePlanId = values['usage-plan-id'] ?? fail('--usage-plan-id is the stack output UsagePlanId<Tier> of this plan');
  client = new DynamoDBClient({});
  usageKeys = apiGatewayUsageKeys(new APIGatewayClient({}), { [plan]: usagePlanId });
} else {
  fail('--target must be local or aws');
}

const { account, apiKey } = await createAccount(
  { accounts: dynamoAccountStore(DynamoDBDocumentClient.from(client), table), usageKeys, now: () => new Date() },
  plan,
);
console.log(`account  ${account.id}\nplan     ${account.plan}\napi key  ${apiKey}\n\nThe key is shown once and stored only as a hash. Send it as the X-API-Key header.`);
client.destroy();
