/** The minute detection job's cursor in the webhooks table: `SYSTEM / DETECT#CURSOR`, epoch ms in `at`. */
import * as v from 'valibot';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DetectionCursorStore } from '../ports/webhooks.ts';
import { applied, getItem, type WebhookTable } from './dynamodb-webhook-table.ts';
import { parseItem } from './stored-item.ts';

const KEY = { pk: 'SYSTEM', sk: 'DETECT#CURSOR' };
const CursorItem = v.object({ at: v.number() });

export function dynamoDetectionCursorStore(table: WebhookTable): DetectionCursorStore {
  return {
    async read() {
      const item = await getItem(table, KEY.pk, KEY.sk);
      return item ? parseItem(CursorItem, table.tableName, item).at : undefined;
    },
    async write(at) {
      // Never backwards: an overlapping late run must not make the next one repeat a window.
      await applied(
        table.client.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: KEY,
            UpdateExpression: 'SET #at = :at',
            ConditionExpression: 'attribute_not_exists(#at) OR #at < :at',
            ExpressionAttributeNames: { '#at': 'at' },
            ExpressionAttributeValues: { ':at': at },
          }),
        ),
      );
    },
  };
}
