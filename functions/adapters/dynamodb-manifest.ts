/**
 * The archive manifest in DynamoDB (why DynamoDB and not an S3 object: ingest and compaction add
 * and retire files concurrently, and conditional writes give leases; see ARCHITECTURE.md).
 *
 *   C#<dataset>#<family>#<symbol|*> / <day>#<fileId>   compacted file  (gsi1: CD#<dataset>#<family>#<day> / <symbol|*>#<fileId>)
 *   D#<dataset>#<family>            / <day>#<fileId>   delta file
 *   B#<batchId>                     / B                batch outcome (idempotent ingest)
 *   L#<name>                        / L                lease
 *   G                               / <after ms>#<key>#<stage>  object deletion, unless its file is listed then
 *   S#<the file's pk>               / <the file's sk>  the file's per-symbol cadence statistics
 *   Y#<dataset>#<family>            / <day>            the day has compacted files (a day index)
 *
 * The statistics live in an item of their own, not on the file's: every read of the archive queries
 * the file items (an open hour's delta compactions hold statistics of every symbol of the family,
 * tens of KB each), and only the data-quality routes want them, by key.
 *
 * The day index lets a month-long family-wide view (coverage, the SLA) ask which days hold compacted
 * files in one query instead of one query a day per dataset (1,300 for the public coverage status).
 * It is written with each compacted file (once per day, dataset and family per instance) and never
 * removed: a day whose files were all retired is one empty query more.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import * as v from 'valibot';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getAll } from './dynamodb-batch.ts';
import type { ArchiveFile, ArchiveManifest, BatchOutcome, FileRef } from '../ports/archive.ts';
import type { FileCadence } from '../core/archive/cadence.ts';
import { parseItem } from './stored-item.ts';

const ALL = '*';

function fileKeys(file: FileRef) {
  if (file.kind === 'delta') return { pk: `D#${file.dataset}#${file.family}`, sk: `${file.day}#${file.fileId}` };
  const symbol = file.symbol ?? ALL;
  return {
    pk: `C#${file.dataset}#${file.family}#${symbol}`,
    sk: `${file.day}#${file.fileId}`,
    gsi1pk: `CD#${file.dataset}#${file.family}#${file.day}`,
    gsi1sk: `${symbol}#${file.fileId}`,
  };
}

/** Where a file's statistics are kept. */
function statsKeys(file: ArchiveFile) {
  const { pk, sk } = fileKeys(file);
  return { pk: `S#${pk}`, sk };
}

function toItem(file: ArchiveFile) {
  return {
    ...fileKeys(file),
    file_id: file.fileId,
    key: file.key,
    dataset: file.dataset,
    family: file.family,
    day: file.day,
    kind: file.kind,
    symbol: file.symbol,
    symbols: file.symbols,
    rows: file.rows,
    bytes: file.bytes,
    etag: file.etag,
    min_ts: file.minTs,
    max_ts: file.maxTs,
    replaces: file.replaces,
    created_at: file.createdAt,
    tier: file.tier,
    hour: file.hour,
  };
}

/**
 * A file item, read field by field and not parsed: every archive read lists its window's files (a
 * day's ingest deltas are hundreds), on the path of every REST query, and a parse of each item
 * costs more than its share of the query. The manifest's items are written by toItem alone.
 */
const BatchItem = v.variant('status', [
  v.object({ status: v.literal('done'), records: v.number() }),
  v.object({ status: v.literal('rejected'), reason: v.string() }),
]);
/** A scheduled deletion; entries from before deletions named their file have only the key. */
const DeletionItem = v.object({
  sk: v.string(),
  key: v.string(),
  stage: v.optional(v.picklist(['upload', 'retired']), 'retired'),
  file: v.optional(
    v.object({
      file_id: v.string(),
      kind: v.picklist(['delta', 'compacted']),
      dataset: v.string(),
      family: v.string(),
      day: v.string(),
      symbol: v.optional(v.string()),
    }),
  ),
});
const DayIndexItem = v.object({ sk: v.string() });
/**
 * A file's statistics: gzipped JSON (or, written before they were gzipped, a JSON string). Only
 * the envelope is checked (an object of per-symbol statistics): a family-wide file holds hundreds
 * of symbols' histograms and gap lists, a coverage read wants one symbol's of each file, and
 * core/quality/coverage.ts reads only that one.
 */
