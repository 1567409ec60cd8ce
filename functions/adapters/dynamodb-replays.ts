/**
 * Replay jobs in the `webhooks` table, beside the rules they replay:
 *
 *   ACCT#<account> / REPLAY#<job id>               the job: state, window, config, progress (and the
 *                                                  partition indexes counted, done_parts)
 *   REPLAY#<job id> / OCC#<00017>#<00003>          a chunk of one partition's occurrences (JSON), oldest first
 *
 * A retried partition rewrites its chunks (the same keys, and deletes any an earlier attempt wrote
 * past its own); its progress is counted once.
 */
import * as v from 'valibot';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ReplayJobRecord, ReplayOccurrence, ReplayStore } from '../ports/replays.ts';
import { REPLAY_STATES } from '#schemas/replays.ts';
import { ReplayOccurrence as ReplayOccurrenceSchema, StoredConfig } from '#schemas/stored.ts';
import { accountKey, getItem, isConditionFailure, queryAll, transitionJob, type Item } from './dynamodb-webhook-table.ts';
import { json, parseItem } from './stored-item.ts';

const jobKey = (accountId: string, jobId: string) => ({ pk: accountKey(accountId), sk: `REPLAY#${jobId}` });
const chunkSk = (part: number, chunk: number) => `OCC#${String(part).padStart(5, '0')}#${String(chunk).padStart(5, '0')}`;
/** Occurrences a chunk holds at most, and its JSON at most (items are limited to 400 KB). */
const CHUNK_OCCURRENCES = 200;
const CHUNK_BYTES = 300_000;
const RUNNING = { ':queued': 'queued', ':running': 'running' };

/** A job's attributes; progress counters start at zero, the times and the error are set by its transitions. */
const JobItem = v.object({
  account_id: v.string(),
  job_id: v.string(),
  state: v.picklist(REPLAY_STATES),
  event_type: v.string(),
  config: json(StoredConfig),
  subscription_id: v.optional(v.string()),
  deliver: v.optional(v.boolean(), false),
  from_ms: v.number(),
  to_ms: v.number(),
  created_at: v.number(),
  started_at: v.optional(v.number()),
  finished_at: v.optional(v.number()),
  partitions_total: v.number(),
  partitions_done: v.optional(v.number(), 0),
  rows_scanned: v.optional(v.number(), 0),
  matched: v.optional(v.number(), 0),
  delivered: v.optional(v.number(), 0),
  error_message: v.optional(v.string()),
});

/** A chunk of one partition's occurrences. */
const ChunkItem = v.object({ sk: v.string(), occurrences: json(v.array(ReplayOccurrenceSchema)) });

function toJob(tableName: string, stored: Item): ReplayJobRecord {
  const item = parseItem(JobItem, tableName, stored);
  return {
    accountId: item.account_id,
    jobId: item.job_id,
    state: item.state,
    eventType: item.event_type,
    config: item.config,
    ...(item.subscription_id !== undefined && { subscriptionId: item.subscription_id }),
    deliver: item.deliver,
    from: item.from_ms,
    to: item.to_ms,
    createdAt: item.created_at,
    ...(item.started_at !== undefined && { startedAt: item.started_at }),
    ...(item.finished_at !== undefined && { finishedAt: item.finished_at }),
    partitionsTotal: item.partitions_total,
    partitionsDone: item.partitions_done,
    rowsScanned: item.rows_scanned,
    matched: item.matched,
    delivered: item.delivered,
    ...(item.error_message !== undefined && { errorMessage: item.error_message }),
  };
}

/** Splits occurrences into chunks that fit an item. */
function chunksOf(occurrences: readonly ReplayOccurrence[]): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const occurrence of occurrences) {
    const json = JSON.stringify(occurrence);
    if (current.length > 0 && (current.length >= CHUNK_OCCURRENCES || bytes + json.length > CHUNK_BYTES)) {
      chunks.push(`[${current.join(',')}]`);
      current = [];
      bytes = 0;
    }
    current.push(json);
    bytes += json.length;
  }
  if (current.length > 0) chunks.push(`[${current.join(',')}]`);
  return chunks;
}

const FIELD_ATTRIBUTE = { startedAt: 'started_at', finishedAt: 'finished_at', errorMessage: 'error_message' } as const;

