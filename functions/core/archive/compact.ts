/**
 * Compaction: merges the delta files of a dataset, family and day with the current compacted
 * files into new compacted files (one per symbol-day, or one per day for all-symbol datasets),
 * collapsing duplicate rows on the dataset's unique key. Every dataset the registry marks `merge`
 * is compacted; a dataset `derivedFrom` another (1-minute candles from trades) is rebuilt for the
 * day from the source's deduplicated rows.
 *
 * No reader ever sees a row missing or twice: each new file is recorded with the ids it replaces
 * before any old entry is removed (see files.ts), and replaced objects are deleted only after a
 * grace period, so a reader that resolved them a moment earlier can still fetch them. A lease per
 * dataset and family keeps two compactions from producing rival versions.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DATASETS, DERIVED_DATASETS, INGESTED_DATASETS, familiesOf, type Dataset, type DerivedDataset, type IngestedDataset } from '../../../schemas/datasets.ts';
import type { Family } from '../venues.ts';
import type { ArchiveDeps, ArchiveFile } from '../../ports/archive.ts';
import type { SqlSession, SqlValue } from '../../ports/sql.ts';
import { compactedKey } from './layout.ts';
import { visibleFiles } from './files.ts';
import { candlesFromTradesSql } from './sql.ts';

/** Replaced objects stay readable this long after they leave the manifest. */
export const DELETION_GRACE_MS = 10 * 60_000;
const LEASE_MS = 5 * 60_000;

/**
 * How each derived dataset is computed from its source's rows (a SQL relation): keyed by every
 * derived dataset, so declaring one in the registry without its derivation fails type-checking.
 */
const DERIVATIONS: Readonly<Record<DerivedDataset, (sourceRows: string) => string>> = {
  candles_1m: candlesFromTradesSql,
};

export interface CompactionReport {
  partitions: number;
  filesWritten: number;
  rowsWritten: number;
  deltasRetired: number;
  objectsDeleted: number;
  skippedLeased: number;
}

const quoted = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(', ');

function newestPerSymbol(files: readonly ArchiveFile[]): Map<string, ArchiveFile> {
  const newest = new Map<string, ArchiveFile>();
  for (const file of visibleFiles(files, [])) newest.set(file.symbol ?? '*', file);
  return newest;
}

async function writeOne(
  deps: ArchiveDeps, session: SqlSession, dataset: Dataset, family: Family, day: string,
  symbol: string | undefined, replaces: string[], report: CompactionReport,
): Promise<ArchiveFile | undefined> {
  const def = DATASETS[dataset];
  const version = `${deps.clock.now()}-${randomUUID().slice(0, 8)}`;
  const path = join(deps.scratchDir, `compact-${version}.parquet`);
  const filter = symbol === undefined ? 'TRUE' : 'symbol = $symbol';
  const params: Record<string, SqlValue> = symbol === undefined ? {} : { symbol };
  const [stats] = await session.query({
    sql: `SELECT count(*) AS n, min(ts) AS min_ts, max(ts) AS max_ts, list(DISTINCT symbol ORDER BY symbol) AS symbols FROM merged WHERE ${filter}`,
    params,
  });
  if (!stats || Number(stats.n) === 0) return undefined;
  try {
    await session.execute({
      sql: `COPY (SELECT ${quoted(def.columns.map((c) => c.name))} FROM merged WHERE ${filter} ORDER BY symbol, ts, ${quoted(def.uniqueBy)})
            TO $path (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 65536)`,
      params: { ...params, path },
    });
    const key = compactedKey(dataset, family, symbol, day, version);
    const { etag, bytes } = await deps.objects.putFile(key, path);
    const file: ArchiveFile = {
      fileId: `c-${dataset}-${version}`, key, dataset, family, day, kind: 'compacted', symbol,
      symbols: (stats.symbols as string[]) ?? [], rows: Number(stats.n), bytes, etag,
      minTs: Number(stats.min_ts), maxTs: Number(stats.max_ts), replaces, createdAt: deps.clock.now(),
    };
    await deps.manifest.putFile(file);
    report.filesWritten += 1;
    report.rowsWritten += file.rows;
    return file;
  } finally {
    rmSync(path, { force: true });
  }
}

