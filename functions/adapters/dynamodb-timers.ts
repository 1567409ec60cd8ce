/**
 * Timers table layout: `DUE#<minute epoch ms>`/`<dueAt, 15 digits>#<id>` per parked message, and
 * one `CURSOR`/`CURSOR` item holding the oldest minute that may still hold timers.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { minuteOf } from '../core/timers.ts';
import type { QueueName } from '../resources.ts';
import type { Timer, TimerStore } from '../ports/timers.ts';

const CURSOR_KEY = { pk: 'CURSOR', sk: 'CURSOR' };
const sortKey = (timer: Pick<Timer, 'dueAt' | 'id'>) => `${String(timer.dueAt).padStart(15, '0')}#${timer.id}`;

async function ignoringConditionFailure(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

export function dynamoTimerStore(client: DynamoDBDocumentClient, tableName: string): TimerStore {
  return {
    async park(timer) {
      const minute = minuteOf(timer.dueAt);
      await client.send(new PutCommand({
        TableName: tableName,
        Item: { pk: `DUE#${minute}`, sk: sortKey(timer), id: timer.id, queue: timer.queue, body: timer.body, due_at: timer.dueAt },
      }));
      // Pull the cursor back to this minute if it is ahead of it (or create it).
      await ignoringConditionFailure(client.send(new UpdateCommand({
        TableName: tableName,
        Key: CURSOR_KEY,
        UpdateExpression: 'SET minute_ms = :m',
        ConditionExpression: 'attribute_not_exists(minute_ms) OR minute_ms > :m',
        ExpressionAttributeValues: { ':m': minute },
      })));
    },

    async listDue(minute, until, limit) {
      if (limit <= 0) return [];
      const result = await client.send(new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk < :until',
        ExpressionAttributeValues: { ':pk': `DUE#${minute}`, ':until': `${String(until + 1).padStart(15, '0')}#` },
        Limit: limit,
        ConsistentRead: true,
      }));
      return (result.Items ?? []).map((item) => ({
        id: String(item.id),
        queue: item.queue as QueueName,
        body: String(item.body),
        dueAt: Number(item.due_at),
      }));
    },

    async remove(timer) {
      await client.send(new DeleteCommand({ TableName: tableName, Key: { pk: `DUE#${minuteOf(timer.dueAt)}`, sk: sortKey(timer) } }));
    },

    async readCursor() {
      const result = await client.send(new GetCommand({ TableName: tableName, Key: CURSOR_KEY, ConsistentRead: true }));
      return typeof result.Item?.minute_ms === 'number' ? result.Item.minute_ms : undefined;
    },

    async advanceCursor(minute) {
      await ignoringConditionFailure(client.send(new UpdateCommand({
        TableName: tableName,
        Key: CURSOR_KEY,
        UpdateExpression: 'SET minute_ms = :m',
        ConditionExpression: 'minute_ms < :m',
        ExpressionAttributeValues: { ':m': minute },
      })));
    },
  };
}