const StatsItem = v.pipe(
  v.union([v.object({ cadence_gz: v.instance(Uint8Array) }), v.object({ cadence: v.string() })]),
  v.transform((item) => ('cadence_gz' in item ? gunzipSync(item.cadence_gz).toString('utf8') : item.cadence)),
  v.parseJson(),
  v.custom<FileCadence>((json) => typeof json === 'object' && json !== null && !Array.isArray(json), 'must be an object of per-symbol statistics'),
);

function fromItem(item: Record<string, unknown>): ArchiveFile {
  return {
    fileId: String(item.file_id),
    key: String(item.key),
    dataset: item.dataset as ArchiveFile['dataset'],
    family: item.family as ArchiveFile['family'],
    day: String(item.day),
    kind: item.kind as ArchiveFile['kind'],
    symbol: item.symbol === undefined ? undefined : String(item.symbol),
    symbols: (item.symbols as string[] | undefined) ?? [],
    rows: Number(item.rows),
    bytes: Number(item.bytes),
    etag: String(item.etag),
    minTs: Number(item.min_ts),
    maxTs: Number(item.max_ts),
    replaces: (item.replaces as string[] | undefined) ?? [],
    createdAt: Number(item.created_at),
    ...(item.tier !== undefined && { tier: item.tier as NonNullable<ArchiveFile['tier']> }),
    ...(item.hour !== undefined && { hour: Number(item.hour) }),
  };
}

