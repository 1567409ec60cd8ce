/**
 * What the webhook stores share: the single `webhooks` table (layout in dynamodb-webhooks.ts), its
 * account partition key, and conditional writes read as booleans.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

export interface WebhookTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

export type Item = Record<string, unknown>;

export const accountKey = (accountId: string) => `ACCT#${accountId}`;

export const isConditionFailure = (error: unknown) => error instanceof ConditionalCheckFailedException;

/** Runs a conditional write: true when it was applied, false when its condition did not hold. */
export async function applied(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * A job's state machine step (exports, replays): moves the item at `key` to `to` only from one of
 * `from`, setting the given fields (named by `attributes`) in the same write. False when the job is
 * gone or in another state.
 */
export function transitionJob<F extends string>(
  client: DynamoDBDocumentClient,
  tableName: string,
  key: Record<string, string>,
  transition: {
    from: readonly string[];
    to: string;
    fields: Partial<Record<F, unknown>>;
    attributes: Readonly<Record<F, string>>;
  },
): Promise<boolean> {
  const sets = ['#state = :to'];
  const values: Record<string, unknown> = { ':to': transition.to };
  transition.from.forEach((state, i) => {
    values[`:from${i}`] = state;
  });
  for (const [field, attribute] of Object.entries(transition.attributes) as [F, string][]) {
    const value = transition.fields[field];
    if (value === undefined) continue;
    sets.push(`${attribute} = :${attribute}`);
    values[`:${attribute}`] = value;
  }
  return applied(
    client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: `attribute_exists(pk) AND #state IN (${transition.from.map((_, i) => `:from${i}`).join(', ')})`,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: values,
      }),
    ),
  );
}

export async function getItem(table: WebhookTable, pk: string, sk: string): Promise<Item | undefined> {
  const { Item } = await table.client.send(new GetCommand({ TableName: table.tableName, Key: { pk, sk }, ConsistentRead: true }));
  return Item;
}

/** Every page of a query. */
export async function queryAll(table: WebhookTable, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Item[]> {
  const items: Item[] = [];
  let ExclusiveStartKey: Item | undefined;
  do {
    const page = await table.client.send(new QueryCommand({ ...input, TableName: table.tableName, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** An account's items whose sort key starts with `prefix`. */
export function accountItems(table: WebhookTable, accountId: string, prefix: string): Promise<Item[]> {
  return queryAll(table, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': accountKey(accountId), ':prefix': prefix },
    ConsistentRead: true,
  });
}

/** Deletes an account's item; false when it did not exist. */
export async function removeItem(table: WebhookTable, accountId: string, sk: string): Promise<boolean> {
  const { Attributes } = await table.client.send(
    new DeleteCommand({ TableName: table.tableName, Key: { pk: accountKey(accountId), sk }, ReturnValues: 'ALL_OLD' }),
  );
  return Attributes !== undefined;
}
