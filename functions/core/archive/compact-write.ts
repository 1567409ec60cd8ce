/**
 * How compaction writes: a merged relation split into parts of bounded bytes, copied to Parquet
 * files beside each other, uploaded with bounded concurrency, and recorded in the manifest with the
 * ids each new file replaces (files.ts), so no reader sees a row missing or twice.
 */
import { randomUUID } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DATASETS, rowGroupRowsOf, sortOrderOf, DERIVED_DATASETS, type Dataset, type DatasetDef, type DerivedDataset } from '#schemas/datasets.ts';
import type { ArchiveDeps, ArchiveFile } from '#ports/archive.ts';
import type { SqlSession } from '#ports/sql.ts';
import { compactedKey, deltaKey } from './layout.ts';
import { dedupeClause } from './dedupe.ts';
import { CADENCE_SQL, cadenceFromRow, isQualityDataset, type FileCadence } from './cadence.ts';
import { type CompactionReport, quoted } from './compact-slot.ts';
import { storeFile } from './object-life.ts';
import { boundedPipeline } from '../bounded.ts';

/** Uploads and manifest writes run this many at a time; DuckDB writes the next file meanwhile. */
export const IO_CONCURRENCY = 16;

/** Bytes of files uploading at once, so a day of large files never crowds DuckDB out of the function's memory. */
const MAX_BYTES_IN_FLIGHT = 256 * 2 ** 20;

interface Part {
  symbol: string | undefined;
  rows: number;
  minTs: number;
  maxTs: number;
  symbols: string[];
  cadence: FileCadence;
}

/**
 * The parts of the temp table `merged` to write, one per symbol (or one for all symbols), with their
 * bounds and each symbol's cadence statistics (kept for the datasets data quality measures): one pass.
 */
export async function partsOf(session: SqlSession, perSymbol: boolean, only?: readonly string[]): Promise<Part[]> {
  const rows = await session.query({ sql: CADENCE_SQL('merged'), params: {} });
  const cadence: FileCadence = Object.fromEntries(rows.map((r) => [String(r.symbol), cadenceFromRow(r)]));
  const symbols = Object.keys(cadence).sort();
  if (!perSymbol) {
    if (symbols.length === 0) return [];
    const all = Object.values(cadence);
    return [
      {
        symbol: undefined,
        rows: all.reduce((n, c) => n + c.rows, 0),
        minTs: Math.min(...all.map((c) => c.minTs)),
        maxTs: Math.max(...all.map((c) => c.maxTs)),
        symbols,
        cadence,
      },
    ];
  }
  return symbols
    .filter((symbol) => !only || only.includes(symbol))
    .map((symbol) => {
      const c = cadence[symbol]!;
      return { symbol, rows: c.rows, minTs: c.minTs, maxTs: c.maxTs, symbols: [symbol], cadence: { [symbol]: c } };
    });
}

/** Writes one part of `merged` as a local ZSTD Parquet file, sorted for time-range reads; returns its path. */
async function copyPart(deps: ArchiveDeps, session: SqlSession, dataset: Dataset, symbol: string | undefined): Promise<string> {
  const def = DATASETS[dataset];
  const path = join(deps.scratchDir, `compact-${randomUUID()}.parquet`);
  await session.execute({
    sql: `COPY (SELECT ${quoted(def.columns.map((c) => c.name))} FROM merged WHERE ${symbol === undefined ? 'TRUE' : 'symbol = $symbol'}
                ORDER BY ${quoted(sortOrderOf(dataset))})
          TO $path (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroupRowsOf(dataset)})`,
    params: { ...(symbol !== undefined && { symbol }), path },
  });
  return path;
}

type NewFile = Omit<ArchiveFile, 'key' | 'rows' | 'bytes' | 'etag' | 'minTs' | 'maxTs' | 'symbols' | 'createdAt' | 'cadence'>;

/**
 * Writes each part with DuckDB (one at a time, on the session) while the parts already written are
 * uploaded and recorded in the manifest, several at a time. Resolves to the recorded files.
 */
export async function writeParts(
  deps: ArchiveDeps,
  session: SqlSession,
  dataset: Dataset,
  parts: readonly Part[],
  describe: (part: Part) => NewFile,
  report: CompactionReport,
): Promise<ArchiveFile[]> {
  // Uploads hold their file in memory: bounded in count and in bytes (one large file may go alone).
  const uploads = boundedPipeline<ArchiveFile>(IO_CONCURRENCY, MAX_BYTES_IN_FLIGHT);
  try {
    for (const part of parts) {
      const path = await copyPart(deps, session, dataset, part.symbol);
      await uploads.add(statSync(path).size, () => record(deps, path, part, describe(part), report));
    }
  } catch (error) {
    await uploads.settle().catch(() => undefined);
    throw error;
  }
  return uploads.settle();
}

/** Uploads a written Parquet file and records it in the manifest; the local copy is removed. */
async function record(deps: ArchiveDeps, path: string, part: Part, file: NewFile, report: CompactionReport): Promise<ArchiveFile> {
  const derived = DERIVED_DATASETS.includes(file.dataset as DerivedDataset);
  try {
    const key =
      file.kind === 'delta'
        ? deltaKey(file.dataset, file.family, file.day, file.fileId)
        : compactedKey(file.dataset, file.family, file.symbol, file.day, file.fileId);
    const full = await storeFile(
      deps,
      {
        ...file,
        key,
        rows: part.rows,
        minTs: part.minTs,
        maxTs: part.maxTs,
        symbols: part.symbols,
        ...(isQualityDataset(file.dataset) && { cadence: part.cadence }),
      },
      path,
    );
    report.filesWritten += 1;
    if (derived) report.derivedRowsWritten += full.rows;
    else report.rowsWritten += full.rows;
    return full;
  } finally {
    rmSync(path, { force: true });
  }
}

export const version = (deps: ArchiveDeps) => `${deps.clock.now()}-${randomUUID().slice(0, 8)}`;

/**
 * The rows of `inputs`, deduplicated on the dataset's key, within [from, to], as the temp table
 * `merged`; a fold of a closed hour or day keeps only what the dataset keeps once folded.
 */
export async function createMerged(
  session: SqlSession,
  dataset: Dataset,
  paths: readonly string[],
  [from, to]: [number, number],
  folding = false,
): Promise<void> {
  const def: DatasetDef = DATASETS[dataset];
  const kept = folding && def.keepWhenFolded ? `AND (${def.keepWhenFolded})` : '';
  await session.execute({
    sql: `CREATE OR REPLACE TEMP TABLE merged AS SELECT * FROM read_parquet($files, union_by_name = true) WHERE ts BETWEEN $from AND $to ${kept}
          ${dedupeClause(dataset, ['family'])}`,
    params: { files: paths, from, to },
  });
}
