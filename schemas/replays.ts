/**
 * Rule replay (issue 23): a rule's exact matching run over a past window of the archive as an
 * asynchronous job, its occurrences kept for the caller to page through and, when asked, delivered
 * to the rule's endpoint as late events marked `replay: true` with the ids live delivery gives them.
 */
import * as v from 'valibot';
import { integerParam, stringParam } from './params.ts';

export const REPLAY_STATES = ['queued', 'running', 'completed', 'failed', 'canceled'] as const;
export type ReplayState = (typeof REPLAY_STATES)[number];

/** Longest window one replay job covers (one partition a UTC day). */
export const REPLAY_MAX_DAYS = 366;

const instant = v.union([v.pipe(v.number('must be epoch milliseconds or an RFC 3339 string'), v.integer()), v.string()]);

/** Members and ranges are checked by the core, which names the parameter at fault. */
export const ReplayBody = v.looseObject({
  subscription_id: v.optional(
    v.pipe(v.string('must be a string'), v.description('Replay this subscription: its event type, config and (with deliver) endpoint')),
  ),
  event_type: v.optional(v.pipe(v.string('must be a string'), v.description('Without subscription_id: the event type to replay'))),
  config: v.optional(v.record(v.string(), v.unknown())),
  filters: v.optional(v.record(v.string(), v.unknown())),
  start: v.pipe(instant, v.description('Window start (inclusive), epoch ms or RFC 3339')),
  end: v.pipe(instant, v.description('Window end (exclusive), epoch ms or RFC 3339; not in the future')),
  deliver: v.optional(
    v.pipe(
      v.boolean('must be a boolean'),
      v.description('With subscription_id: queue the occurrences to its endpoint as late events (replay: true), under the daily cap'),
    ),
  ),
});
export type ReplayBody = v.InferOutput<typeof ReplayBody>;

export const ReplayJobSchema = v.object({
  id: v.string(),
  state: v.picklist(REPLAY_STATES),
  event_type: v.string(),
  subscription_id: v.optional(v.string()),
  window: v.object({ from: v.string(), to: v.string() }),
  deliver: v.boolean(),
  created_at: v.string(),
  started_at: v.optional(v.string()),
  finished_at: v.optional(v.string()),
  progress: v.object({
    partitions_done: v.number(),
    partitions_total: v.number(),
    rows_scanned: v.pipe(v.number(), v.description('Archive rows read: what the job is billed on, like market data')),
    matched: v.number(),
    delivered: v.pipe(v.number(), v.description('Occurrences queued to the endpoint (deliver); those delivered before are not sent again')),
  }),
  error_message: v.optional(v.string()),
  api_url: v.string(),
});
export type ReplayJob = v.InferOutput<typeof ReplayJobSchema>;

const occurrence = v.object({
  /** The event id live delivery gives this occurrence for the subscription (replays of a subscription only). */
  event_id: v.optional(v.string()),
  occurred_at: v.string(),
  data: v.record(v.string(), v.unknown()),
});
export const ReplayPageSchema = v.object({
  ...ReplayJobSchema.entries,
  occurrences: v.pipe(v.array(occurrence), v.description('Oldest first; complete once the job has completed')),
});

export const REPLAY_ID_PATTERN = /^rpl_[0-9a-z]{8,40}$/;
export const replayIdPath = { id: stringParam({ description: 'Replay job id (rpl_…)', maxLength: 44, pattern: REPLAY_ID_PATTERN, required: true }) };
export const ReplayPageQuery = {
  limit: integerParam({ min: 1, max: 500, default: 100, description: 'Occurrences to return, oldest first' }),
  cursor: stringParam({ description: 'meta.next_cursor of the previous page, passed unchanged', maxLength: 128 }),
};
