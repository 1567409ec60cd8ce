/**
 * Ingest: a raw batch becomes delta Parquet files (one per dataset, family and UTC day, rows of
 * many symbols sorted by symbol and time) and their manifest entries.
 *
 * Idempotent: the batch id is the SHA-256 of its bytes and every file id derives from it, so a
 * retry after a crash rewrites the same objects and manifest items, and a batch already done is
 * skipped. A malformed batch is refused whole before anything is written; its reason is recorded
 * so redeliveries are refused at once (the queue then moves it to the DLQ).
 */
import { createHash, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DATASETS, rowGroupRowsOf, sortOrderOf, type IngestedDataset, type NormalizedRecord } from '#schemas/datasets.ts';
import type { Family } from '../venues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { storeFile } from './object-life.ts';
import { boundedPipeline } from '../bounded.ts';
import { DAY_MS, dayOf, deltaKey } from './layout.ts';
import { parseBatch, type ParseOptions } from './parse.ts';
import { knownSymbols, spotNames, unseenInstruments } from './venue-registry.ts';
import { cadenceOf, isQualityDataset } from './cadence.ts';
import { ALTX_FORMAT_FAMILY, isAltxFormat } from './altx-api.ts';
import { registryMarkets } from './altx-markets.ts';
import type { BatchFormat } from '#schemas/messages.ts';

export type IngestResult =
  | { status: 'ingested'; batchId: string; records: number; files: number }
  | { status: 'duplicate'; batchId: string }
  | { status: 'rejected'; batchId: string; reason: string };

