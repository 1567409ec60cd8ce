/**
 * The environment a deployed function gets, pointed at the local emulators: apart from the local
 * cloud so tests and benches that need only the emulators do not load it (and the CDK with it).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUCKETS, QUEUES, STATE_MACHINES, TABLES, type QueueName, type StateMachineName } from '../resources.ts';
import { resetConfig } from '../shared/config.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION, type Emulators } from './emulators.ts';
import { localStateMachineArn } from './step-functions-server.ts';

/**
 * The local cloud's cursor key ring, made once per data directory (so cursors stay valid across
 * restarts, as in AWS, where the ring lives in a secret).
 */
function localCursorKeys(dataDir: string): string {
  const path = join(dataDir, 'cursor-keys.json');
  if (!existsSync(path)) writeFileSync(path, JSON.stringify({ local1: randomBytes(32).toString('base64url') }), { mode: 0o600 });
  return readFileSync(path, 'utf8');
}

/** The environment a deployed function would get, pointed at the emulators. Only local code writes process.env. */
export function exportEnvironment(emulators: Pick<Emulators, 'endpoints' | 'names'>, dataDir: string, logLevel: string, stepFunctionsEndpoint?: string): void {
  const env: Record<string, string> = {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: emulators.endpoints.dynamodb,
    AWS_ENDPOINT_URL_SQS: emulators.endpoints.sqs,
    AWS_ENDPOINT_URL_S3: emulators.endpoints.s3,
    ...(stepFunctionsEndpoint && { AWS_ENDPOINT_URL_SFN: stepFunctionsEndpoint }),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    S3_FORCE_PATH_STYLE: 'true',
    DEPLOYMENT: 'local',
    POWERTOOLS_TRACE_ENABLED: 'false',
    // With tracing off, X-Ray's automatic mode would still put an async hook with destroy tracking
    // on every promise of the one local process (cls-hooked), measured in ARCHITECTURE.md (delivery burst).
    AWS_XRAY_MANUAL_MODE: 'true',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: logLevel,
    CURSOR_KEYS: localCursorKeys(dataDir),
    // Every function of the local cloud shares one DuckDB instance; bound it as one function's would be.
    DUCKDB_MEMORY_MB: process.env.DUCKDB_MEMORY_MB ?? '2048',
    ARCHIVE_CACHE_DIR: join(dataDir, 'cache'),
    SCRATCH_DIR: join(dataDir, 'scratch'),
  };
  for (const [name, def] of Object.entries(TABLES)) env[def.envVar] = emulators.names.tables[name as keyof typeof TABLES];
  for (const [name, def] of Object.entries(QUEUES)) {
    env[def.envVar] = emulators.names.queueUrls[name as QueueName];
    env[def.dlqEnvVar] = emulators.names.dlqUrls[name as QueueName];
  }
  for (const [name, def] of Object.entries(BUCKETS)) env[def.envVar] = emulators.names.buckets[name as keyof typeof BUCKETS];
  for (const [name, def] of Object.entries(STATE_MACHINES)) env[def.envVar] = localStateMachineArn(name as StateMachineName);
  Object.assign(process.env, env);
  resetConfig();
}
