/**
 * Every adapter parses the items it reads back: a malformed one (a field missing, of another type,
 * JSON that does not parse) is an internal error naming the table, the item's key and the field,
 * never a wrong value handed to the core. DynamoDB answers with the bad item through a mocked
 * client (no emulator stores an item the adapters would not write).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AppError, errorBody, toAppError } from '#core/errors.ts';
import { dynamoWebhookStores } from '#adapters/dynamodb-webhooks.ts';
import { dynamoReplayStore } from '#adapters/dynamodb-replays.ts';
import { dynamoExportStore } from '#adapters/dynamodb-exports.ts';
import { dynamoIncidentStore } from '#adapters/dynamodb-quality.ts';
import { dynamoAccountStore } from '#adapters/dynamodb-accounts.ts';
import { dynamoTimerStore } from '#adapters/dynamodb-timers.ts';
import { dynamoCreditLedger } from '#adapters/dynamodb-usage.ts';
import { dynamoBreadthStore } from '#adapters/dynamodb-breadth.ts';
import { dynamoArchiveManifest } from '#adapters/dynamodb-manifest.ts';
import type { ArchiveFile } from '#ports/archive.ts';
import { deliveryRecord, endpointRecord, subscriptionRecord } from '#test/contracts/webhook-stores.ts';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(DynamoDBDocumentClient);
afterEach(() => dynamo.reset());

const stores = dynamoWebhookStores(client, 'webhooks');
const later = Math.floor(Date.now() / 1000) + 3_600;

/** The error a read fails with: an internal AppError whose message names table, key and field. */
async function failure(read: Promise<unknown>): Promise<string> {
  const error = await read.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('internal_error');
  return (error as AppError).message;
}

