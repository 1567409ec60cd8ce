/**
 * Export jobs in the `export-jobs` table:
 *
 *   ACCT#<account> / JOB#<job id>     the job: state, quote, progress (partitions_done, rows and bytes
 *                                     written, and the set of partition indexes counted, done_parts)
 *   ACCT#<account> / IDEM#<sha256>    an Idempotency-Key's claim (job id, request fingerprint), 24 h
 *   JOB#<job id>   / PLAN             the partition list, as the state machine received it
 *   JOB#<job id>   / FILE#<00017>     one written partition file (name, rows, bytes, SHA-256, key)
 *   CHECK          / <due ms>#<job>#<index>#<n>   a partition object to check once due (object-life.ts)
 *
 * Job ids sort by creation time, so an account's jobs read newest first from one query.
 */
import * as v from 'valibot';
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, DeleteCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ExportJobRecord, ExportStore } from '../ports/exports.ts';
import { EXPORT_SCHEMAS, EXPORT_STATES, ExportQuoteSchema } from '#schemas/exports.ts';
import { ExportPartition } from '#schemas/messages.ts';
import { ExportFileRecord } from '#schemas/stored.ts';
import { FAMILIES } from '#schemas/venues.ts';
import { accountKey, applied, getItem, isConditionFailure, queryAll, transitionJob, type Item } from './dynamodb-webhook-table.ts';
import { json, parseItem } from './stored-item.ts';

const jobKey = (accountId: string, jobId: string) => ({ pk: accountKey(accountId), sk: `JOB#${jobId}` });
const fileSk = (index: number) => `FILE#${String(index).padStart(5, '0')}`;
const RUNNING_STATES = [':queued', ':running'];

/** A job's attributes; progress counters start at zero, the times, price and error are set by its transitions. */
const JobItem = v.object({
  account_id: v.string(),
  job_id: v.string(),
  state: v.picklist(EXPORT_STATES),
  schema: v.picklist(EXPORT_SCHEMAS),
  family: v.picklist(FAMILIES),
  symbols: v.array(v.string()),
  from_ms: v.number(),
  to_ms: v.number(),
  created_at: v.number(),
  started_at: v.optional(v.number()),
  finished_at: v.optional(v.number()),
  files_expire_at: v.optional(v.number()),
  quote: ExportQuoteSchema,
  partitions_total: v.number(),
  partitions_done: v.optional(v.number(), 0),
  rows_written: v.optional(v.number(), 0),
  bytes_written: v.optional(v.number(), 0),
  price_usd: v.optional(v.number()),
  error_message: v.optional(v.string()),
});

const CheckItem = v.object({ sk: v.string(), account_id: v.string(), job_id: v.string(), index: v.number(), key: v.string() });

const ClaimItem = v.object({ job_id: v.string(), fingerprint: v.string(), claimed_at: v.number() });

/** The partition list, as the state machine received it. */
const PlanItem = v.object({ partitions: json(v.array(ExportPartition)) });

function toJob(tableName: string, stored: Item): ExportJobRecord {
  const item = parseItem(JobItem, tableName, stored);
  return {
    accountId: item.account_id,
    jobId: item.job_id,
    state: item.state,
    schema: item.schema,
    family: item.family,
    symbols: item.symbols,
    from: item.from_ms,
    to: item.to_ms,
    createdAt: item.created_at,
    ...(item.started_at !== undefined && { startedAt: item.started_at }),
    ...(item.finished_at !== undefined && { finishedAt: item.finished_at }),
    ...(item.files_expire_at !== undefined && { expiresAt: item.files_expire_at }),
    quote: item.quote,
    partitionsTotal: item.partitions_total,
    partitionsDone: item.partitions_done,
    rowsWritten: item.rows_written,
    bytesWritten: item.bytes_written,
    ...(item.price_usd !== undefined && { priceUsd: item.price_usd }),
    ...(item.error_message !== undefined && { errorMessage: item.error_message }),
  };
}

/** Attribute names of the settable job fields. */
const FIELD_ATTRIBUTE = {
  startedAt: 'started_at',
  finishedAt: 'finished_at',
  expiresAt: 'files_expire_at',
  priceUsd: 'price_usd',
  errorMessage: 'error_message',
} as const;

