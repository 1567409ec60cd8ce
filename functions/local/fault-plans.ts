/**
 * The fault plans the cloud-faults suite and `npm run chaos` run (schemas/fault-plan.ts), one per
 * promise the README's reliability section makes. Each is checked against its schema here.
 */
import { RETRY_SETTINGS } from '../shared/deps.ts';
import { parseFaultPlan, type FaultPlan, type FaultPlanInput } from '#schemas/fault-plan.ts';

/**
 * `rate` of every DynamoDB, S3 and SQS call fails: throttled, a 500, a reset connection, and some
 * writes that land but whose answer fails (the caller retries a write that happened). SQS also
 * hands every fifth message out twice, some after the ingest queue's visibility timeout would end.
 */
export function flakyStores(seed: number, rate = 0.05): FaultPlan {
  const share = rate / 4;
  const plan: FaultPlanInput = {
    seed,
    rules: [
      { service: 'dynamodb', fault: 'throttle', rate: share * 2 },
      { service: 'dynamodb', operation: 'PutItem', fault: 'server-error', landed: true, rate: share / 2 },
      // Counters (allowances, the day's deliveries, credits) are updates: one landed unanswered is sent again.
      { service: 'dynamodb', operation: 'UpdateItem', fault: 'reset', landed: true, rate: share / 2 },
      { service: 'dynamodb', fault: 'reset', rate: share },
      { service: 's3', fault: 'throttle', rate: share * 2 },
      { service: 's3', operation: 'PUT', fault: 'reset', landed: true, rate: share },
      { service: 's3', fault: 'server-error', rate: share },
      { service: 'sqs', fault: 'throttle', rate: share * 2 },
      { service: 'sqs', operation: 'DeleteMessageBatch', fault: 'server-error', landed: true, rate: share },
      { service: 'sqs', fault: 'reset', rate: share },
      { service: 'sqs', fault: 'duplicate', rate: 0.2, afterMs: 2_000 },
    ],
  };
  return parseFaultPlan(plan);
}

/**
 * `rate` of DynamoDB's updates land and lose their answer (the connection resets after the write):
 * the SDK sends each again, as it does in AWS; the counters must count each item once.
 */
export function writesLandUnanswered(seed: number, rate: number): FaultPlan {
  return parseFaultPlan({ seed, rules: [{ service: 'dynamodb', operation: 'UpdateItem', fault: 'reset', landed: true, rate }] });
}

/**
 * A function killed once at each write point of compaction: after an object is written (the put
 * lands, its answer never comes), before a manifest entry is written, and after it is written.
 * Every attempt the SDK makes fails, so the step fails as a killed function would.
 */
export function killedAtWritePoints(seed: number): FaultPlan {
  const plan: FaultPlanInput = {
    seed,
    rules: [
      { service: 's3', operation: 'PUT', match: '/compacted-', fault: 'reset', landed: true, rate: 1, limit: RETRY_SETTINGS.background.s3.maxAttempts },
      { service: 'dynamodb', operation: 'PutItem', match: '"C#', fault: 'server-error', rate: 1, limit: RETRY_SETTINGS.background.dynamodb.maxAttempts },
      { service: 'dynamodb', operation: 'PutItem', match: '"m-', fault: 'reset', landed: true, rate: 1, limit: RETRY_SETTINGS.background.dynamodb.maxAttempts },
      { service: 'dynamodb', operation: 'DeleteItem', match: '"D#', fault: 'server-error', rate: 1, limit: RETRY_SETTINGS.background.dynamodb.maxAttempts },
    ],
  };
  return parseFaultPlan(plan);
}

/**
 * An export's steps killed once at each write point, at most two on one partition (of three, so
 * none exhausts its state machine retries): partition 0 before its object (the check that
 * object-life.ts schedules) and after counting itself, 1 after its object (the put lands, its
 * answer never comes), 2 before its file entry; then Finish after its transition to completed
 * (landed, unanswered) and at its announcement. Step Functions retries each task, as in AWS.
 */
export function exportKilledAtWritePoints(seed: number): FaultPlan {
  const { dynamodb, s3, sqs } = RETRY_SETTINGS.background;
  return parseFaultPlan({
    seed,
    rules: [
      { service: 'dynamodb', operation: 'PutItem', match: '"CHECK"[^]*#00000#', fault: 'server-error', rate: 1, limit: dynamodb.maxAttempts },
      { service: 's3', operation: 'PUT', match: '-exports/exports/.*/part-00001-', fault: 'reset', landed: true, rate: 1, limit: s3.maxAttempts },
      { service: 'dynamodb', operation: 'PutItem', match: '"FILE#00002"', fault: 'server-error', rate: 1, limit: dynamodb.maxAttempts },
      {
        service: 'dynamodb',
        operation: 'UpdateItem',
        match: '":index":\\{"NS":\\["0"\\]\\}',
        fault: 'reset',
        landed: true,
        rate: 1,
        limit: dynamodb.maxAttempts,
      },
      {
        service: 'dynamodb',
        operation: 'UpdateItem',
        match: '":to":\\{"S":"completed"\\}',
        fault: 'reset',
        landed: true,
        rate: 1,
        limit: dynamodb.maxAttempts,
      },
      { service: 'sqs', operation: 'SendMessage', match: 'export\\.job\\.v1', fault: 'server-error', rate: 1, limit: sqs.maxAttempts },
    ],
  });
}

/**
 * An export canceled while its last partition waits for a retry, and every deletion of export
 * objects failing meanwhile: the cancel leaves its written files for their checks to delete. The
 * last partition (`index`) fails its first two attempts.
 */
export function exportCancelUndeleted(seed: number, index: number): FaultPlan {
  return parseFaultPlan({
    seed,
    rules: [
      {
        service: 's3',
        operation: 'PUT',
        match: `-exports/exports/.*/part-${String(index).padStart(5, '0')}-`,
        fault: 'server-error',
        rate: 1,
        limit: 2 * RETRY_SETTINGS.background.s3.maxAttempts,
      },
      { service: 's3', operation: 'POST', match: '-exports/?\\?delete', fault: 'server-error', rate: 1 },
    ],
  });
}

/**
 * Every SQS message handed out twice: half at once (the first copy still working), half `afterMs`
 * later; and receives take a one-second visibility timeout, so a message whose first copy works
 * longer comes back from the queue itself while it does.
 */
export function everyMessageTwice(seed: number, afterMs: number): FaultPlan {
  return parseFaultPlan({
    seed,
    rules: [
      { service: 'sqs', fault: 'duplicate', rate: 0.5, afterMs: 0, visibilityS: 1 },
      { service: 'sqs', fault: 'duplicate', rate: 1, afterMs },
    ],
  });
}
