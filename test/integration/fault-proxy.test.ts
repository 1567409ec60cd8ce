/**
 * The fault proxy (functions/local/fault-proxy.ts) in front of the real emulators: the errors AWS
 * gives as the SDK sees them, writes that land before their answer fails, a killed call failed
 * through every retry, SQS copies handed out again with receipts of their own, determinism for a
 * seed, and plans refused naming the rule and field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { startFaultProxies, type FaultProxies } from '#local/fault-proxy.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';
import { isStoreUnavailable } from '#shared/store-errors.ts';
import { parseFaultPlan, NO_FAULTS, type FaultPlanInput } from '#schemas/fault-plan.ts';

let env: ScratchEmulators;
let proxies: FaultProxies;
const options = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
let table: string;
let bucket: string;
let queueUrl: string;
/** Clients through the proxy, with `attempts` SDK attempts. */
const through = (attempts = 1) => ({
  dynamo: new DynamoDBClient({ ...options, endpoint: proxies.endpoints.dynamodb, maxAttempts: attempts }),
  s3: new S3Client({ ...options, endpoint: proxies.endpoints.s3, forcePathStyle: true, maxAttempts: attempts }),
  sqs: new SQSClient({ ...options, endpoint: proxies.endpoints.sqs, useQueueUrlAsEndpoint: false, maxAttempts: attempts }),
});
let direct: { s3: S3Client; dynamo: DynamoDBClient };
const plan = (input: FaultPlanInput) => proxies.setPlan(parseFaultPlan(input));
const failure = (work: Promise<unknown>) =>
  work.then(
    () => undefined,
    (error: unknown) => error as Error & { $metadata?: { httpStatusCode?: number } },
  );

beforeAll(async () => {
  env = await startScratchEmulators();
  proxies = await startFaultProxies(env.emulators.endpoints);
  table = env.emulators.names.tables.accounts;
  bucket = env.emulators.names.buckets.archive;
  queueUrl = env.emulators.names.queueUrls.events;
  direct = {
    s3: new S3Client({ ...options, endpoint: env.emulators.endpoints.s3, forcePathStyle: true }),
    dynamo: new DynamoDBClient({ ...options, endpoint: env.emulators.endpoints.dynamodb }),
  };
});

afterAll(async () => {
  await proxies?.stop();
  await env?.stop();
});

