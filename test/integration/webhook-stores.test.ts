/** The webhook store contracts (test/contracts/webhook-stores.ts) on the DynamoDB adapters, against dynalite. */
import { afterAll, beforeAll } from 'vitest';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { dynamoDocumentClient, webhookStores } from '#shared/deps.ts';
import { config, requireSetting } from '#shared/config.ts';
import { TABLES } from '#functions/resources.ts';
import { dynamoAllowanceStore } from '#adapters/dynamodb-allowances.ts';
import { dynamoDeliveryStore } from '#adapters/dynamodb-deliveries.ts';
import { dynamoEndpointStore } from '#adapters/dynamodb-endpoints.ts';
import { answersLost } from '../helpers/answers-lost.ts';
import {
  allowanceStoreContract,
  deliveryStoreContract,
  detectionCursorStoreContract,
  endpointStoreContract,
  ruleStoreContract,
} from '../contracts/webhook-stores.ts';

let env: ScratchEmulators;
beforeAll(async () => {
  env = await startScratchEmulators();
});
afterAll(async () => {
  await env?.stop();
});

endpointStoreContract(
  () => webhookStores().endpoints,
  () =>
    dynamoEndpointStore({
      client: answersLost(dynamoDocumentClient()),
      tableName: requireSetting(config(), TABLES.webhooks.envVar),
    }),
);
ruleStoreContract(() => webhookStores().rules);
deliveryStoreContract(
  () => webhookStores().deliveries,
  () =>
    dynamoDeliveryStore({
      client: answersLost(dynamoDocumentClient()),
      tableName: requireSetting(config(), TABLES.webhooks.envVar),
    }),
);
allowanceStoreContract(
  () => webhookStores().allowances,
  () =>
    dynamoAllowanceStore({
      client: answersLost(dynamoDocumentClient()),
      tableName: requireSetting(config(), TABLES.webhooks.envVar),
    }),
);
detectionCursorStoreContract(() => webhookStores().detectionCursor);
