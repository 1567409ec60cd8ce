/** The webhook store contracts (test/contracts/webhook-stores.ts) on the DynamoDB adapters, against dynalite. */
import { afterAll, beforeAll } from 'vitest';
import { startScratchEmulators, type ScratchEmulators } from '../../functions/local/scratch-emulators.ts';
import { webhookStores } from '../../functions/shared/deps.ts';
import {
  allowanceStoreContract, deliveryStoreContract, detectionCursorStoreContract, endpointStoreContract, ruleStoreContract,
} from '../contracts/webhook-stores.ts';

let env: ScratchEmulators;
beforeAll(async () => { env = await startScratchEmulators(); });
afterAll(async () => { await env?.stop(); });

endpointStoreContract(() => webhookStores().endpoints);
ruleStoreContract(() => webhookStores().rules);
deliveryStoreContract(() => webhookStores().deliveries);
allowanceStoreContract(() => webhookStores().allowances);
detectionCursorStoreContract(() => webhookStores().detectionCursor);