export function dynamoArchiveManifest(client: DynamoDBDocumentClient, tableName: string): ArchiveManifest {
  /** Days this instance has put in the day index (a compaction writes many files of one day). */
  const indexedDays = new Set<string>();
  async function queryAll(input: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(new QueryCommand({ ...input, TableName: tableName, ExclusiveStartKey }));
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return items;
  }

  const dayRange = (pk: string, fromDay: string, toDay: string) =>
    queryAll({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': pk, ':from': `${fromDay}#`, ':to': `${toDay}#\uffff` },
      ConsistentRead: true,
    });

  return {
    async putFile(file) {
      // Statistics first: a file readers can see always has them.
      if (file.cadence) {
        // Gzipped JSON, not a map: read whole, and a delta of a family's thinly traded symbols holds
        // hundreds of KB of gap times that gzip shrinks about sixfold (DynamoDB allows 400 KB an
        // item, and bills writes by the KB).
        await client.send(new PutCommand({ TableName: tableName, Item: { ...statsKeys(file), cadence_gz: gzipSync(JSON.stringify(file.cadence)) } }));
      }
      await client.send(new PutCommand({ TableName: tableName, Item: toItem(file) }));
      const day = `Y#${file.dataset}#${file.family}|${file.day}`;
      if (file.kind !== 'delta' && !indexedDays.has(day)) {
        await client.send(new PutCommand({ TableName: tableName, Item: { pk: `Y#${file.dataset}#${file.family}`, sk: file.day } }));
        indexedDays.add(day);
      }
    },
    async cadenceOf(files) {
      const byKey = new Map(
        files.map((file) => {
          const k = statsKeys(file);
          return [`${k.pk}|${k.sk}`, file.fileId] as const;
        }),
      );
      // Eventually consistent: a file's statistics are written before the file itself is listed.
      const items = await getAll(client, tableName, files.map(statsKeys), { consistent: false });
      const found = new Map<string, FileCadence>();
      for (const item of items) {
        const fileId = byKey.get(`${String(item.pk)}|${String(item.sk)}`);
        if (fileId !== undefined) found.set(fileId, parseItem(StatsItem, tableName, item));
      }
      return found;
    },
    async deleteFile(file) {
      const { pk, sk } = fileKeys(file);
      await client.send(new DeleteCommand({ TableName: tableName, Key: { pk, sk } }));
      await client.send(new DeleteCommand({ TableName: tableName, Key: statsKeys(file) }));
    },
    async compactedFiles(dataset, family, symbol, fromDay, toDay) {
      return (await dayRange(`C#${dataset}#${family}#${symbol ?? ALL}`, fromDay, toDay)).map(fromItem);
    },
    async compactedFilesOfDay(dataset, family, day) {
      const items = await queryAll({
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': `CD#${dataset}#${family}#${day}` },
      });
      return items.map(fromItem);
    },
    async compactedDays(dataset, family, fromDay, toDay) {
      const items = await queryAll({
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': `Y#${dataset}#${family}`, ':from': fromDay, ':to': toDay },
        ConsistentRead: true,
      });
      return items.map((item) => parseItem(DayIndexItem, tableName, item).sk);
    },
    async deltaFiles(dataset, family, fromDay, toDay) {
      return (await dayRange(`D#${dataset}#${family}`, fromDay, toDay)).map(fromItem);
    },
    async batchOutcome(batchId) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: `B#${batchId}`, sk: 'B' }, ConsistentRead: true }));
      return Item ? parseItem(BatchItem, tableName, Item) : undefined;
    },
    async recordBatch(batchId, outcome: BatchOutcome) {
      await client.send(new PutCommand({ TableName: tableName, Item: { pk: `B#${batchId}`, sk: 'B', ...outcome, recorded_at: Date.now() } }));
    },
    async acquireLease(name, owner, until, now) {
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: { pk: `L#${name}`, sk: 'L', owner, until },
            ConditionExpression: 'attribute_not_exists(pk) OR #until < :now OR #owner = :owner',
            ExpressionAttributeNames: { '#until': 'until', '#owner': 'owner' },
            ExpressionAttributeValues: { ':now': now, ':owner': owner },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
    async releaseLease(name, owner) {
      try {
        await client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: { pk: `L#${name}`, sk: 'L' },
            ConditionExpression: '#owner = :owner',
            ExpressionAttributeNames: { '#owner': 'owner' },
            ExpressionAttributeValues: { ':owner': owner },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },
    async scheduleDeletion(files, after, stage) {
      const ids: string[] = [];
      for (const file of files) {
        const sk = `${String(after).padStart(15, '0')}#${file.key}#${stage}`;
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              pk: 'G',
              sk,
              key: file.key,
              stage,
              file: { file_id: file.fileId, kind: file.kind, dataset: file.dataset, family: file.family, day: file.day, symbol: file.symbol },
            },
          }),
        );
        ids.push(sk);
      }
      return ids;
    },
    async dueDeletions(now, limit) {
      const { Items = [] } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :g AND sk < :now',
          ExpressionAttributeValues: { ':g': 'G', ':now': `${String(now).padStart(15, '0')}#` },
          Limit: limit,
          ConsistentRead: true,
        }),
      );
      return Items.map((stored) => {
        const { sk, key, stage, file } = parseItem(DeletionItem, tableName, stored);
        return {
          id: sk,
          key,
          stage,
          ...(file && {
            file: {
              key,
              fileId: file.file_id,
              kind: file.kind,
              dataset: file.dataset as FileRef['dataset'],
              family: file.family as FileRef['family'],
              day: file.day,
              symbol: file.symbol,
            },
          }),
        };
      });
    },
    async isListed(file) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: { pk: fileKeys(file).pk, sk: fileKeys(file).sk }, ConsistentRead: true, ProjectionExpression: 'pk' }),
      );
      return Item !== undefined;
    },
    async forgetDeletion(id) {
      await client.send(new DeleteCommand({ TableName: tableName, Key: { pk: 'G', sk: id } }));
    },
  };
}
