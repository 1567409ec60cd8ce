/** Breadth table layout: `B#<family>` / `<calculated_at epoch ms, 15 digits>` -> the snapshot. */
import * as v from 'valibot';
import { BatchWriteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BreadthFamily, BreadthSnapshot } from '../core/breadth/compute.ts';
import type { BreadthStore } from '../ports/breadth.ts';
import { BreadthSnapshotSchema } from '#schemas/market.ts';
import { json, parseItem } from './stored-item.ts';

const sortKey = (ms: number) => String(ms).padStart(15, '0');

/** DynamoDB's bound on one BatchWriteItem. */
const BATCH_WRITE_ITEMS = 25;

function itemOf(snapshot: BreadthSnapshot) {
  const { family, ...body } = snapshot;
  return { pk: `B#${family}`, sk: sortKey(Date.parse(snapshot.calculated_at)), family, snapshot: JSON.stringify(body) };
}

/** The snapshot as the routes publish it (its family is the partition's). */
const SnapshotItem = v.object({ snapshot: json(BreadthSnapshotSchema) });

export function dynamoBreadthStore(client: DynamoDBDocumentClient, tableName: string): BreadthStore {
  const snapshotOf = (family: BreadthFamily, item: Record<string, unknown>): BreadthSnapshot => ({
    family,
    ...parseItem(SnapshotItem, tableName, item).snapshot,
  });
  return {
    async put(snapshot) {
      await client.send(new PutCommand({ TableName: tableName, Item: itemOf(snapshot) }));
    },
    async putMany(snapshots) {
      for (let i = 0; i < snapshots.length; i += BATCH_WRITE_ITEMS) {
        let requests = snapshots.slice(i, i + BATCH_WRITE_ITEMS).map((s) => ({ PutRequest: { Item: itemOf(s) } }));
        // Throttled items come back unprocessed: send them again, backing off, until none is left.
        for (let attempt = 0; requests.length > 0; attempt++) {
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** attempt)));
          const { UnprocessedItems } = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
          requests = (UnprocessedItems?.[tableName] ?? []) as typeof requests;
        }
      }
    },
    async latest(family) {
      const { Items = [] } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `B#${family}` },
          ScanIndexForward: false,
          Limit: 1,
        }),
      );
      return Items[0] ? snapshotOf(family, Items[0]) : undefined;
    },
    async edge(family, from, to, which) {
      const { Items = [] } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': `B#${family}`, ':from': sortKey(from), ':to': sortKey(to) },
          ScanIndexForward: which === 'first',
          Limit: 1,
        }),
      );
      return Items[0] ? snapshotOf(family, Items[0]) : undefined;
    },
    async range(family, from, to, limit) {
      const snapshots: BreadthSnapshot[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':pk': `B#${family}`, ':from': sortKey(from), ':to': sortKey(to) },
            Limit: limit + 1 - snapshots.length,
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? []) snapshots.push(snapshotOf(family, item));
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey && snapshots.length <= limit);
      return { snapshots: snapshots.slice(0, limit), more: snapshots.length > limit };
    },
  };
}
