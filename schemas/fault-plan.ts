/**
 * A fault plan for the local cloud's fault proxy (functions/local/fault-proxy.ts): which calls to
 * the emulators misbehave, how, and how often. One rule matches a service, optionally an operation
 * (DynamoDB's `X-Amz-Target` operation, SQS's action, S3's HTTP method) and a pattern (searched in
 * the S3 request path, or the DynamoDB and SQS request body); the first matching rule whose draw
 * comes up applies. Deterministic for a seed and an order of requests.
 */
import * as v from 'valibot';

export const FAULT_SERVICES = ['dynamodb', 's3', 'sqs'] as const;
export type FaultService = (typeof FAULT_SERVICES)[number];

/**
 * - `throttle`: DynamoDB `ProvisionedThroughputExceededException` or `ThrottlingException`, S3 503
 *   `SlowDown`, SQS `RequestThrottled`, as AWS writes them.
 * - `server-error`: a 500 (`InternalServerError`, `InternalError`, `InternalFailure`).
 * - `reset`: the connection is closed without an answer.
 * - `latency`: the request is held `latencyMs` before it goes on.
 * - `duplicate` (SQS `ReceiveMessage` only): each message received is handed out once more, at a
 *   later receive no sooner than `afterMs`; with `visibilityS`, receives also ask for that visibility
 *   timeout, so the queue itself hands a message out again while its first copy is still working.
 */
export const FAULT_KINDS = ['throttle', 'server-error', 'reset', 'latency', 'duplicate'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const FaultRuleSchema = v.pipe(
  v.object({
    service: v.picklist(FAULT_SERVICES),
    /** `PutItem`, `ReceiveMessage`, `PUT`...; every operation of the service when absent. */
    operation: v.optional(v.pipe(v.string(), v.minLength(1))),
    /** A regular expression searched in the S3 path or the DynamoDB/SQS request body. */
    match: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1),
        v.check((source) => {
          try {
            new RegExp(source);
            return true;
          } catch {
            return false;
          }
        }, 'must be a regular expression'),
      ),
    ),
    fault: v.picklist(FAULT_KINDS),
    /** Share of the matching requests that get the fault, 0 to 1. */
    rate: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
    /**
     * The request reaches the emulator and takes effect, and only the answer fails: how a function
     * killed right after a write looks to storage (and a retry must not double the write).
     */
    landed: v.optional(v.boolean(), false),
    latencyMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(60_000))),
    afterMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(15 * 60_000))),
    visibilityS: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(43_200))),
    /**
     * At most this many injections by the rule, all on the first request it fails and that
     * request's retries (the same path or body): one call failed through every SDK attempt, as a
     * function killed at that point would leave it.
     */
    limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  }),
  v.check(
    (rule) => rule.fault !== 'duplicate' || (rule.service === 'sqs' && (rule.operation ?? 'ReceiveMessage') === 'ReceiveMessage'),
    'duplicate applies to SQS ReceiveMessage only',
  ),
  v.check((rule) => rule.fault !== 'latency' || rule.latencyMs !== undefined, 'latency needs latencyMs'),
  v.check((rule) => rule.visibilityS === undefined || rule.fault === 'duplicate', 'visibilityS applies to duplicate only'),
  v.check((rule) => !rule.landed || ['throttle', 'server-error', 'reset'].includes(rule.fault), 'landed applies to throttle, server-error and reset'),
);
export type FaultRule = v.InferOutput<typeof FaultRuleSchema>;

export const FaultPlanSchema = v.object({
  seed: v.pipe(v.number(), v.integer()),
  rules: v.array(FaultRuleSchema),
});
export type FaultPlan = v.InferOutput<typeof FaultPlanSchema>;
export type FaultPlanInput = v.InferInput<typeof FaultPlanSchema>;

/** A plan, checked; a bad one throws naming the rule and field. */
export function parseFaultPlan(input: unknown): FaultPlan {
  const result = v.safeParse(FaultPlanSchema, input);
  if (!result.success) {
    throw new Error(`Invalid fault plan: ${result.issues.map((issue) => `${v.getDotPath(issue) ?? '(plan)'} ${issue.message}`).join('; ')}`);
  }
  return result.output;
}

export const NO_FAULTS: FaultPlan = { seed: 0, rules: [] };
