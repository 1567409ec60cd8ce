/**
 * Export jobs in the `export-jobs` table:
 *
 *   ACCT#<account> / JOB#<job id>     the job: state, quote, progress (partitions_done, rows and bytes
 *                                     written, and the set of partition indexes counted, done_parts)
 *   ACCT#<account> / IDEM#<sha256>    an Idempotency-Key's claim (job id, request fingerprint), 24 h
 *   JOB#<job id>   / PLAN             the partition list, as the state machine received it
 *   JOB#<job id>   / FILE#<00017>     one written partition file (name, rows, bytes, SHA-256, key)
 *
 * Job ids sort by creation time, so an account's jobs read newest first from one query.
 */
import { BatchWriteCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ExportFileRecord, ExportJobRecord, ExportPartition, ExportStore } from '../ports/exports.ts';
import { accountKey, applied, getItem, isConditionFailure, queryAll, transitionJob, type Item } from './dynamodb-webhook-table.ts';

const jobKey = (accountId: string, jobId: string) => ({ pk: accountKey(accountId), sk: `JOB#${jobId}` });
const fileSk = (index: number) => `FILE#${String(index).padStart(5, '0')}`;
const RUNNING_STATES = [':queued', ':running'];

function toJob(item: Item): ExportJobRecord {
  const opt = (name: string) => (item[name] === undefined ? undefined : Number(item[name]));
  return {
    accountId: String(item.account_id), jobId: String(item.job_id), state: item.state as ExportJobRecord['state'],
    schema: item.schema as ExportJobRecord['schema'], family: item.family as ExportJobRecord['family'], symbols: item.symbols as string[],
    from: Number(item.from_ms), to: Number(item.to_ms), createdAt: Number(item.created_at),
    ...(opt('started_at') !== undefined && { startedAt: opt('started_at') }),
    ...(opt('finished_at') !== undefined && { finishedAt: opt('finished_at') }),
    ...(opt('files_expire_at') !== undefined && { expiresAt: opt('files_expire_at') }),
    quote: item.quote as ExportJobRecord['quote'],
    partitionsTotal: Number(item.partitions_total), partitionsDone: Number(item.partitions_done ?? 0),
    rowsWritten: Number(item.rows_written ?? 0), bytesWritten: Number(item.bytes_written ?? 0),
    ...(opt('price_usd') !== undefined && { priceUsd: opt('price_usd') }),
    ...(item.error_message !== undefined && { errorMessage: String(item.error_message) }),
  };
}

const toFile = (item: Item): ExportFileRecord => ({
  index: Number(item.index), name: String(item.name), symbol: String(item.symbol), day: String(item.day),
  rows: Number(item.rows), bytes: Number(item.bytes), sha256: String(item.sha256), key: String(item.key),
});

/** Attribute names of the settable job fields. */
const FIELD_ATTRIBUTE = { startedAt: 'started_at', finishedAt: 'finished_at', expiresAt: 'files_expire_at', priceUsd: 'price_usd', errorMessage: 'error_message' } as const;

export function dynamoExportStore(client: DynamoDBDocumentClient, tableName: string): ExportStore {
  const table = { client, tableName };
  const statusValues = { ':queued': 'queued', ':running': 'running' };
  const store: ExportStore = {
    async claimIdempotencyKey(accountId, keyHash, claim, expiresAt) {
      const Key = { pk: accountKey(accountId), sk: `IDEM#${keyHash}` };
      const claimed = await applied(client.send(new PutCommand({
        TableName: tableName,
        Item: { ...Key, job_id: claim.jobId, fingerprint: claim.fingerprint, claimed_at: claim.claimedAt, expires_at: Math.ceil(expiresAt / 1000) },
        // An expired claim still in the table (TTL deletes lazily) counts as free.
        ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
        ExpressionAttributeValues: { ':now': Math.floor(Date.now() / 1000) },
      })));
      if (claimed) return undefined;
      const item = await getItem(table, Key.pk, Key.sk);
      return item ? { jobId: String(item.job_id), fingerprint: String(item.fingerprint), claimedAt: Number(item.claimed_at) } : undefined;
    },

    async createJob(job, partitions) {
      await client.send(new PutCommand({ TableName: tableName, Item: { pk: `JOB#${job.jobId}`, sk: 'PLAN', partitions: JSON.stringify(partitions) } }));
      return applied(client.send(new PutCommand({
        TableName: tableName,
        Item: {
          ...jobKey(job.accountId, job.jobId), account_id: job.accountId, job_id: job.jobId, state: job.state, schema: job.schema, family: job.family,
          symbols: job.symbols, from_ms: job.from, to_ms: job.to, created_at: job.createdAt, quote: job.quote,
          partitions_total: job.partitionsTotal, partitions_done: 0, rows_written: 0, bytes_written: 0,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      })));
    },

    async partitions(jobId) {
      const item = await getItem(table, `JOB#${jobId}`, 'PLAN');
      return item ? (JSON.parse(String(item.partitions)) as ExportPartition[]) : undefined;
    },

    async getJob(accountId, jobId) {
      const { pk, sk } = jobKey(accountId, jobId);
      const item = await getItem(table, pk, sk);
      return item ? toJob(item) : undefined;
    },

    async listJobs(accountId, limit, after) {
      const page = await client.send(new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: after === undefined ? 'pk = :pk AND begins_with(sk, :jobs)' : 'pk = :pk AND sk BETWEEN :jobs AND :before',
        ExpressionAttributeValues: { ':pk': accountKey(accountId), ':jobs': 'JOB#', ...(after !== undefined && { ':before': `JOB#${after}` }) },
        ScanIndexForward: false,
        ConsistentRead: true,
        // One more than asked tells whether another page exists.
        Limit: limit + 2,
      }));
      const jobs = (page.Items ?? []).map(toJob).filter((job) => job.jobId !== after);
      return { jobs: jobs.slice(0, limit), more: jobs.length > limit };
    },

    async transition(accountId, jobId, from, to, fields = {}) {
      return transitionJob(client, tableName, jobKey(accountId, jobId), { from, to, fields, attributes: FIELD_ATTRIBUTE });
    },

    async recordFile(accountId, jobId, file) {
      await client.send(new PutCommand({
        TableName: tableName,
        Item: { pk: `JOB#${jobId}`, sk: fileSk(file.index), index: file.index, name: file.name, symbol: file.symbol, day: file.day, rows: file.rows, bytes: file.bytes, sha256: file.sha256, key: file.key },
      }));
      try {
        // One conditional update counts the partition and remembers that it did: a retry finds its index in done_parts.
        await client.send(new UpdateCommand({
          TableName: tableName, Key: jobKey(accountId, jobId),
          UpdateExpression: 'ADD partitions_done :one, rows_written :rows, bytes_written :bytes, done_parts :index',
          ConditionExpression: `#state IN (${RUNNING_STATES.join(', ')}) AND (attribute_not_exists(done_parts) OR NOT contains(done_parts, :i))`,
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ...statusValues, ':one': 1, ':rows': file.rows, ':bytes': file.bytes, ':index': new Set([file.index]), ':i': file.index },
        }));
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
      return item ? toFile(item) : undefined;
    },

    async files(jobId) {
      const items = await queryAll(table, {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :files)',
        ExpressionAttributeValues: { ':pk': `JOB#${jobId}`, ':files': 'FILE#' }, ConsistentRead: true,
      });
      return items.map(toFile);
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
  };
  return store;
}
