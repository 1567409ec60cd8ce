/**
 * DynamoDB's many-items-a-request calls, with what they leave undone sent again: BatchWriteItem
 * (25 puts a request) and BatchGetItem (100 keys a request) return the items and keys the table
 * could not take or read at the time (throttling) as unprocessed instead of failing.
 */
import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eachBounded } from '../core/bounded.ts';

export type Item = Record<string, unknown>;

export const BATCH_WRITE = 25;
export const BATCH_GET = 100;
/** Requests of one call in flight at once: a batch of hundreds of items should not wait on each round trip in turn. */
const IN_FLIGHT = 4;
/** Rounds of unprocessed items sent again before giving up (the caller's work is retried whole). */
const MAX_ROUNDS = 8;

const backOff = (round: number) => new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 25 * 2 ** round)));

function inChunks<T>(list: readonly T[], size: number, each: (chunk: T[]) => Promise<void>): Promise<void> {
  const chunks = Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));
  return eachBounded(chunks, IN_FLIGHT, each);
}

/** Puts every item, many a request; throws if some are still unprocessed after the retries, so none is silently lost. */
export async function putAll(client: DynamoDBDocumentClient, tableName: string, items: readonly Item[]): Promise<void> {
  await inChunks(items, BATCH_WRITE, async (chunk) => {
    let requests = chunk.map((Item) => ({ PutRequest: { Item } }));
    for (let round = 0; requests.length > 0; round++) {
      if (round === MAX_ROUNDS) throw new Error(`DynamoDB left ${requests.length} of a batch of puts to ${tableName} unprocessed after ${MAX_ROUNDS} rounds`);
      if (round > 0) await backOff(round);
      const { UnprocessedItems } = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
      requests = (UnprocessedItems?.[tableName] ?? []) as typeof requests;
    }
  });
}

/** Reads the items at `keys` (those that exist), many a request; strongly consistent unless asked otherwise. */
export async function getAll(client: DynamoDBDocumentClient, tableName: string, keys: readonly Item[], { consistent = true } = {}): Promise<Item[]> {
  const found: Item[] = [];
  await inChunks(keys, BATCH_GET, async (chunk) => {
    let pending: Item[] = chunk;
    for (let round = 0; pending.length > 0; round++) {
      if (round === MAX_ROUNDS) throw new Error(`DynamoDB left ${pending.length} keys of ${tableName} unread after ${MAX_ROUNDS} rounds`);
      if (round > 0) await backOff(round);
      const { Responses, UnprocessedKeys } = await client.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: consistent } } }),
      );
      found.push(...(Responses?.[tableName] ?? []));
      pending = (UnprocessedKeys?.[tableName]?.Keys ?? []) as Item[];
    }
  });
  return found;
}
