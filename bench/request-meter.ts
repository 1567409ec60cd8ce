/**
 * Counts the billable requests the code makes, as AWS would bill them, by wrapping the shared SDK
 * clients every function uses (functions/shared/deps.ts) with a middleware:
 * - DynamoDB reads: the read units the emulator (dynalite) reports for the request, asked for with
 *   `ReturnConsumedCapacity: 'TOTAL'` (4 KB a unit, half for an eventually consistent read).
 * - DynamoDB writes: per item, 1 KB units of the larger of the item before and after, plus every
 *   global index the write touches (an index entry put or removed: its projected size in 1 KB units;
 *   an index key changed: the removal and the put), read from the table's own index definitions.
 *   The item before and after is read through an uncounted client. A write whose condition fails
 *   is billed the size of the item it found (at least 1), as DynamoDB does, and touches no index.
 * - SQS: requests, and the messages each carried (a batch request carries up to 10).
 * Each request is labelled with the function it was made from (the local cloud's invoke), or with
 * the scope the bench runs it in.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { DescribeTableCommand, DynamoDBClient, GetItemCommand, type AttributeValue, type TableDescription } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MiddlewareStack } from '@smithy/types';
import { currentFunction } from '../functions/local/invoke.ts';

type AttributeMap = Record<string, AttributeValue>;
/** The emulator's own item size (DynamoDB's rule: attribute names plus values). */
const { itemSize } = createRequire(import.meta.url)('dynalite/db/index.js') as { itemSize(item: AttributeMap): number };

export interface Tally {
  requests: number;
  readUnits: number;
  writeUnits: number;
  messages: number;
}
/** label -> "service operation" -> tally */
export type Counts = Map<string, Map<string, Tally>>;

/** Labels requests made outside a function invocation (queue time in the bench, say). */
export const meterScope = new AsyncLocalStorage<string>();

const READS = ['GetItem', 'Query', 'Scan', 'BatchGetItem'];
const writeUnitsOf = (item: AttributeMap | undefined) => (item ? Math.ceil(itemSize(item) / 1024) : 0);

interface IndexShape {
  keys: string[];
  projection: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  include: string[];
}

function indexEntry(item: AttributeMap | undefined, tableKeys: string[], index: IndexShape): AttributeMap | undefined {
  if (!item || index.keys.some((k) => item[k] === undefined)) return undefined;
  if (index.projection === 'ALL') return item;
  const kept = [...tableKeys, ...index.keys, ...(index.projection === 'INCLUDE' ? index.include : [])];
  return Object.fromEntries(Object.entries(item).filter(([name]) => kept.includes(name)));
}

const same = (a: AttributeMap | undefined, b: AttributeMap | undefined) => JSON.stringify(a) === JSON.stringify(b);
const sameKeys = (a: AttributeMap, b: AttributeMap, keys: string[]) => keys.every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));

/** Write units of one item's change, table and global indexes. */
function changeUnits(before: AttributeMap | undefined, after: AttributeMap | undefined, table: { keys: string[]; indexes: IndexShape[] }): number {
  let units = Math.max(1, writeUnitsOf(before), writeUnitsOf(after));
  for (const index of table.indexes) {
    const [was, is] = [indexEntry(before, table.keys, index), indexEntry(after, table.keys, index)];
    if (was && is) {
      if (!sameKeys(was, is, index.keys)) units += writeUnitsOf(was) + writeUnitsOf(is);
      else if (!same(was, is)) units += Math.max(writeUnitsOf(was), writeUnitsOf(is));
    } else if (was || is) {
      units += writeUnitsOf(was ?? is);
    }
  }
  return units;
}

export interface RequestMeter {
  counts: Counts;
  reset(): void;
  detach(): void;
}