export function dynamoExportStore(client: DynamoDBDocumentClient, tableName: string): ExportStore {
  const table = { client, tableName };
  const statusValues = { ':queued': 'queued', ':running': 'running' };
  const store: ExportStore = {
    async claimIdempotencyKey(accountId, keyHash, claim, expiresAt) {
      const Key = { pk: accountKey(accountId), sk: `IDEM#${keyHash}` };
      const claimed = await applied(
        client.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...Key, job_id: claim.jobId, fingerprint: claim.fingerprint, claimed_at: claim.claimedAt, expires_at: Math.ceil(expiresAt / 1000) },
            // An expired claim still in the table (TTL deletes lazily) counts as free.
            ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
            ExpressionAttributeValues: { ':now': Math.floor(Date.now() / 1000) },
          }),
        ),
      );
      if (claimed) return undefined;
      const item = await getItem(table, Key.pk, Key.sk);
      if (!item) return undefined;
      const earlier = parseItem(ClaimItem, tableName, item);
      return { jobId: earlier.job_id, fingerprint: earlier.fingerprint, claimedAt: earlier.claimed_at };
    },

    async createJob(job, partitions) {
      await client.send(new PutCommand({ TableName: tableName, Item: { pk: `JOB#${job.jobId}`, sk: 'PLAN', partitions: JSON.stringify(partitions) } }));
      return applied(
        client.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...jobKey(job.accountId, job.jobId),
              account_id: job.accountId,
              job_id: job.jobId,
              state: job.state,
              schema: job.schema,
              family: job.family,
              symbols: job.symbols,
              from_ms: job.from,
              to_ms: job.to,
              created_at: job.createdAt,
              quote: job.quote,
              partitions_total: job.partitionsTotal,
              partitions_done: 0,
              rows_written: 0,
              bytes_written: 0,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      );
    },

    async partitions(jobId) {
      const item = await getItem(table, `JOB#${jobId}`, 'PLAN');
      return item ? parseItem(PlanItem, tableName, item).partitions : undefined;
    },

    async getJob(accountId, jobId) {
      const { pk, sk } = jobKey(accountId, jobId);
      const item = await getItem(table, pk, sk);
      return item ? toJob(tableName, item) : undefined;
    },

    async listJobs(accountId, limit, after) {
      const page = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: after === undefined ? 'pk = :pk AND begins_with(sk, :jobs)' : 'pk = :pk AND sk BETWEEN :jobs AND :before',
          ExpressionAttributeValues: { ':pk': accountKey(accountId), ':jobs': 'JOB#', ...(after !== undefined && { ':before': `JOB#${after}` }) },
          ScanIndexForward: false,
          ConsistentRead: true,
          // One more than asked tells whether another page exists.
          Limit: limit + 2,
        }),
      );
      const jobs = (page.Items ?? []).map((item) => toJob(tableName, item)).filter((job) => job.jobId !== after);
      return { jobs: jobs.slice(0, limit), more: jobs.length > limit };
    },

    async transition(accountId, jobId, from, to, fields = {}) {
      return transitionJob(client, tableName, jobKey(accountId, jobId), { from, to, fields, attributes: FIELD_ATTRIBUTE });
    },

    async recordFile(accountId, jobId, file) {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            pk: `JOB#${jobId}`,
            sk: fileSk(file.index),
            index: file.index,
            name: file.name,
            symbol: file.symbol,
            day: file.day,
            rows: file.rows,
            bytes: file.bytes,
            sha256: file.sha256,
            key: file.key,
          },
        }),
      );
      try {
        // One conditional update counts the partition and remembers that it did: a retry finds its index in done_parts.
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: jobKey(accountId, jobId),
            UpdateExpression: 'ADD partitions_done :one, rows_written :rows, bytes_written :bytes, done_parts :index',
            ConditionExpression: `#state IN (${RUNNING_STATES.join(', ')}) AND (attribute_not_exists(done_parts) OR NOT contains(done_parts, :i))`,
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: {
              ...statusValues,
              ':one': 1,
              ':rows': file.rows,
              ':bytes': file.bytes,
              ':index': new Set([file.index]),
              ':i': file.index,
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

    async file(jobId, index) {
      if (!Number.isSafeInteger(index) || index < 0) return undefined;
      const item = await getItem(table, `JOB#${jobId}`, fileSk(index));
      return item ? parseItem(ExportFileRecord, tableName, item) : undefined;
    },

    async files(jobId) {
      const items = await queryAll(table, {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :files)',
        ExpressionAttributeValues: { ':pk': `JOB#${jobId}`, ':files': 'FILE#' },
        ConsistentRead: true,
      });
      return items.map((item) => parseItem(ExportFileRecord, tableName, item));
    },

    async forgetFiles(jobId, indexes) {
      for (let i = 0; i < indexes.length; i += 25) {
        const batch = indexes.slice(i, i + 25).map((index) => ({ DeleteRequest: { Key: { pk: `JOB#${jobId}`, sk: fileSk(index) } } }));
        let unprocessed: typeof batch | undefined = batch;
        while (unprocessed && unprocessed.length > 0) {
          const out = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: unprocessed } }));
          unprocessed = out.UnprocessedItems?.[tableName] as typeof batch | undefined;
        }
      }
    },

    async scheduleCheck(check, after) {
      // A random tail: two attempts of one partition scheduling in the same millisecond keep both entries.
      const sk = `${String(after).padStart(15, '0')}#${check.jobId}#${String(check.index).padStart(5, '0')}#${randomUUID()}`;
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: { pk: 'CHECK', sk, account_id: check.accountId, job_id: check.jobId, index: check.index, key: check.key },
        }),
      );
    },

    async dueChecks(now, limit) {
      const { Items = [] } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :c AND sk < :now',
          ExpressionAttributeValues: { ':c': 'CHECK', ':now': `${String(now).padStart(15, '0')}#` },
          Limit: limit,
          ConsistentRead: true,
        }),
      );
      return Items.map((stored) => {
        const item = parseItem(CheckItem, tableName, stored);
        return { id: item.sk, accountId: item.account_id, jobId: item.job_id, index: item.index, key: item.key };
      });
    },

    async forgetCheck(id) {
      await client.send(new DeleteCommand({ TableName: tableName, Key: { pk: 'CHECK', sk: id } }));
    },
  };
  return store;
}
