/**
 * The one Lambda construct. Runtime, architecture, bundling, tracing, logging and timeouts are set
 * here once; `bind*` helpers grant IAM and set the catalogue's environment variable together, so a
 * function can never hold a permission without knowing the resource name, or the reverse.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import {
  BUCKETS,
  QUEUES,
  STATE_MACHINES,
  TABLES,
  type Access,
  type BucketName,
  type FunctionDef,
  type FunctionName,
  type QueueName,
  type StateMachineName,
  type TableName,
} from '#functions/resources.ts';

/** Repository root: entries in the catalogue are relative to it, and so is the lockfile. */
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Must match functions/shared/powertools.ts, which passes the same names to its constructors. */
const POWERTOOLS_SERVICE_NAME = 'market-archive';
const POWERTOOLS_METRICS_NAMESPACE = 'MarketArchive';

/** esbuild's ESM output has no `require`; bundled CommonJS dependencies still call it. */
const ESM_REQUIRE_BANNER = "import { createRequire } from 'module';const require = createRequire(import.meta.url);";

/** npm installs the native binding for the Lambda platform, not the build host (toolchain 1f). */
const ARM64_NATIVE_INSTALL = { npm_config_cpu: 'arm64', npm_config_os: 'linux', npm_config_libc: 'glibc' };

/**
 * DuckDB's native binding cannot be bundled by esbuild. When `npm ci` installed a Linux (glibc)
 * binding, it is copied from node_modules beside the bundle, so `npm run synth` needs no network,
 * and the DuckDB functions run on that binding's architecture (x86_64 from a linux-x64 host, arm64
 * from a linux-arm64 one). On a host without one (macOS, Windows), CDK installs the arm64 binding
 * from the registry at synth instead.
 */
const INSTALLED_DUCKDB_ARCH = (['arm64', 'x64'] as const).find((arch) =>
  existsSync(join(PROJECT_ROOT, 'node_modules', '@duckdb', `node-bindings-linux-${arch}`, 'package.json')),
);
const DUCKDB_PACKAGES = INSTALLED_DUCKDB_ARCH
  ? ['@duckdb/node-api', '@duckdb/node-bindings', `@duckdb/node-bindings-linux-${INSTALLED_DUCKDB_ARCH}`, 'detect-libc']
  : undefined;

/** The architecture a function runs on: arm64, except DuckDB functions bound to an installed x64 binding. */
export const architectureOf = (def: Pick<FunctionDef, 'duckdb'>): Architecture =>
  def.duckdb && INSTALLED_DUCKDB_ARCH === 'x64' ? Architecture.X86_64 : Architecture.ARM_64;

/**
 * Installed files copied beside a function's bundle (relative to node_modules): DuckDB's binding
 * when `npm ci` installed a Linux one, and the catalogue's run-time assets.
 */
export const copiedPackagesOf = (def: Pick<FunctionDef, 'duckdb' | 'assets'>): string[] => [
  ...(def.duckdb && DUCKDB_PACKAGES ? DUCKDB_PACKAGES : []),
  ...(def.assets ?? []),
];

/** How esbuild bundles a function (read again by the deployment-package quota test). */
export function bundlingOf(def: Pick<FunctionDef, 'duckdb' | 'assets'>): BundlingOptions {
  const copied = copiedPackagesOf(def);
  return {
    format: OutputFormat.ESM,
    target: 'node22',
    mainFields: ['module', 'main'],
    banner: ESM_REQUIRE_BANNER,
    minify: true,
    sourceMap: true,
    // Setting externalModules replaces CDK's default, so the runtime's SDK v3 is named again.
    externalModules: ['@aws-sdk/*', ...copied],
    // Without an installed Linux binding, CDK installs DuckDB next to the bundle from the registry.
    ...(def.duckdb && !DUCKDB_PACKAGES ? { nodeModules: ['@duckdb/node-api'], environment: ARM64_NATIVE_INSTALL } : {}),
    ...(copied.length > 0 && {
      commandHooks: {
        beforeBundling: () => [],
        beforeInstall: () => [],
        afterBundling: (inputDir: string, outputDir: string) =>
          // A package directory or one installed file, at the same path under the bundle's node_modules.
          copied.map(
            (path) =>
              `mkdir -p "$(dirname "${outputDir}/node_modules/${path}")" && cp -R "${inputDir}/node_modules/${path}" "${outputDir}/node_modules/${path}"`,
          ),
      },
    }),
  };
}

export interface ServiceFunctionProps {
  readonly name: FunctionName;
  readonly def: FunctionDef;
}

export class ServiceFunction extends NodejsFunction {
  readonly catalogueName: FunctionName;
  readonly logGroupOwned: LogGroup;
  readonly executionRole: Role;

  constructor(scope: Construct, id: string, { name, def }: ServiceFunctionProps) {
    // Created beside the function because NodejsFunction needs them as props, before `this` exists.
    const logGroup = new LogGroup(scope, `${id}-logs`, { retention: RetentionDays.ONE_MONTH });
    // Our own role instead of AWSLambdaBasicExecutionRole: it may write to its own log group only.
    const role = new Role(scope, `${id}-role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the ${name} function`,
    });
    super(scope, id, {
      entry: join(PROJECT_ROOT, def.entry),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      description: def.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: architectureOf(def),
      memorySize: def.memoryMb,
      timeout: Duration.seconds(def.timeoutS),
      tracing: Tracing.ACTIVE,
      logGroup,
      role,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE,
      },
      bundling: bundlingOf(def),
    });
    this.catalogueName = name;
    this.logGroupOwned = logGroup;
    this.executionRole = role;
    logGroup.grantWrite(role);
  }

  bindTable(name: TableName, table: ITableV2, access: Access): this {
    if (access === 'read') table.grantReadData(this);
    else if (access === 'write') table.grantWriteData(this);
    else table.grantReadWriteData(this);
    this.addEnvironment(TABLES[name].envVar, table.tableName);
    return this;
  }

  bindQueue(name: QueueName, queue: IQueue, _access: 'send'): this {
    queue.grantSendMessages(this);
    this.addEnvironment(QUEUES[name].envVar, queue.queueUrl);
    return this;
  }

  /** A consumer parks poison messages in its queue's DLQ itself, with the reason attached. */
  bindDeadLetterQueue(name: QueueName, dlq: IQueue): this {
    dlq.grantSendMessages(this);
    this.addEnvironment(QUEUES[name].dlqEnvVar, dlq.queueUrl);
    return this;
  }

  bindBucket(name: BucketName, bucket: IBucket, access: Access): this {
    if (access === 'read') bucket.grantRead(this);
    else if (access === 'write') bucket.grantWrite(this);
    else bucket.grantReadWrite(this);
    this.addEnvironment(BUCKETS[name].envVar, bucket.bucketName);
    return this;
  }

  /** Starts executions of the machine, and stops them (cancellation); nothing else. */
  bindStateMachine(name: StateMachineName, machine: IStateMachine, _access: 'start'): this {
    machine.grantStartExecution(this);
    machine.grantExecution(this, 'states:StopExecution');
    this.addEnvironment(STATE_MACHINES[name].envVar, machine.stateMachineArn);
    return this;
  }
}