export function attachRequestMeter(clients: { dynamo: DynamoDBDocumentClient; sqs: SQSClient }): RequestMeter {
  const counts: Counts = new Map();
  // Uncounted: reads the items a write changes, and the tables' index definitions.
  const raw = new DynamoDBClient({ region: process.env.AWS_REGION });
  const tables = new Map<string, Promise<{ keys: string[]; indexes: IndexShape[] }>>();
  const shapeOf = (tableName: string) => {
    let shape = tables.get(tableName);
    if (!shape) {
      shape = raw.send(new DescribeTableCommand({ TableName: tableName })).then(({ Table }) => {
        const t = Table as TableDescription;
        return {
          keys: (t.KeySchema ?? []).map((k) => k.AttributeName!),
          indexes: (t.GlobalSecondaryIndexes ?? []).map((i) => ({
            keys: (i.KeySchema ?? []).map((k) => k.AttributeName!),
            projection: (i.Projection?.ProjectionType ?? 'ALL') as IndexShape['projection'],
            include: i.Projection?.NonKeyAttributes ?? [],
          })),
        };
      });
      tables.set(tableName, shape);
    }
    return shape;
  };
  const read = async (tableName: string, item: AttributeMap) => {
    const { keys } = await shapeOf(tableName);
    const key = Object.fromEntries(keys.map((k) => [k, item[k]!]));
    // The meter must never fail the request it measures: an item it cannot read counts as absent.
    return (await raw.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true })).catch(() => undefined))?.Item;
  };
  const tally = (operation: string, add: Partial<Tally>) => {
    const label = currentFunction.getStore() ?? meterScope.getStore() ?? 'other';
    let byOperation = counts.get(label);
    if (!byOperation) counts.set(label, (byOperation = new Map()));
    const t = byOperation.get(operation) ?? { requests: 0, readUnits: 0, writeUnits: 0, messages: 0 };
    t.requests += add.requests ?? 0;
    t.readUnits += add.readUnits ?? 0;
    t.writeUnits += add.writeUnits ?? 0;
    t.messages += add.messages ?? 0;
    byOperation.set(operation, t);
  };

  type Args = { input: Record<string, any> };
  type Next = (args: Args) => Promise<{ output: Record<string, any> }>;

  /** One item written: its state before, the write, its state after. */
  const itemWrite = async (tableName: string, key: AttributeMap, write: () => Promise<AttributeMap | undefined>, transactional = false) => {
    const shape = await shapeOf(tableName);
    const before = await read(tableName, key);
    try {
      const after = await write();
      return changeUnits(before, after, shape) * (transactional ? 2 : 1);
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') tally('DynamoDB failed condition', { writeUnits: Math.max(1, writeUnitsOf(before)) });
      throw error;
    }
  };

  const dynamoMeter = (next: Next, context: { commandName?: string }) => async (args: Args) => {
    const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
    const input = args.input;
    if (READS.includes(operation)) {
      const result = await next(args);
      const consumed = result.output.ConsumedCapacity;
      const units = (Array.isArray(consumed) ? consumed : [consumed]).reduce(
        (sum: number, c: { CapacityUnits?: number } | undefined) => sum + (c?.CapacityUnits ?? 0),
        0,
      );
      tally(`DynamoDB ${operation}`, { requests: 1, readUnits: units });
      return result;
    }
    if (operation === 'PutItem' || operation === 'UpdateItem' || operation === 'DeleteItem') {
      let result: Awaited<ReturnType<Next>> | undefined;
      const key = operation === 'PutItem' ? input.Item : input.Key;
      const units = await itemWrite(input.TableName, key, async () => {
        result = await next(args);
        if (operation === 'PutItem') return input.Item;
        if (operation === 'DeleteItem') return undefined;
        return read(input.TableName, key);
      }).catch((error: unknown) => {
        tally(`DynamoDB ${operation}`, { requests: 1 });
        throw error;
      });
      tally(`DynamoDB ${operation}`, { requests: 1, writeUnits: units });
      return result!;
    }
    if (operation === 'BatchWriteItem') {
      const requests = Object.entries(
        input.RequestItems as Record<string, { PutRequest?: { Item: AttributeMap }; DeleteRequest?: { Key: AttributeMap } }[]>,
      ).flatMap(([tableName, entries]) => entries.map((entry) => ({ tableName, entry })));
      const before = await Promise.all(requests.map(({ tableName, entry }) => read(tableName, entry.PutRequest?.Item ?? entry.DeleteRequest!.Key)));
      const result = await next(args);
      let units = 0;
      for (const [i, { tableName, entry }] of requests.entries()) units += changeUnits(before[i], entry.PutRequest?.Item, await shapeOf(tableName));
      tally('DynamoDB BatchWriteItem', { requests: 1, writeUnits: units });
      return result;
    }
    // Anything else (TransactWriteItems and the control plane) is counted as a request only, and
    // named, so a figure that misses its units shows where.
    const result = await next(args);
    tally(`DynamoDB ${operation} (units not counted)`, { requests: 1 });
    return result;
  };

  const sqsMeter = (next: Next, context: { commandName?: string }) => async (args: Args) => {
    const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
    const result = await next(args);
    const messages = Array.isArray(args.input.Entries) ? args.input.Entries.length : operation === 'SendMessage' ? 1 : 0;
    tally(`SQS ${operation}`, { requests: 1, messages });
    return result;
  };

  // Asked for before the request is serialized; read from the answer at the build step.
  const askCapacity = (next: Next, context: { commandName?: string }) => async (args: Args) =>
    next(READS.includes((context.commandName ?? '').replace(/Command$/, '')) ? { ...args, input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' } } : args);

  const dynamoStack = clients.dynamo.middlewareStack as unknown as MiddlewareStack<any, any>;
  const sqsStack = clients.sqs.middlewareStack as unknown as MiddlewareStack<any, any>;
  dynamoStack.add(askCapacity as never, { step: 'initialize', name: 'requestMeterCapacity' });
  dynamoStack.add(dynamoMeter as never, { step: 'build', name: 'requestMeter' });
  sqsStack.add(sqsMeter as never, { step: 'build', name: 'requestMeter' });
  return {
    counts,
    reset: () => counts.clear(),
    detach() {
      dynamoStack.remove('requestMeter');
      dynamoStack.remove('requestMeterCapacity');
      sqsStack.remove('requestMeter');
      raw.destroy();
    },
  };
}
