/**
 * Timers table layout: `DUE#<minute epoch ms>`/`<dueAt, 15 digits>#<id>` per parked message, and
 * one `CURSOR`/`CURSOR` item holding the oldest minute that may still hold timers.
 */
import * as v from 'valibot';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CURSOR_TRAIL_MS, minuteOf } from '../core/timers.ts';
import { QUEUE_NAMES } from '../resources.ts';
import type { Timer, TimerStore } from '../ports/timers.ts';
import { parseItem } from './stored-item.ts';

const CURSOR_KEY = { pk: 'CURSOR', sk: 'CURSOR' };
const sortKey = (timer: Pick<Timer, 'dueAt' | 'id'>) => `${String(timer.dueAt).padStart(15, '0')}#${timer.id}`;

async function ignoringConditionFailure(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

const TimerItem = v.object({ id: v.string(), queue: v.picklist(QUEUE_NAMES), body: v.string(), due_at: v.number() });
const CursorItem = v.object({ minute_ms: v.number() });

/** BatchWriteItem takes at most this many requests. */
const BATCH_WRITE = 25;

export function dynamoTimerStore(client: DynamoDBDocumentClient, tableName: string): TimerStore {
  // Once this container has seen the cursor exist it never needs creating again (it is never deleted).
  let cursorExists = false;
  return {
    async park(timer, parkedAt) {
      const minute = minuteOf(timer.dueAt);
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: { pk: `DUE#${minute}`, sk: sortKey(timer), id: timer.id, queue: timer.queue, body: timer.body, due_at: timer.dueAt },
        }),
      );
      // The cursor trails the clock by a minute, so a timer due later than that is never behind it:
      // only the first park of a container (which may create it) and a timer already due write it.
      const trailing = minuteOf(parkedAt) - CURSOR_TRAIL_MS;
      if (cursorExists && minute >= trailing) return;
      await ignoringConditionFailure(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: CURSOR_KEY,
            UpdateExpression: 'SET minute_ms = :m',
            ConditionExpression: 'attribute_not_exists(minute_ms) OR minute_ms > :m',
            ExpressionAttributeValues: { ':m': Math.min(minute, trailing) },
          }),
        ),
      );
      cursorExists = true;
    },

    async listDue(minute, until, limit) {
      if (limit <= 0) return [];
      const result = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk < :until',
          ExpressionAttributeValues: { ':pk': `DUE#${minute}`, ':until': `${String(until + 1).padStart(15, '0')}#` },
          Limit: limit,
          ConsistentRead: true,
        }),
      );
      return (result.Items ?? []).map((stored) => {
        const item = parseItem(TimerItem, tableName, stored);
        return { id: item.id, queue: item.queue, body: item.body, dueAt: item.due_at };
      });
    },

    async removeAll(timers) {
      for (let i = 0; i < timers.length; i += BATCH_WRITE) {
        let requests: Record<string, unknown>[] | undefined = timers
          .slice(i, i + BATCH_WRITE)
          .map((timer) => ({ DeleteRequest: { Key: { pk: `DUE#${minuteOf(timer.dueAt)}`, sk: sortKey(timer) } } }));
        // What DynamoDB leaves unprocessed under throttling is sent again; a timer left behind is only sent twice.
        for (let tries = 0; requests?.length && tries < 5; tries += 1) {
          const { UnprocessedItems } = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests as never } }));
          requests = UnprocessedItems?.[tableName] as Record<string, unknown>[] | undefined;
          if (requests?.length) await new Promise((r) => setTimeout(r, 50 * 2 ** tries));
        }
      }
    },

    async readCursor() {
      const result = await client.send(new GetCommand({ TableName: tableName, Key: CURSOR_KEY, ConsistentRead: true }));
      return result.Item ? parseItem(CursorItem, tableName, result.Item).minute_ms : undefined;
    },

    async advanceCursor(minute) {
      await ignoringConditionFailure(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: CURSOR_KEY,
            UpdateExpression: 'SET minute_ms = :m',
            ConditionExpression: 'minute_ms < :m',
            ExpressionAttributeValues: { ':m': minute },
          }),
        ),
      );
    },
  };
}