export function batchIdOf(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Records grouped by the delta file they belong to. */
interface Partition {
  dataset: IngestedDataset;
  family: Family;
  day: string;
  rows: NormalizedRecord[];
  lines: string[];
}

/** Records (and their JSON text) grouped by the delta file they belong to. */
export function partition(records: readonly NormalizedRecord[], lines: readonly string[]): Map<string, Partition> {
  const groups = new Map<string, Partition>();
  // Formatting a date per record was a few percent of a large batch; a batch spans a day or two.
  const days = new Map<number, string>();
  records.forEach((record, i) => {
    const dayNumber = Math.floor(record.ts / DAY_MS);
    let day = days.get(dayNumber);
    if (day === undefined) days.set(dayNumber, (day = dayOf(record.ts)));
    const slot = `${record.dataset}#${record.family}#${day}`;
    let group = groups.get(slot);
    if (!group) groups.set(slot, (group = { dataset: record.dataset, family: record.family as Family, day, rows: [], lines: [] }));
    group.rows.push(record);
    group.lines.push(lines[i]!);
  });
  return groups;
}

/**
 * `afterWrite` sees the batch's records once its files and manifest entries are written and before
 * the batch is marked done: if it fails, the batch is retried whole and runs it again (detection
 * relies on this to never miss a batch's occurrences). `options.at` is the instant of a file that
 * carries no time of its own (its landing key's `at=`).
 *
 * A batch of the venue's own files (any format but `normalized`) also consults the instrument
 * registry: spot pairs it names by index get the spot metadata's names, and symbols the registry
 * has never seen get an instrument (venue-registry.ts).
 */
export async function ingestBatch(
  deps: ArchiveDeps,
  format: BatchFormat,
  bytes: Uint8Array | string,
  afterWrite?: (records: readonly NormalizedRecord[]) => Promise<void>,
  options: Pick<ParseOptions, 'at'> = {},
): Promise<IngestResult> {
  const batchId = batchIdOf(bytes);
  const previous = await deps.manifest.batchOutcome(batchId);
  if (previous?.status === 'done') return { status: 'duplicate', batchId };
  if (previous?.status === 'rejected') return { status: 'rejected', batchId, reason: previous.reason };

  // A view of the bytes, not a copy (a batch is up to a hundred megabytes).
  const text = typeof bytes === 'string' ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  // The venue's node and archive files: their instruments come from the registry (altx recordings describe their own markets).
  const venue = format !== 'normalized' && !isAltxFormat(format);
  // Only a text naming a spot pair by index (`"@107"`) needs the names.
  const names = venue && format !== 'spot_meta' && /"@\d/.test(text) ? await spotNames(deps) : undefined;
  // An altx recording names markets by the venue's ids; the family's registry knows the ones it does not describe itself.
  const altxMarkets = isAltxFormat(format) ? await registryMarkets(deps, ALTX_FORMAT_FAMILY[format]) : undefined;
  const parsed = parseBatch(format, text, { ...options, spotNames: names, ...(altxMarkets && { altxMarkets }) });
  if (!parsed.ok) {
    await deps.manifest.recordBatch(batchId, { status: 'rejected', reason: parsed.reason });
    return { status: 'rejected', batchId, reason: parsed.reason };
  }
  const { records, lines } = parsed;
  if (venue) {
    const listed = unseenInstruments(records, await knownSymbols(deps, records));
    records.push(...listed);
    lines.push(...listed.map((record) => JSON.stringify(record)));
  }

  const files = await writeDeltas(deps, batchId, records, lines);
  await afterWrite?.(records);
  await deps.manifest.recordBatch(batchId, { status: 'done', records: records.length });
  return { status: 'ingested', batchId, records: records.length, files };
}

/**
 * Records one of our own jobs produced (the positions job): typed, so valid by construction, and
 * written by the same path as a batch without printing and re-parsing them (which cost the job as
 * much as building them). The batch id is the hash of their JSON lines, so a rerun is a duplicate.
 */
export async function ingestRecords(deps: ArchiveDeps, records: readonly NormalizedRecord[]): Promise<IngestResult> {
  const lines = records.map((record) => JSON.stringify(record));
  const hash = createHash('sha256');
  for (const line of lines) hash.update(line).update('\n');
  const batchId = hash.digest('hex');
  if ((await deps.manifest.batchOutcome(batchId))?.status === 'done') return { status: 'duplicate', batchId };
  const files = await writeDeltas(deps, batchId, records, lines);
  await deps.manifest.recordBatch(batchId, { status: 'done', records: records.length });
  return { status: 'ingested', batchId, records: records.length, files };
}

/** Uploads (each followed by its manifest entry) in flight while the next file is written. */
const UPLOADS_IN_FLIGHT = 8;

/**
 * One delta file per dataset, family and UTC day of the batch, each recorded in the manifest once
 * its object is stored; returns how many. Files are written one after the other (DuckDB uses the
 * cores) while earlier ones upload: a live batch has a few dozen small files, and waiting on each
 * upload and manifest write in turn was most of its time.
 */
async function writeDeltas(deps: ArchiveDeps, batchId: string, records: readonly NormalizedRecord[], lines: readonly string[]): Promise<number> {
  const groups = partition(records, lines);
  const uploads = boundedPipeline<void>(UPLOADS_IN_FLIGHT);
  for (const { dataset, family, day, rows, lines } of groups.values()) {
    const def = DATASETS[dataset];
    const fileId = `${batchId.slice(0, 20)}-${dataset}-${family}-${day}`;
    // The object key derives from the batch; the scratch name must not: a redelivered batch can be
    // ingested twice at once (one process in the local cloud), and one call's cleanup would remove
    // the other's file mid-write.
    const path = join(deps.scratchDir, `${fileId}-${randomUUID()}.parquet`);
    try {
      await deps.sql.writeParquet(def.columns, lines, sortOrderOf(dataset), path, rowGroupRowsOf(dataset));
    } catch (error) {
      rmSync(path, { force: true });
      await uploads.settle().catch(() => undefined);
      throw error;
    }
    let minTs = Infinity;
    let maxTs = -Infinity;
    for (const row of rows) {
      if (row.ts < minTs) minTs = row.ts;
      if (row.ts > maxTs) maxTs = row.ts;
    }
    const key = deltaKey(dataset, family, day, fileId);
    const described = {
      fileId,
      key,
      dataset,
      family,
      day,
      kind: 'delta' as const,
      symbols: [...new Set(rows.map((r) => r.symbol))].sort(),
      rows: rows.length,
      minTs,
      maxTs,
      replaces: [],
      ...(isQualityDataset(dataset) && { cadence: cadenceOf(rows) }),
    };
    await uploads.add(1, async () => {
      try {
        await storeFile(deps, described, path);
      } finally {
        rmSync(path, { force: true });
      }
    });
  }
  // The batch is retried whole; its files are rewritten under the same keys.
  await uploads.settle();
  return groups.size;
}