export function dynamoReplayStore(client: DynamoDBDocumentClient, tableName: string): ReplayStore {
  const table = { client, tableName };
  const store: ReplayStore = {
    async createJob(job) {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...jobKey(job.accountId, job.jobId),
            account_id: job.accountId,
            job_id: job.jobId,
            state: job.state,
            event_type: job.eventType,
            config: JSON.stringify(job.config),
            ...(job.subscriptionId !== undefined && { subscription_id: job.subscriptionId }),
            deliver: job.deliver,
            from_ms: job.from,
            to_ms: job.to,
            created_at: job.createdAt,
            partitions_total: job.partitionsTotal,
            partitions_done: 0,
            rows_scanned: 0,
            matched: 0,
            delivered: 0,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    },

    async getJob(accountId, jobId) {
      const { pk, sk } = jobKey(accountId, jobId);
      const item = await getItem(table, pk, sk);
      return item ? toJob(tableName, item) : undefined;
    },

    async transition(accountId, jobId, from, to, fields = {}) {
      return transitionJob(client, tableName, jobKey(accountId, jobId), { from, to, fields, attributes: FIELD_ATTRIBUTE });
    },

    async recordPartition(accountId, jobId, index, result) {
      const chunks = chunksOf(result.occurrences);
      for (const [i, json] of chunks.entries()) {
        await client.send(new PutCommand({ TableName: tableName, Item: { pk: `REPLAY#${jobId}`, sk: chunkSk(index, i), occurrences: json } }));
      }
      // A retry that found fewer occurrences than an earlier attempt wrote fewer chunks: the earlier
      // attempt's chunks past them would otherwise still be read as this partition's.
      const stale = await queryAll(table, {
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ProjectionExpression: 'sk',
        ConsistentRead: true,
        ExpressionAttributeValues: { ':pk': `REPLAY#${jobId}`, ':from': chunkSk(index, chunks.length), ':to': chunkSk(index, 99_999) },
      });
      for (const item of stale) await client.send(new DeleteCommand({ TableName: tableName, Key: { pk: `REPLAY#${jobId}`, sk: item.sk } }));
      try {
        // One conditional update counts the partition and remembers that it did: a retry finds its index in done_parts.
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: jobKey(accountId, jobId),
            UpdateExpression: 'ADD partitions_done :one, rows_scanned :rows, matched :matched, delivered :delivered, done_parts :index',
            ConditionExpression: '#state IN (:queued, :running) AND (attribute_not_exists(done_parts) OR NOT contains(done_parts, :i))',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: {
              ...RUNNING,
              ':one': 1,
              ':rows': result.rowsScanned,
              ':matched': result.occurrences.length,
              ':delivered': result.delivered,
              ':index': new Set([index]),
              ':i': index,
            },
          }),
        );
        return 'recorded';
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const job = await store.getJob(accountId, jobId);
        return job && (job.state === 'queued' || job.state === 'running') ? 'already_recorded' : 'not_running';
      }
    },

    async occurrences(jobId, limit, after) {
      // A position is a chunk's sort key and the offset inside it.
      const [afterSk, afterOffset] = after ? [after.slice(0, after.lastIndexOf('@')), Number(after.slice(after.lastIndexOf('@') + 1))] : [undefined, 0];
      const out: ReplayOccurrence[] = [];
      let startKey: Record<string, unknown> | undefined;
      for (;;) {
        const page = await client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: afterSk ? 'pk = :pk AND sk >= :from' : 'pk = :pk AND begins_with(sk, :occ)',
            ExpressionAttributeValues: { ':pk': `REPLAY#${jobId}`, ...(afterSk ? { ':from': afterSk } : { ':occ': 'OCC#' }) },
            ConsistentRead: true,
            Limit: 20,
            ExclusiveStartKey: startKey,
          }),
        );
        for (const stored of page.Items ?? []) {
          const { sk, occurrences: chunk } = parseItem(ChunkItem, tableName, stored);
          const offset = sk === afterSk ? afterOffset : 0;
          const take = chunk.slice(offset, offset + (limit - out.length));
          out.push(...take);
          if (out.length >= limit) {
            const end = offset + take.length;
            if (end < chunk.length) return { occurrences: out, next: `${sk}@${end}` };
            // The chunk is used up: the next page starts at the next chunk, if there is one.
            const more = await client.send(
              new QueryCommand({
                TableName: tableName,
                KeyConditionExpression: 'pk = :pk AND sk > :sk',
                ExpressionAttributeValues: { ':pk': `REPLAY#${jobId}`, ':sk': sk },
                Limit: 1,
                ConsistentRead: true,
              }),
            );
            const following = more.Items?.[0];
            return { occurrences: out, ...(following && { next: `${String(following.sk)}@0` }) };
          }
        }
        startKey = page.LastEvaluatedKey;
        if (!startKey) return { occurrences: out };
      }
    },
  };
  return store;
}