describe('the fault proxy', () => {
  it('answers DynamoDB, S3 and SQS faults as AWS does, which the service reads as a store unavailable', async () => {
    const { dynamo, s3, sqs } = through();
    plan({
      seed: 1,
      rules: [
        { service: 'dynamodb', fault: 'throttle', rate: 1 },
        { service: 's3', fault: 'throttle', rate: 1 },
        { service: 'sqs', fault: 'server-error', rate: 1 },
      ],
    });
    const throttled = await failure(dynamo.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'a' }, sk: { S: 'b' } } })));
    expect(['ProvisionedThroughputExceededException', 'ThrottlingException']).toContain(throttled?.name);
    const slowDown = await failure(s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'nothing' })));
    expect(slowDown).toMatchObject({ name: 'SlowDown', $metadata: { httpStatusCode: 503 } });
    const internal = await failure(sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x' })));
    expect(internal?.$metadata?.httpStatusCode).toBe(500);
    for (const error of [throttled, slowDown, internal]) expect(isStoreUnavailable(error)).toBe(true);
    expect(proxies.report().injected).toMatchObject({ 's3 GET throttle': 1, 'sqs SendMessage server-error': 1 });
    plan({ seed: 1, rules: [{ service: 's3', fault: 'reset', rate: 1 }] });
    expect(isStoreUnavailable(await failure(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'nothing' }))))).toBe(true);
    // A new plan, a new report.
    expect(proxies.report()).toEqual({ requests: { dynamodb: 0, s3: 1, sqs: 0 }, injected: { 's3 HEAD reset': 1 } });
    proxies.setPlan(NO_FAULTS);
  });

  it('lets a landed write take effect before its answer fails', async () => {
    const { s3, dynamo } = through();
    plan({
      seed: 2,
      rules: [
        { service: 's3', operation: 'PUT', fault: 'reset', landed: true, rate: 1 },
        { service: 'dynamodb', operation: 'PutItem', fault: 'server-error', landed: true, rate: 1 },
      ],
    });
    expect(await failure(s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'landed/object', Body: 'bytes' })))).toBeDefined();
    expect(await failure(dynamo.send(new PutItemCommand({ TableName: table, Item: { pk: { S: 'landed' }, sk: { S: 'item' } } })))).toBeDefined();
    proxies.setPlan(NO_FAULTS);
    expect(await (await direct.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'landed/object' }))).Body!.transformToString()).toBe('bytes');
    expect((await direct.dynamo.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'landed' }, sk: { S: 'item' } } }))).Item).toBeDefined();
  });

  it('fails one call through all its retries when a rule has a limit (a killed call), and no other', async () => {
    const { s3 } = through(3);
    plan({ seed: 3, rules: [{ service: 's3', operation: 'PUT', match: '/killed/', fault: 'server-error', rate: 1, limit: 3 }] });
    const killed = failure(s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'killed/one', Body: '1' })));
    const other = s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'killed/two', Body: '2' }));
    expect(await killed).toMatchObject({ name: 'InternalError' });
    await expect(other).resolves.toBeDefined();
    // The limit spent, the same call goes through.
    await expect(s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'killed/one', Body: '1' }))).resolves.toBeDefined();
    proxies.setPlan(NO_FAULTS);
  });

  it('hands a received message out again, after `afterMs`, with a receipt of its own the proxy accepts', async () => {
    const { sqs } = through();
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'twice' }));
    plan({ seed: 4, rules: [{ service: 'sqs', fault: 'duplicate', rate: 1, afterMs: 300 }] });
    const receive = async () =>
      (await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, AttributeNames: ['All'] }))).Messages ?? [];
    const [first] = await receive();
    expect(first?.Body).toBe('twice');
    await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: '0', ReceiptHandle: first!.ReceiptHandle! }] }));
    expect(await receive()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 350));
    const [again] = await receive();
    expect(again).toMatchObject({ MessageId: first!.MessageId, Body: 'twice', MD5OfBody: first!.MD5OfBody });
    expect(again!.ReceiptHandle).not.toBe(first!.ReceiptHandle);
    const deleted = await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: '0', ReceiptHandle: again!.ReceiptHandle! }] }));
    expect(deleted.Successful).toEqual([{ Id: '0' }]);
    expect(await receive()).toEqual([]);
    proxies.setPlan(NO_FAULTS);
  });

  it('shortens the visibility timeout receives ask for, so the queue itself hands out a message still being worked on', async () => {
    const { sqs } = through();
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'slow' }));
    plan({ seed: 5, rules: [{ service: 'sqs', fault: 'duplicate', rate: 0, visibilityS: 1 }] });
    const receive = async () =>
      (await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 300 }))).Messages ?? [];
    const [first] = await receive();
    expect(first?.Body).toBe('slow');
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    const [again] = await receive();
    expect(again).toMatchObject({ MessageId: first!.MessageId, Body: 'slow' });
    await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: '0', ReceiptHandle: again!.ReceiptHandle! }] }));
    proxies.setPlan(NO_FAULTS);
  });

  it('injects the same faults for the same seed and order of requests', async () => {
    const { dynamo } = through();
    const pattern = async (seed: number) => {
      plan({ seed, rules: [{ service: 'dynamodb', operation: 'GetItem', fault: 'throttle', rate: 0.4 }] });
      const outcomes: boolean[] = [];
      for (let i = 0; i < 12; i += 1)
        outcomes.push((await failure(dynamo.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'p' }, sk: { S: String(i) } } })))) === undefined);
      return outcomes;
    };
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (seed) => {
        expect(await pattern(seed)).toEqual(await pattern(seed));
      }),
      { numRuns: 4 },
    );
    proxies.setPlan(NO_FAULTS);
  });

  it('refuses a plan naming the rule and field at fault', () => {
    expect(() => parseFaultPlan({ seed: 1, rules: [{ service: 's3', fault: 'duplicate', rate: 1 }] })).toThrow(
      /rules\.0.*duplicate applies to SQS ReceiveMessage only/,
    );
    expect(() => parseFaultPlan({ seed: 1, rules: [{ service: 'dynamodb', fault: 'throttle', rate: 2 }] })).toThrow(/rules\.0\.rate/);
    expect(() => parseFaultPlan({ seed: 1, rules: [{ service: 'dynamodb', fault: 'throttle', rate: 1, match: '(' }] })).toThrow(
      /rules\.0\.match must be a regular expression/,
    );
    expect(() => parseFaultPlan({ seed: 1, rules: [{ service: 'kinesis', fault: 'throttle', rate: 1 }] })).toThrow(/rules\.0\.service/);
  });
});
