/**
 * Runtime configuration of every function, read once from the environment. Resource variables are
 * optional here because each function is bound only to what it uses (lib/ sets them with the IAM
 * grant); `requireSetting` names the missing variable when a port is built without its resource.
 */
import * as v from 'valibot';
import { BUCKETS, QUEUES, STATE_MACHINES, TABLES } from '../functions/resources.ts';

const optionalName = v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty')));
const urlSetting = v.optional(v.pipe(v.string(), v.url('must be a URL')));

const resourceEntries = Object.fromEntries(
  [...Object.values(TABLES), ...Object.values(BUCKETS), ...Object.values(STATE_MACHINES)].map((d) => [d.envVar, optionalName] as const),
);
const queueEntries = Object.fromEntries(
  Object.values(QUEUES).flatMap(
    (d) =>
      [
        [d.envVar, urlSetting],
        [d.dlqEnvVar, urlSetting],
      ] as const,
  ),
);

const booleanSetting = (fallback: 'true' | 'false') =>
  v.pipe(
    v.optional(v.picklist(['true', 'false'], 'must be true or false'), fallback),
    v.transform((s) => s === 'true'),
  );

const BaseConfigSchema = v.object({
  ...resourceEntries,
  ...queueEntries,
  AWS_REGION: v.optional(v.pipe(v.string(), v.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as us-east-1')), 'us-east-1'),
  /** s3rver and other S3 emulators need path-style addressing. */
  S3_FORCE_PATH_STYLE: booleanSetting('false'),
  /** Where archive objects are cached for DuckDB (Lambda: /tmp), and the cache's bound. */
  ARCHIVE_CACHE_DIR: v.optional(v.pipe(v.string(), v.minLength(1)), '/tmp/archive-cache'),
  ARCHIVE_CACHE_MB: v.pipe(
    v.optional(v.string(), '512'),
    v.regex(/^\d+$/, 'must be a whole number of megabytes'),
    v.transform(Number),
    v.minValue(16, 'must be at least 16'),
  ),
  /** Scratch space for Parquet files on their way to S3, and DuckDB's spill directory. */
  SCRATCH_DIR: v.optional(v.pipe(v.string(), v.minLength(1)), '/tmp/archive-scratch'),
  DUCKDB_THREADS: v.pipe(v.optional(v.string(), '2'), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(1, 'must be at least 1')),
  /**
   * DuckDB's memory bound in MB (it spills past it to SCRATCH_DIR). Unset: 60% of the function's
   * memory in Lambda (AWS_LAMBDA_FUNCTION_MEMORY_SIZE); DuckDB's own default (80% of the host's RAM)
   * is a host's, not a function's.
   */
  DUCKDB_MEMORY_MB: v.optional(
    v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number of megabytes'), v.transform(Number), v.minValue(64, 'must be at least 64')),
  ),
  /** Set by Lambda: the function's memory in MB. */
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: v.optional(v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number))),
  /**
   * Local cloud only: comma-separated hosts (e.g. 127.0.0.1,localhost) webhook endpoints may use
   * although they are not public. Refused when DEPLOYMENT is aws.
   */
  WEBHOOK_ALLOWED_TARGETS: v.optional(
    v.pipe(
      v.string(),
      v.transform((s) =>
        s
          .split(',')
          .map((h) => h.trim().toLowerCase())
          .filter(Boolean),
      ),
    ),
  ),
  /**
   * Local cloud only: divides the retry ladder, the 24-hour retry window and the 6-hour auto-disable
   * window, so a whole ladder can be watched in minutes. Refused when DEPLOYMENT is aws.
   */
  LOCAL_TIME_SCALE: v.optional(
    v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/, 'must be a positive number'), v.transform(Number), v.minValue(1, 'must be at least 1')),
  ),
  /**
   * Local cloud only: the budget of one webhook attempt in seconds (unset: the specification's 10 s).
   * Tests raise it so that a hung receiver's attempts stay open however slowly a loaded machine
   * runs them. Refused when DEPLOYMENT is aws.
   */
  WEBHOOK_ATTEMPT_TIMEOUT_S: v.optional(
    v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number of seconds'), v.transform(Number), v.minValue(1, 'must be at least 1')),
  ),
  /**
   * Local cloud only: multiplies every function's timeout and the gateway's 29 s integration
   * timeout, so a heavily loaded machine (a test run beside other work) does not cut off requests
   * that AWS would finish in time. Unset: the deployed timeouts. Refused when DEPLOYMENT is aws.
   */
  LOCAL_DEADLINE_SCALE: v.optional(
    v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/, 'must be a positive number'), v.transform(Number), v.minValue(1, 'must be at least 1')),
  ),
  /**
   * The cursor key ring as JSON, newest key first (`{"k2":"<secret>","k1":"<secret>"}`): set by the
   * local cloud and tests. In AWS the ring lives in the secret CURSOR_KEYS_SECRET_ARN names instead.
   */
  CURSOR_KEYS: v.optional(
    v.pipe(
      v.string(),
      v.check((s) => {
        try {
          return typeof JSON.parse(s) === 'object';
        } catch {
          return false;
        }
      }, 'must be a JSON object of key id -> secret'),
    ),
  ),
  CURSOR_KEYS_SECRET_ARN: optionalName,
  /** `local` only in the local cloud; unlocks settings the AWS deployment refuses. */
  DEPLOYMENT: v.optional(v.picklist(['aws', 'local'], 'must be aws or local'), 'aws'),
});

type BaseConfig = v.InferOutput<typeof BaseConfigSchema>;

/** A setting only the local cloud takes: set while DEPLOYMENT is aws, it is refused under its own name. */
const localOnly = <const Name extends 'WEBHOOK_ALLOWED_TARGETS' | 'LOCAL_TIME_SCALE' | 'WEBHOOK_ATTEMPT_TIMEOUT_S' | 'LOCAL_DEADLINE_SCALE'>(name: Name) =>
  v.forward<BaseConfig, v.CheckIssue<BaseConfig>, [Name]>(
    v.check((c) => c.DEPLOYMENT === 'local' || c[name] === undefined, 'is local-cloud only and refused when DEPLOYMENT is aws'),
    [name],
  );

export const ConfigSchema = v.pipe(
  BaseConfigSchema,
  localOnly('WEBHOOK_ALLOWED_TARGETS'),
  localOnly('LOCAL_TIME_SCALE'),
  localOnly('WEBHOOK_ATTEMPT_TIMEOUT_S'),
  localOnly('LOCAL_DEADLINE_SCALE'),
);

export type Config = v.InferOutput<typeof ConfigSchema> & Record<string, string | boolean | undefined>;
