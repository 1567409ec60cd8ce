/**
 * One partition of an export job (a symbol-day): DuckDB reads the archive's visible files of the
 * window (compacted files and any delta not yet compacted, rows repeated across them collapsed on
 * the dataset's key, exactly as the REST routes read them) and writes one ZSTD Parquet file in the
 * schema's versioned columns. The file's key is fixed by job and partition, so a retried partition
 * overwrites its own output and is counted once (ExportStore.recordFile); its object is checked
 * once due, so none outlives a job that did not complete (object-life.ts).
 */
import { createHash } from 'node:crypto';
import { createReadStream, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DATASETS } from '#schemas/datasets.ts';
import { EXPORT_FORMATS, type ExportFormat } from '#schemas/exports.ts';
import type { ExportPartitionJob } from '#schemas/messages.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { ExportFileRecord, ExportObjects, ExportPartition, ExportStore } from '#ports/exports.ts';
import { windowSource } from '../archive/read.ts';
import { DAY_MS } from '../archive/layout.ts';
import { CHECK_AFTER_MS, exportFileKey, exportFileName } from './object-life.ts';

export interface PartitionDeps extends ArchiveDeps {
  exports: ExportStore;
  exportObjects: ExportObjects;
}

export type PartitionOutcome = { status: 'written' | 'already_written'; rows: number; bytes: number } | { status: 'skipped'; state: 'not_running' };

export { exportFileKey, exportFileName };

/** The SELECT that shapes stored rows into the schema's columns, in its order. */
function projection(format: ExportFormat): string {
  return format.columns.map((c) => `${c.sql} AS "${c.name}"`).join(', ');
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Writes and records one partition. The job is not read first: a canceled job's execution is
 * stopped, and a partition already running finds the job canceled when it records its file.
 */
export async function exportPartition(deps: PartitionDeps, job: ExportPartitionJob, partition: ExportPartition): Promise<PartitionOutcome> {
  const format = EXPORT_FORMATS[job.schema];
  const dayStart = Date.parse(`${partition.d}T00:00:00Z`);
  const from = Math.max(job.from, dayStart);
  const to = Math.min(job.to, dayStart + DAY_MS) - 1;
  const name = exportFileName(partition);
  const path = join(deps.scratchDir, `export-${job.jobId}-${name}`);
  try {
    const source = await windowSource(deps, { dataset: format.dataset, family: job.family, symbol: partition.s, from, to });
    // A symbol-day whose files are gone by now still gets its (empty) file: the job's file list stays whole.
    const stored = source?.sql ?? `SELECT ${DATASETS[format.dataset].columns.map((c) => `NULL::${c.type} AS "${c.name}"`).join(', ')} WHERE FALSE`;
    const select = `SELECT ${projection(format)} FROM (${stored}) ORDER BY ${format.orderBy.map((c) => `"${c}"`).join(', ')}`;
    // COPY answers the number of rows it wrote.
    const [copied] = await deps.sql.query({
      sql: `COPY (${select}) TO $e_path (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880, KV_METADATA {schema_version: '${format.version}'})`,
      params: { ...source?.params, e_path: path },
    });
    const file: ExportFileRecord = {
      index: partition.i,
      name,
      symbol: partition.s,
      day: partition.d,
      rows: Number(copied?.Count ?? 0),
      bytes: statSync(path).size,
      sha256: await sha256Of(path),
      key: exportFileKey(job, name),
    };
    // Checked once due (object-life.ts): a partition killed after this put, on a job that then ends, leaves no object for long.
    await deps.exports.scheduleCheck({ accountId: job.accountId, jobId: job.jobId, index: partition.i, key: file.key }, deps.clock.now() + CHECK_AFTER_MS);
    await deps.exportObjects.putFile(file.key, path);
    const outcome = await deps.exports.recordFile(job.accountId, job.jobId, file);
    if (outcome === 'not_running') {
      // Canceled (or failed) while this partition ran: neither its file nor its entry may outlive the job.
      await deps.exportObjects.delete([file.key]);
      await deps.exports.forgetFiles(job.jobId, [file.index]);
      return { status: 'skipped', state: 'not_running' };
    }
    return { status: outcome === 'recorded' ? 'written' : 'already_written', rows: file.rows, bytes: file.bytes };
  } finally {
    rmSync(path, { force: true });
  }
}
