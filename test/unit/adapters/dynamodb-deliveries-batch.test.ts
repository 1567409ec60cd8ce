/**
 * Detection's batched delivery writes and reads, against a mocked DynamoDB client: dynalite never
 * throttles, so what DynamoDB leaves unprocessed under load is made here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dynamoDeliveryStore } from '#adapters/dynamodb-deliveries.ts';
import { deliveryRecord } from '#test/contracts/webhook-stores.ts';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(DynamoDBDocumentClient);
afterEach(() => dynamo.reset());

type Put = { PutRequest: { Item: Record<string, unknown> } };
const putsOf = (call: { args: [unknown] }) =>
  ((call.args[0] as BatchWriteCommand).input.RequestItems!.webhooks as Put[]).map((r) => String(r.PutRequest.Item.sk));

describe('creating many deliveries at once', () => {
  it('sends again what a batch write left unprocessed, until every envelope and then every state is stored', async () => {
    const deliveries = Array.from({ length: 30 }, () => deliveryRecord('acct_t'));
    const stored: string[] = [];
    let throttled = 0;
    dynamo.on(BatchWriteCommand).callsFake((input: BatchWriteCommand['input']) => {
      const requests = input.RequestItems!.webhooks as Put[];
      // The first two requests have their last three items throttled.
      const refused = throttled < 2 && requests.length > 3 ? requests.slice(-3) : [];
      if (refused.length > 0) throttled += 1;
      stored.push(...requests.slice(0, requests.length - refused.length).map((r) => String(r.PutRequest.Item.sk)));
      return { UnprocessedItems: refused.length > 0 ? { webhooks: refused } : {} };
    });

    await dynamoDeliveryStore({ client, tableName: 'webhooks' }).createMany(deliveries);

    const envelopes = deliveries.map((d) => `DLV#${d.id}#E`);
    const states = deliveries.map((d) => `DLV#${d.id}`);
    expect(throttled).toBe(2);
    expect(stored.sort()).toEqual([...envelopes, ...states].sort());
    expect(dynamo.commandCalls(BatchWriteCommand).every((call) => putsOf(call).length <= 25)).toBe(true);
    // No state went out before the last envelope was stored: a state is never left without its envelope.
    const sent = dynamo.commandCalls(BatchWriteCommand).flatMap(putsOf);
    expect(Math.max(...envelopes.map((sk) => sent.lastIndexOf(sk)))).toBeLessThan(Math.min(...states.map((sk) => sent.indexOf(sk))));
  });

  it('fails rather than drop items the table keeps refusing, so the batch is retried whole', async () => {
    dynamo
      .on(BatchWriteCommand)
      .callsFake((input: BatchWriteCommand['input']) => ({ UnprocessedItems: { webhooks: input.RequestItems!.webhooks!.slice(0, 1) } }));

    await expect(dynamoDeliveryStore({ client, tableName: 'webhooks' }).createMany([deliveryRecord('acct_t')])).rejects.toThrow(/unprocessed/);
  });

  it('reads again the keys a batch read left unprocessed, and reports the deliveries that exist', async () => {
    const [a, b] = [deliveryRecord('acct_t'), deliveryRecord('acct_t')];
    const stateItem = (d: typeof a) => ({
      pk: 'ACCT#acct_t',
      sk: `DLV#${d.id}`,
      run: d.run,
      attempts: d.attempts,
      record: JSON.stringify(d),
      expires_at: Math.floor(Date.now() / 1000) + 60,
    });
    dynamo
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { webhooks: [stateItem(a)] }, UnprocessedKeys: { webhooks: { Keys: [{ pk: 'ACCT#acct_t', sk: `DLV#${b.id}` }] } } })
      .resolvesOnce({ Responses: { webhooks: [stateItem(b)] } });

    const found = await dynamoDeliveryStore({ client, tableName: 'webhooks' }).states('acct_t', [a.id, b.id, 'absent']);

    expect([...found.keys()].sort()).toEqual([a.id, b.id].sort());
    expect(found.get(a.id)).toMatchObject({ id: a.id, state: 'pending', attempts: 0 });
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(2);
  });
});
