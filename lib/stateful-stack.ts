/**
 * Everything that holds data: buckets, tables and queues, one per catalogue entry. They live apart
 * from the functions so a service deploy (or a botched one) can never replace or delete them.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption, EventType, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { SqsDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { BUCKETS, QUEUES, TABLES, type BucketName, type QueueDef, type QueueName, type TableDef, type TableName } from '../functions/resources.ts';
import { mapRecord, pascalCase } from './typed-records.ts';

/** Access logs are an audit trail, not data: kept long enough to investigate, then expired. */
const ACCESS_LOG_RETENTION = Duration.days(365);

export interface StatefulResources {
  readonly buckets: Readonly<Record<BucketName, Bucket>>;
  readonly tables: Readonly<Record<TableName, TableV2>>;
  readonly queues: Readonly<Record<QueueName, Queue>>;
  readonly deadLetterQueues: Readonly<Record<QueueName, Queue>>;
  /** The cursor key ring (core/cursor-seal.ts): `{"<key id>": "<secret>", ...}`, newest first. */
  readonly cursorKeys: Secret;
}

export class StatefulStack extends Stack implements StatefulResources {
  readonly accessLogBucket: Bucket;
  readonly buckets: Readonly<Record<BucketName, Bucket>>;
  readonly tables: Readonly<Record<TableName, TableV2>>;
  readonly queues: Readonly<Record<QueueName, Queue>>;
  readonly deadLetterQueues: Readonly<Record<QueueName, Queue>>;
  readonly cursorKeys: Secret;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    this.accessLogBucket = new Bucket(this, 'access-logs', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ expiration: ACCESS_LOG_RETENTION }],
    });

    // One generated key to start; rotation adds a newer key first and drops the old one a day later (README).
    this.cursorKeys = new Secret(this, 'cursor-keys', {
      description: 'Keys that seal pagination cursors: JSON of key id -> secret, newest first',
      generateSecretString: { secretStringTemplate: '{}', generateStringKey: 'k1', passwordLength: 48, excludePunctuation: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    new CfnOutput(this, 'CursorKeysSecretArn', { value: this.cursorKeys.secretArn, description: 'The cursor key ring (rotate by hand: README)' });
    this.buckets = mapRecord(BUCKETS, (name, def) => this.bucket(name, def.expireAfterDays));
    this.tables = mapRecord(TABLES, (name, def) => this.table(name, def));
    // Read by the keys CLI and operators; top-level ids keep the output keys exactly these names.
    for (const [name, table] of Object.entries(this.tables)) {
      new CfnOutput(this, `${pascalCase(name)}TableName`, { value: table.tableName, description: `Physical name of the ${name} table` });
    }
    const pairs = mapRecord(QUEUES, (name, def) => this.queue(name, def));
    this.queues = mapRecord(pairs, (_name, pair) => pair.queue);
    this.deadLetterQueues = mapRecord(pairs, (_name, pair) => pair.dlq);
    for (const [name, def] of Object.entries(BUCKETS) as [BucketName, (typeof BUCKETS)[BucketName]][]) {
      for (const { prefix, queue } of def.notifications) {
        this.buckets[name].addEventNotification(EventType.OBJECT_CREATED, new SqsDestination(this.queues[queue]), { prefix });
      }
    }
  }

  private bucket(name: BucketName, expireAfterDays: number | undefined): Bucket {
    return new Bucket(this, name, {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      versioned: true,
      removalPolicy: RemovalPolicy.RETAIN,
      serverAccessLogsBucket: this.accessLogBucket,
      serverAccessLogsPrefix: `${name}/`,
      lifecycleRules: [
        // Compaction replaces objects; their old versions are only a safety net.
        { noncurrentVersionExpiration: Duration.days(7) },
        // Raw batches are kept a month after ingest for replays.
        { prefix: 'landing/', expiration: Duration.days(30) },
        ...(expireAfterDays === undefined ? [] : [{ expiration: Duration.days(expireAfterDays) }]),
      ],
    });
  }

  private table(name: TableName, def: TableDef): TableV2 {
    const key = (attribute: string) => ({ name: attribute, type: AttributeType.STRING });
    return new TableV2(this, name, {
      partitionKey: key(def.partitionKey),
      sortKey: key(def.sortKey),
      billing: Billing.onDemand(),
      globalSecondaryIndexes: def.globalIndexes.map((index) => ({
        indexName: index.name,
        partitionKey: key(index.partitionKey),
        sortKey: key(index.sortKey),
        ...(index.projection === 'keys' && { projectionType: ProjectionType.KEYS_ONLY }),
      })),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: def.ttlAttribute,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  private queue(name: QueueName, def: QueueDef): { queue: Queue; dlq: Queue } {
    // 14 days (the SQS maximum) gives operators two weekends to notice and redrive.
    const dlq = new Queue(this, `${name}-dlq`, {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const queue = new Queue(this, name, {
      visibilityTimeout: Duration.seconds(def.visibilityTimeoutS),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: dlq, maxReceiveCount: def.maxReceiveCount },
    });
    return { queue, dlq };
  }
}