/** Merges one day's deltas of one dataset and family. */
async function compactDay(deps: ArchiveDeps, dataset: IngestedDataset, family: Family, day: string, deltas: ArchiveFile[], report: CompactionReport): Promise<void> {
  const def = DATASETS[dataset];
  const existing = await deps.manifest.compactedFilesOfDay(dataset, family, day);
  const symbols = def.perSymbol ? [...new Set(deltas.flatMap((d) => d.symbols))].sort() : [undefined];
  const current = newestPerSymbol(existing);
  const inputs = [...deltas, ...symbols.flatMap((s) => current.get(s ?? '*') ?? [])];
  const paths = await deps.files.paths(inputs);
  const deltaIds = deltas.map((d) => d.fileId);
  const written: ArchiveFile[] = [];

  await deps.sql.session(async (session) => {
    await session.execute({
      sql: `CREATE TEMP TABLE merged AS SELECT * FROM read_parquet($files, union_by_name = true)
            QUALIFY row_number() OVER (PARTITION BY ${quoted(['family', ...def.uniqueBy])} ORDER BY ts) = 1`,
      params: { files: paths },
    });
    for (const symbol of symbols) {
      const replaces = [...deltaIds, ...(current.get(symbol ?? '*') ? [current.get(symbol ?? '*')!.fileId] : [])];
      const file = await writeOne(deps, session, dataset, family, day, symbol, replaces, report);
      if (file) written.push(file);
    }
  });

  if (written.length > 0) {
    for (const derived of DERIVED_DATASETS.filter((d) => DATASETS[d].compaction.derivedFrom === dataset)) {
      await rebuildDerived(deps, derived, family, day, written, deltaIds, report);
    }
  }

  // Everything the new files hold is now visible through them; retire what they replace.
  const retired = [...deltas, ...symbols.flatMap((s) => existing.filter((f) => (f.symbol ?? '*') === (s ?? '*')))];
  for (const file of retired) await deps.manifest.deleteFile(file);
  await deps.manifest.scheduleDeletion(retired.map((f) => f.key), deps.clock.now() + DELETION_GRACE_MS);
  report.deltasRetired += deltas.length;
}

/**
 * Re-derives a derived dataset's day (one all-symbol file) for the symbols whose source rows
 * changed. The derived file also lists the source deltas it covers: readers add what they derive
 * on the fly from source deltas no derived file covers yet (for candles, the last minute or so), so
 * the derived dataset stays complete while this runs.
 */
async function rebuildDerived(
  deps: ArchiveDeps, dataset: DerivedDataset, family: Family, day: string, sourceFiles: ArchiveFile[], sourceDeltaIds: string[], report: CompactionReport,
): Promise<void> {
  const existing = await deps.manifest.compactedFilesOfDay(dataset, family, day);
  const previous = newestPerSymbol(existing).get('*');
  const symbols = sourceFiles.map((f) => f.symbol!);
  const sourcePaths = await deps.files.paths(sourceFiles);
  const previousPaths = previous ? await deps.files.paths([previous]) : [];
  await deps.sql.session(async (session) => {
    const fresh = DERIVATIONS[dataset]('read_parquet($source)');
    const kept = previous ? `SELECT * FROM read_parquet($previous) WHERE NOT list_contains($symbols, symbol) UNION ALL ` : '';
    await session.execute({
      sql: `CREATE TEMP TABLE merged AS ${kept}${fresh}`,
      // DuckDB refuses parameters a statement does not use, so $symbols comes only with $previous.
      params: { source: sourcePaths, ...(previous && { previous: previousPaths, symbols }) },
    });
    await writeOne(deps, session, dataset, family, day, undefined, [...sourceDeltaIds, ...(previous ? [previous.fileId] : [])], report);
  });
  for (const file of existing) await deps.manifest.deleteFile(file);
  await deps.manifest.scheduleDeletion(existing.map((f) => f.key), deps.clock.now() + DELETION_GRACE_MS);
}

export async function compactArchive(deps: ArchiveDeps, options: { datasets?: readonly IngestedDataset[]; families?: readonly Family[] } = {}): Promise<CompactionReport> {
  const report: CompactionReport = { partitions: 0, filesWritten: 0, rowsWritten: 0, deltasRetired: 0, objectsDeleted: 0, skippedLeased: 0 };
  const owner = randomUUID();
  for (const dataset of options.datasets ?? INGESTED_DATASETS) {
    for (const family of familiesOf(dataset).filter((f) => !options.families || options.families.includes(f))) {
      const deltas = await deps.manifest.deltaFiles(dataset, family, '0000-01-01', '9999-12-31');
      if (deltas.length === 0) continue;
      const lease = `compact#${dataset}#${family}`;
      if (!(await deps.manifest.acquireLease(lease, owner, deps.clock.now() + LEASE_MS, deps.clock.now()))) {
        report.skippedLeased += 1;
        continue;
      }
      try {
        // (Map.groupBy is Node 21+.)
        const byDay = new Map<string, ArchiveFile[]>();
        for (const delta of deltas) byDay.set(delta.day, [...(byDay.get(delta.day) ?? []), delta]);
        for (const [day, dayDeltas] of byDay) {
          await compactDay(deps, dataset, family, day, dayDeltas, report);
          report.partitions += 1;
        }
      } finally {
        await deps.manifest.releaseLease(lease, owner);
      }
    }
  }
  report.objectsDeleted = await collectGarbage(deps);
  return report;
}

/** Deletes objects whose grace period has passed. */
export async function collectGarbage(deps: ArchiveDeps): Promise<number> {
  let deleted = 0;
  for (;;) {
    const due = await deps.manifest.dueDeletions(deps.clock.now(), 500);
    if (due.length === 0) return deleted;
    await deps.objects.delete(due.map((d) => d.key));
    for (const item of due) await deps.manifest.forgetDeletion(item.id);
    deleted += due.length;
  }
}