describe('a malformed stored item', () => {
  it('of a delivery names the delivery log, the state item and the field of its record', async () => {
    const delivery = deliveryRecord('acct_a');
    const { payload: _payload, ...state } = delivery;
    dynamo.on(QueryCommand).resolves({
      Items: [
        { pk: 'ACCT#acct_a', sk: `DLV#${delivery.id}`, record: JSON.stringify({ ...state, state: 'lost' }), expires_at: later },
        {
          pk: 'ACCT#acct_a',
          sk: `DLV#${delivery.id}#E`,
          gsi1sk: `${delivery.createdAt}#${delivery.id}`,
          payload: JSON.stringify(delivery.payload),
          expires_at: later,
        },
      ],
    });
    expect(await failure(stores.deliveries.get('acct_a', delivery.id))).toBe(
      `Malformed item in table webhooks at ACCT#acct_a / DLV#${delivery.id}: record.state: Invalid type: Expected ("pending" | "delivered" | "failed" | "exhausted") but received "lost"`,
    );
  });

  it('of a delivery whose envelope is not JSON names the envelope', async () => {
    const delivery = deliveryRecord('acct_a');
    dynamo.on(BatchGetCommand).resolves({ Responses: { webhooks: [{ pk: 'ACCT#acct_a', sk: `DLV#${delivery.id}`, record: '{"id":', expires_at: later }] } });
    expect(await failure(stores.deliveries.states('acct_a', [delivery.id]))).toMatch(
      new RegExp(`^Malformed item in table webhooks at ACCT#acct_a / DLV#${delivery.id}: record: Invalid JSON`),
    );
  });

  it('of a rule names its stored configuration', async () => {
    const rule = subscriptionRecord('acct_a');
    const { pause: _p, lastPause: _l, ...owner } = rule;
    dynamo
      .on(GetCommand)
      .resolves({ Item: { pk: 'ACCT#acct_a', sk: `SUB#${rule.id}`, record: JSON.stringify({ ...owner, filters: { conditions: 'price > 5' } }) } });
    expect(await failure(stores.rules.get('acct_a', rule.id))).toMatch(
      /^Malformed item in table webhooks at ACCT#acct_a \/ SUB#.*: record\.filters\.conditions: Invalid type: Expected Array/,
    );
  });

  it('of an endpoint names its status', async () => {
    const endpoint = endpointRecord('acct_a');
    dynamo.on(GetCommand).resolves({
      Item: {
        pk: 'ACCT#acct_a',
        sk: `EP#${endpoint.id}`,
        id: endpoint.id,
        account_id: 'acct_a',
        url: endpoint.url,
        status: 'paused',
        secret: 's',
        created_at: endpoint.createdAt,
      },
    });
    expect(await failure(stores.endpoints.get('acct_a', endpoint.id))).toMatch(
      /^Malformed item in table webhooks at ACCT#acct_a \/ EP#.*: status: Invalid type/,
    );
  });

  it('of an allowance counter and of the detection cursor names the counter', async () => {
    dynamo.on(GetCommand, { Key: { pk: 'ACCT#acct_a', sk: 'USAGE' } }).resolves({ Item: { pk: 'ACCT#acct_a', sk: 'USAGE', endpoints: 'three' } });
    dynamo.on(GetCommand, { Key: { pk: 'SYSTEM', sk: 'DETECT#CURSOR' } }).resolves({ Item: { pk: 'SYSTEM', sk: 'DETECT#CURSOR', at: '2026-11-29' } });
    expect(await failure(stores.allowances.usage('acct_a'))).toMatch(
      /^Malformed item in table webhooks at ACCT#acct_a \/ USAGE: endpoints: Invalid type: Expected number/,
    );
    expect(await failure(stores.detectionCursor.read())).toMatch(
      /^Malformed item in table webhooks at SYSTEM \/ DETECT#CURSOR: at: Invalid type: Expected number/,
    );
  });

  it('of a replay job names its configuration, and of a chunk its occurrence', async () => {
    const replays = dynamoReplayStore(client, 'webhooks');
    dynamo.on(GetCommand).resolves({
      Item: {
        pk: 'ACCT#acct_a',
        sk: 'REPLAY#rpl_1',
        account_id: 'acct_a',
        job_id: 'rpl_1',
        state: 'running',
        event_type: 'market.liquidation',
        config: 'venue=perpx',
        from_ms: 0,
        to_ms: 1,
        created_at: 0,
        partitions_total: 1,
      },
    });
    dynamo
      .on(QueryCommand)
      .resolves({ Items: [{ pk: 'REPLAY#rpl_1', sk: 'OCC#00000#00000', occurrences: JSON.stringify([{ occurredAt: '2026-11-29', data: {} }]) }] });
    expect(await failure(replays.getJob('acct_a', 'rpl_1'))).toMatch(/^Malformed item in table webhooks at ACCT#acct_a \/ REPLAY#rpl_1: config: Invalid JSON/);
    expect(await failure(replays.occurrences('rpl_1', 10))).toMatch(
      /^Malformed item in table webhooks at REPLAY#rpl_1 \/ OCC#00000#00000: occurrences\.0\.occurredAt: Invalid type/,
    );
  });

  it('of an export job names its quote, and of a plan its partition', async () => {
    const exports = dynamoExportStore(client, 'export-jobs');
    dynamo.on(GetCommand, { Key: { pk: 'ACCT#acct_a', sk: 'JOB#exp_1' } }).resolves({
      Item: {
        pk: 'ACCT#acct_a',
        sk: 'JOB#exp_1',
        account_id: 'acct_a',
        job_id: 'exp_1',
        state: 'running',
        schema: 'trades',
        family: 'perpx',
        symbols: ['BTC'],
        from_ms: 0,
        to_ms: 1,
        created_at: 0,
        partitions_total: 1,
      },
    });
    dynamo
      .on(GetCommand, { Key: { pk: 'JOB#exp_1', sk: 'PLAN' } })
      .resolves({ Item: { pk: 'JOB#exp_1', sk: 'PLAN', partitions: JSON.stringify([{ i: 0, s: 'BTC', d: '29 Nov' }]) } });
    expect(await failure(exports.getJob('acct_a', 'exp_1'))).toMatch(/^Malformed item in table export-jobs at ACCT#acct_a \/ JOB#exp_1: quote: Invalid key/);
    expect(await failure(exports.partitions('exp_1'))).toMatch(
      /^Malformed item in table export-jobs at JOB#exp_1 \/ PLAN: partitions\.0\.d: must be a day YYYY-MM-DD/,
    );
  });

  it('of an incident names its kind', async () => {
    dynamo.on(GetCommand).resolves({ Item: { pk: 'I#i1', sk: 'I', id: 'i1', kind: 'outage', exchange: 'perpx', started_at: 0, detected_at: 1 } });
    expect(await failure(dynamoIncidentStore(client, 'quality').get('i1'))).toMatch(/^Malformed item in table quality at I#i1 \/ I: kind: Invalid type/);
  });

  it('of an account names its usage key', async () => {
    dynamo.on(GetCommand).resolves({ Item: { pk: 'ACCOUNT#acct_a', sk: 'ACCOUNT', plan: 'pro', created_at: '2026-11-29T00:00:00Z' } });
    expect(await failure(dynamoAccountStore(client, 'accounts').getAccount('acct_a'))).toMatch(
      /^Malformed item in table accounts at ACCOUNT#acct_a \/ ACCOUNT: usage_key: Invalid key/,
    );
  });

  it('of a timer names its queue', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [{ pk: 'DUE#60000', sk: '000000000060000#t1', id: 't1', queue: 'elsewhere', body: '{}', due_at: 60_000 }] });
    expect(await failure(dynamoTimerStore(client, 'timers').listDue(60_000, 120_000, 10))).toMatch(
      /^Malformed item in table timers at DUE#60000 \/ 000000000060000#t1: queue: Invalid type/,
    );
  });

  it('of a credit counter names it, with the key the update returned none of', async () => {
    dynamo.on(UpdateCommand).resolves({ Attributes: { used: 'many' } });
    expect(await failure(dynamoCreditLedger(client, 'usage').debit('acct_a', '2026-11', 5))).toMatch(
      /^Malformed item in table usage at ACCT#acct_a \/ CREDITS#2026-11: used: Invalid type/,
    );
  });

  it('of a breadth snapshot names the field of the snapshot', async () => {
    dynamo
      .on(QueryCommand)
      .resolves({ Items: [{ pk: 'B#perpx', sk: '001764374400000', family: 'perpx', snapshot: JSON.stringify({ session_date: '2026-11-29' }) }] });
    expect(await failure(dynamoBreadthStore(client, 'breadth').latest('perpx'))).toMatch(
      /^Malformed item in table breadth at B#perpx \/ 001764374400000: snapshot\.calculated_at: Invalid key/,
    );
  });

  it("of the manifest names a batch outcome's count and statistics that are not an object", async () => {
    const manifest = dynamoArchiveManifest(client, 'manifest');
    const file = { kind: 'delta', dataset: 'trades', family: 'perpx', day: '2026-11-29', fileId: 'f1' } as ArchiveFile;
    dynamo.on(GetCommand).resolves({ Item: { pk: 'B#b1', sk: 'B', status: 'done' } });
    dynamo.on(BatchGetCommand).resolves({ Responses: { manifest: [{ pk: 'S#D#trades#perpx', sk: '2026-11-29#f1', cadence: '[1, 2]' }] } });
    expect(await failure(manifest.batchOutcome('b1'))).toMatch(/^Malformed item in table manifest at B#b1 \/ B: records: Invalid key/);
    expect(await failure(manifest.cadenceOf([file]))).toBe(
      'Malformed item in table manifest at S#D#trades#perpx / 2026-11-29#f1: (item): must be an object of per-symbol statistics',
    );
  });

  it('reaches a client as any unexpected error: a 500 with the request id, the table and key not shown', async () => {
    dynamo.on(GetCommand).resolves({ Item: { pk: 'I#i1', sk: 'I', id: 'i1' } });
    const error = await dynamoIncidentStore(client, 'quality')
      .get('i1')
      .catch((thrown: unknown) => thrown);
    expect(errorBody(toAppError(error), 'req-1')).toEqual({
      success: false,
      code: 500,
      error: 'Internal server error.',
      error_code: 'internal_error',
      request_id: 'req-1',
    });
  });
});
