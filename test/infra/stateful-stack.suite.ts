import { describe, it, expect } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { BUCKETS, QUEUES, TABLES, type BucketName, type QueueName, type TableName } from '#functions/resources.ts';
import { logicalId, synthesize } from './synth.ts';

const { stateful, statefulTemplate: template } = synthesize();
const bucketNames = Object.keys(BUCKETS) as BucketName[];
const tableNames = Object.keys(TABLES) as TableName[];
const queueNames = Object.keys(QUEUES) as QueueName[];

describe('stateful stack: buckets', () => {
  it.each(bucketNames)('encrypts the %s bucket, blocks public access, versions and retains it', (name) => {
    // Prepare
    const id = logicalId(stateful.buckets[name]);

    // Act
    const bucket = template.toJSON().Resources[id];

    // Assess
    expect(bucket.DeletionPolicy).toBe('Retain');
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      VersioningConfiguration: { Status: 'Enabled' },
      LoggingConfiguration: { DestinationBucketName: { Ref: logicalId(stateful.accessLogBucket) } },
    });
  });

  it.each(bucketNames)('denies requests to the %s bucket that do not use TLS', (name) => {
    // Prepare
    const id = logicalId(stateful.buckets[name]);

    // Act
    const policies = template.findResources('AWS::S3::BucketPolicy', { Properties: { Bucket: { Ref: id } } });

    // Assess
    const statements = Object.values(policies).flatMap((p) => p.Properties.PolicyDocument.Statement);
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
  });
});

describe('stateful stack: tables', () => {
  it('creates one table per catalogue entry', () => {
    // Prepare / Act / Assess
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', tableNames.length);
  });

  it.each(tableNames)('gives the %s table on-demand billing, PITR, TTL and deletion protection', (name) => {
    // Prepare
    const def = TABLES[name];
    const id = logicalId(stateful.tables[name]);

    // Act
    const table = template.toJSON().Resources[id];

    // Assess
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: def.partitionKey, KeyType: 'HASH' },
        { AttributeName: def.sortKey, KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: def.ttlAttribute, Enabled: true },
      Replicas: [{ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true }, DeletionProtectionEnabled: true }],
    });
  });

  it.each(tableNames)('creates the global indexes the catalogue declares for the %s table', (name) => {
    // Prepare
    const expected = TABLES[name].globalIndexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
    }));

    // Act
    const table = template.toJSON().Resources[logicalId(stateful.tables[name])];

    // Assess
    const actual = (table.Properties.GlobalSecondaryIndexes ?? []) as { IndexName: string; KeySchema: unknown }[];
    expect(actual.map(({ IndexName, KeySchema }) => ({ IndexName, KeySchema }))).toEqual(expected);
  });
});

describe('stateful stack: queues', () => {
  it.each(queueNames)('redrives the %s queue to its own DLQ after the catalogue maxReceiveCount', (name) => {
    // Prepare
    const def = QUEUES[name];
    const dlqId = logicalId(stateful.deadLetterQueues[name]);

    // Act
    const queue = template.toJSON().Resources[logicalId(stateful.queues[name])];

    // Assess
    expect(queue.Properties).toMatchObject({
      VisibilityTimeout: def.visibilityTimeoutS,
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: def.maxReceiveCount },
    });
  });

  it.each(queueNames)('keeps dead letters of the %s queue for 14 days, encrypted', (name) => {
    // Prepare
    const dlqId = logicalId(stateful.deadLetterQueues[name]);

    // Act
    const dlq = template.toJSON().Resources[dlqId];

    // Assess
    expect(dlq.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
  });

  it('denies non-TLS access to every queue and dead-letter queue', () => {
    // Prepare
    const queueIds = queueNames.flatMap((name) => [logicalId(stateful.queues[name]), logicalId(stateful.deadLetterQueues[name])]);

    // Act
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));

    // Assess
    for (const id of queueIds) {
      const policy = policies.find((p) => JSON.stringify(p.Properties.Queues).includes(`"${id}"`));
      expect(policy?.Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('creates exactly one queue and one dead-letter queue per catalogue entry', () => {
    // Prepare / Act / Assess
    template.resourceCountIs('AWS::SQS::Queue', queueNames.length * 2);
    template.allResourcesProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, KmsMasterKeyId: Match.absent() });
  });
});

describe('archive bucket notifications', () => {
  it('sends object-created events under landing/ to the ingest queue', () => {
    const [notifications] = Object.values(template.findResources('Custom::S3BucketNotifications'));
    expect(notifications!.Properties.NotificationConfiguration.QueueConfigurations).toEqual([
      {
        Events: ['s3:ObjectCreated:*'],
        Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'landing/' }] } },
        QueueArn: { 'Fn::GetAtt': [stateful.getLogicalId(stateful.queues.ingest.node.defaultChild as never), 'Arn'] },
      },
    ]);
  });
});
