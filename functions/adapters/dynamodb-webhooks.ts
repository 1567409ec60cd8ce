/**
 * Webhook state in one DynamoDB table, one partition per account (so another account's ids are
 * simply not found), served by one store per concern:
 *   ACCT#<account> / EP#<id>      an endpoint                                     dynamodb-endpoints.ts
 *   ACCT#<account> / SUB#<id>     a subscription (gsi1: RULES#<event type>)       dynamodb-rules.ts
 *   ACCT#<account> / ADDR#<addr>  a watched address (lowercase)                   dynamodb-rules.ts
 *   ACCT#<account> / DLV#<id>     a delivery's state (gsi2 while due), 30 days     dynamodb-deliveries.ts
 *   ACCT#<account> / DLV#<id>#E   its envelope (gsi1: EPD#<endpoint>), 30 days    dynamodb-deliveries.ts
 *   ACCT#<account> / USAGE        allowance counters                              dynamodb-allowances.ts
 *   ACCT#<account> / DAY#<date>   deliveries counted at queue time that UTC day   dynamodb-allowances.ts
 *   ACCT#<account> / QUEUING      the lease of whoever creates its deliveries     dynamodb-deliveries.ts
 *   ACCT#<account> / PREVIEW#<minute>  estimate and dry-run calls that minute     dynamodb-allowances.ts
 *   SYSTEM / DETECT#CURSOR        the minute detection job's cursor               dynamodb-detection-cursor.ts
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { WebhookStores } from '../ports/webhooks.ts';
import { dynamoAllowanceStore } from './dynamodb-allowances.ts';
import { dynamoDeliveryStore } from './dynamodb-deliveries.ts';
import { dynamoDetectionCursorStore } from './dynamodb-detection-cursor.ts';
import { dynamoEndpointStore } from './dynamodb-endpoints.ts';
import { dynamoRuleStore } from './dynamodb-rules.ts';

export function dynamoWebhookStores(client: DynamoDBDocumentClient, tableName: string): WebhookStores {
  const table = { client, tableName };
  return {
    endpoints: dynamoEndpointStore(table),
    rules: dynamoRuleStore(table),
    deliveries: dynamoDeliveryStore(table),
    allowances: dynamoAllowanceStore(table),
    detectionCursor: dynamoDetectionCursorStore(table),
  };
}
