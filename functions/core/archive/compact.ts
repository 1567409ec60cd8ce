/**
 * Compaction, in tiers, so that a row is rewritten a bounded number of times however busy its day:
 *
 *   ingest deltas (one per batch, all symbols)
 *     -> every run: merged into delta compactions, one per UTC hour they touch (all symbols)
 *     -> once the hour has closed: one file per symbol-hour
 *     -> once the day has closed: one file per symbol-day (late data for a closed day goes straight here)
 *
 * Each row is written by ingest and rewritten at most three times (the `rowsWritten` of a run
 * counts rewrites), and a run handles at most an hour of new rows per partition plus, once a day,
 * the day that just closed. A dataset `derivedFrom` another (1-minute candles from trades) is
 * rebuilt for the same hour or day from the source's merged rows.
 *
 * No reader ever sees a row missing or twice: each new file is recorded with the ids it replaces
 * before any old entry is removed (see files.ts), and replaced objects are deleted only after a
 * grace period, so a reader that resolved them a moment earlier can still fetch them. A lease per
 * dataset and family keeps two compactions from producing rival versions.
 */
import { randomUUID } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DATASETS, rowGroupRowsOf, sortOrderOf, DERIVED_DATASETS, INGESTED_DATASETS, familiesOf, type Dataset, type DatasetDef, type DerivedDataset, type IngestedDataset } from '../../../schemas/datasets.ts';
import type { Family } from '../venues.ts';
import type { ArchiveDeps, ArchiveFile } from '../../ports/archive.ts';
import type { SqlSession } from '../../ports/sql.ts';
import { DAY_MS, SETTLE_MS, compactedKey, dayOf, daysBetween, deltaKey, hourSettled } from './layout.ts';
import { visibleFiles } from './files.ts';
import { dedupeClause } from './dedupe.ts';
import { eachBounded } from '../bounded.ts';
import { candlesFromTradesSql, oiCrossingsSql, reductionSql, rollupSql } from './sql.ts';
import { windowSource } from './read.ts';
import { CADENCE_SQL, cadenceFromRow, isQualityDataset, type FileCadence } from './cadence.ts';

/** Replaced objects stay readable this long after they leave the manifest. */
export const DELETION_GRACE_MS = 10 * 60_000;
const LEASE_MS = 5 * 60_000;
const HOUR_MS = 3_600_000;
export { SETTLE_MS };
/** The scheduled run's fold budget: folds started after it wait a minute, so runs stay short. */
export const SCHEDULED_FOLD_BUDGET_MS = 5_000;
/** Closed days still checked for hour files to fold, when they have no deltas left. */
const FOLD_LOOKBACK_DAYS = 2;

/**
 * How each derived dataset is computed from its source's rows (a SQL relation): keyed by every
 * derived dataset, so declaring one in the registry without its derivation fails type-checking.
 */
const DERIVATIONS: Readonly<Record<DerivedDataset, (sourceRows: string, slotHours: number) => string>> = {
  candles_1m: candlesFromTradesSql,
  liquidation_rollups_1h: (source) => rollupSql('liquidation_rollups_1h', source),
  account_liquidation_rollups_1h: (source) => rollupSql('account_liquidation_rollups_1h', source),
  fill_rollups_1h: (source) => rollupSql('fill_rollups_1h', source),
  transfer_rollups_1h: (source) => rollupSql('transfer_rollups_1h', source),
  funding_rates_1h: (source) => reductionSql('funding_rates_1h', source),
  pga_payments_1h: (source) => reductionSql('pga_payments_1h', source),
  oracle_moves_1h: (source) => reductionSql('oracle_moves_1h', source),
  liquidation_minutes_1h: (source) => reductionSql('liquidation_minutes_1h', source),
  oi_crossings: oiCrossingsSql,
};

export interface CompactionReport {
  partitions: number;
  filesWritten: number;
  /** Ingested rows rewritten by compaction (into delta compactions, hour files and day files). */
  rowsWritten: number;
  /** Rows of derived datasets written (1-minute candles). */
  derivedRowsWritten: number;
  deltasRetired: number;
  objectsDeleted: number;
  skippedLeased: number;
  /** Hour or day folds left for a later run, the fold budget being spent. */
  foldsDeferred: number;
}

/** Where a compaction writes: a symbol-hour of the open day, or a symbol-day. */
type Slot = { tier: 'hour'; hour: number } | { tier: 'day' };

const quoted = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(', ');
const hourOf = (ts: number) => Math.floor((ts % DAY_MS) / HOUR_MS);
const dayStart = (day: string) => Date.parse(`${day}T00:00:00Z`);
const slotRange = (day: string, slot: Slot): [number, number] => (slot.tier === 'day'
  ? [dayStart(day), dayStart(day) + DAY_MS - 1]
  : [dayStart(day) + slot.hour * HOUR_MS, dayStart(day) + (slot.hour + 1) * HOUR_MS - 1]);

/** A compacted file's visible predecessors per symbol (`*` for all-symbol datasets): its day file and hour files. */
function visibleBySymbol(files: readonly ArchiveFile[]): Map<string, ArchiveFile[]> {
  const bySymbol = new Map<string, ArchiveFile[]>();
  for (const file of files) bySymbol.set(file.symbol ?? '*', [...(bySymbol.get(file.symbol ?? '*') ?? []), file]);
  for (const [symbol, group] of bySymbol) bySymbol.set(symbol, visibleFiles(group, []));
  return bySymbol;
}

/** Uploads and manifest writes run this many at a time; DuckDB writes the next file meanwhile. */
const IO_CONCURRENCY = 16;
/** Bytes of files uploading at once, so a day of large files never crowds DuckDB out of the function's memory. */
const MAX_BYTES_IN_FLIGHT = 256 * 2 ** 20;

interface Part { symbol: string | undefined; rows: number; minTs: number; maxTs: number; symbols: string[]; cadence: FileCadence }

/**
 * The parts of the temp table `merged` to write, one per symbol (or one for all symbols), with their
 * bounds and each symbol's cadence statistics (kept for the datasets data quality measures): one pass.
 */
async function partsOf(session: SqlSession, perSymbol: boolean, only?: readonly string[]): Promise<Part[]> {
  const rows = await session.query({ sql: CADENCE_SQL('merged'), params: {} });
  const cadence: FileCadence = Object.fromEntries(rows.map((r) => [String(r.symbol), cadenceFromRow(r)]));
  const symbols = Object.keys(cadence).sort();
  if (!perSymbol) {
    if (symbols.length === 0) return [];
    const all = Object.values(cadence);
    return [{
      symbol: undefined, rows: all.reduce((n, c) => n + c.rows, 0), minTs: Math.min(...all.map((c) => c.minTs)), maxTs: Math.max(...all.map((c) => c.maxTs)), symbols, cadence,
    }];
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
async function writeParts(
  deps: ArchiveDeps, session: SqlSession, dataset: Dataset, parts: readonly Part[], describe: (part: Part) => NewFile, report: CompactionReport,
): Promise<ArchiveFile[]> {
  const uploads: Promise<ArchiveFile>[] = [];
  let inFlight = 0;
  let bytesInFlight = 0;
  for (const part of parts) {
    const path = await copyPart(deps, session, dataset, part.symbol);
    const bytes = statSync(path).size;
    // Uploads hold their file in memory: bounded in count and in bytes (one large file may go alone).
    while (inFlight >= IO_CONCURRENCY || (inFlight > 0 && bytesInFlight + bytes > MAX_BYTES_IN_FLIGHT)) await Promise.race(uploads);
    inFlight += 1;
    bytesInFlight += bytes;
    uploads.push(record(deps, path, part, describe(part), report).finally(() => { inFlight -= 1; bytesInFlight -= bytes; }));
  }
  return Promise.all(uploads);
}

/** Uploads a written Parquet file and records it in the manifest; the local copy is removed. */
async function record(deps: ArchiveDeps, path: string, part: Part, file: NewFile, report: CompactionReport): Promise<ArchiveFile> {
  const derived = DERIVED_DATASETS.includes(file.dataset as DerivedDataset);
  try {
    const key = file.kind === 'delta' ? deltaKey(file.dataset, file.family, file.day, file.fileId) : compactedKey(file.dataset, file.family, file.symbol, file.day, file.fileId);
    const { etag, bytes } = await deps.objects.putFile(key, path);
    const full: ArchiveFile = {
      ...file, key, rows: part.rows, bytes, etag, minTs: part.minTs, maxTs: part.maxTs, symbols: part.symbols, createdAt: deps.clock.now(),
      ...(isQualityDataset(file.dataset) && { cadence: part.cadence }),
    };
    await deps.manifest.putFile(full);
    report.filesWritten += 1;
    if (derived) report.derivedRowsWritten += full.rows;
    else report.rowsWritten += full.rows;
    return full;
  } finally {
    rmSync(path, { force: true });
  }
}

const version = (deps: ArchiveDeps) => `${deps.clock.now()}-${randomUUID().slice(0, 8)}`;

/**
 * The rows of `inputs`, deduplicated on the dataset's key, within [from, to], as the temp table
 * `merged`; a fold of a closed hour or day keeps only what the dataset keeps once folded.
 */
async function createMerged(session: SqlSession, dataset: Dataset, paths: readonly string[], [from, to]: [number, number], folding = false): Promise<void> {
  const def: DatasetDef = DATASETS[dataset];
  const kept = folding && def.keepWhenFolded ? `AND (${def.keepWhenFolded})` : '';
  await session.execute({
    sql: `CREATE OR REPLACE TEMP TABLE merged AS SELECT * FROM read_parquet($files, union_by_name = true) WHERE ts BETWEEN $from AND $to ${kept}
          ${dedupeClause(dataset, ['family'])}`,
    params: { files: paths, from, to },
  });
}

/**
 * Merges the ingest deltas of an open day into delta compactions, one per UTC hour their rows
 * touch. Only the last one written lists the ingest deltas as replaced: until then they stay
 * visible beside the first ones (overlapping rows collapse), so no row is ever hidden.
 */
async function mergeIngestDeltas(deps: ArchiveDeps, dataset: IngestedDataset, family: Family, day: string, raw: ArchiveFile[], report: CompactionReport): Promise<ArchiveFile[]> {
  const hours = [...new Set(raw.flatMap((d) => {
    const span: number[] = [];
    for (let h = hourOf(d.minTs); h <= hourOf(d.maxTs); h++) span.push(h);
    return span;
  }))].sort((a, b) => a - b);
  const paths = await deps.files.paths(raw);
  const written: ArchiveFile[] = [];
  await deps.sql.session(async (session) => {
    for (const hour of hours) {
      await createMerged(session, dataset, paths, slotRange(day, { tier: 'hour', hour }));
      const parts = await partsOf(session, false);
      written.push(...await writeParts(deps, session, dataset, parts, () => ({
        fileId: `m-${version(deps)}-h${hour}`, dataset, family, day, kind: 'delta', tier: 'minute', hour, replaces: [],
      }), report));
    }
  });
  const last = written.at(-1);
  if (last) await deps.manifest.putFile({ ...last, replaces: raw.map((d) => d.fileId) });
  // The last delta compaction written replaces the ingest deltas; only then may they go.
  if (written.length > 0) await retire(deps, raw, report);
  return written;
}

/**
 * Rewrites the rows of `deltas` and of each affected symbol's visible compacted files of the slot
 * into one file per symbol (or one all-symbol file) of the slot, then re-derives what derives from
 * the dataset and retires what the new files replace.
 */
async function mergeSlot(
  deps: ArchiveDeps, dataset: IngestedDataset, family: Family, day: string, slot: Slot, deltas: ArchiveFile[], existing: readonly ArchiveFile[], report: CompactionReport,
  options: { symbols?: readonly string[]; derive?: boolean } = {},
): Promise<ArchiveFile[]> {
  const def = DATASETS[dataset];
  const range = slotRange(day, slot);
  const inSlot = (f: ArchiveFile) => f.minTs <= range[1] && f.maxTs >= range[0];
  const previous = visibleBySymbol(existing.filter((f) => slot.tier === 'day' || (f.tier === 'hour' && f.hour === slot.hour)));
  // A day fold also takes every symbol that still has hour files; a symbol with only its day file is left alone.
  const folding = slot.tier === 'day' ? [...previous].filter(([, files]) => files.some((f) => f.tier === 'hour')).map(([symbol]) => symbol) : [];
  const symbols = options.symbols ?? (def.perSymbol ? [...new Set([...deltas.flatMap((d) => d.symbols), ...folding])].sort() : ['*']);
  const replacedOf = (symbol: string) => (previous.get(symbol) ?? []).filter(inSlot);
  const inputs = [...deltas, ...symbols.flatMap(replacedOf)];
  if (inputs.length === 0) return [];
  const paths = await deps.files.paths(inputs);
  const written: ArchiveFile[] = [];
  await deps.sql.session(async (session) => {
    await createMerged(session, dataset, paths, range, true);
    const parts = await partsOf(session, def.perSymbol, def.perSymbol ? symbols : undefined);
    written.push(...await writeParts(deps, session, dataset, parts, (part) => ({
      fileId: `c-${dataset}-${version(deps)}`, dataset, family, day, kind: 'compacted', symbol: part.symbol,
      ...(slot.tier === 'hour' && { tier: 'hour' as const, hour: slot.hour }),
      replaces: replacedOf(part.symbol ?? '*').map((f) => f.fileId),
    }), report));
  });
  // The deltas hold every symbol's rows: only once each symbol's file exists may one of them hide
  // the deltas (until then, rows seen in both collapse), so a family-wide read never misses a symbol.
  const last = written.at(-1);
  if (last) await deps.manifest.putFile({ ...last, replaces: [...last.replaces, ...deltas.map((d) => d.fileId)] });
  if (written.length > 0 && options.derive !== false) await rebuildAllDerived(deps, dataset, family, day, slot, written, deltas, report);
  await retire(deps, [...deltas, ...symbols.flatMap(replacedOf)], report);
  return written;
}

async function rebuildAllDerived(
  deps: ArchiveDeps, dataset: IngestedDataset, family: Family, day: string, slot: Slot, written: ArchiveFile[], deltas: readonly ArchiveFile[], report: CompactionReport,
): Promise<void> {
  // Only in the families the derived dataset has (pga_payments_1h is perpx's alone, though every family trades).
  for (const derived of DERIVED_DATASETS.filter((d) => DATASETS[d].compaction.derivedFrom === dataset && familiesOf(d).includes(family))) {
    await rebuildDerived(deps, derived, family, day, slot, written, deltas.map((d) => d.fileId), report);
  }
}

/** Removes files from the manifest (their rows are visible through what replaced them) and schedules their objects' deletion. */
async function retire(deps: ArchiveDeps, files: readonly ArchiveFile[], report: CompactionReport): Promise<void> {
  await eachBounded(files, IO_CONCURRENCY, (file) => deps.manifest.deleteFile(file));
  await deps.manifest.scheduleDeletion(files.map((f) => f.key), deps.clock.now() + DELETION_GRACE_MS);
  report.deltasRetired += files.filter((f) => f.kind === 'delta').length;
}

/**
 * Re-derives a derived dataset's slot for the symbols whose source rows changed (`sourceFiles`, one
 * per symbol, each complete for the slot). A per-symbol derived dataset (1-minute candles) writes
 * one file per such symbol, replacing that symbol's previous files of the slot; an all-symbol one
 * rewrites the slot's one file, keeping the previous rows of the other symbols. The derived files
 * also list the source deltas they cover: readers add what they derive on the fly from source
 * deltas no derived file of the symbol covers yet (for candles, the last minutes), so the derived
 * dataset stays complete meanwhile. A family-wide file left from before the dataset was split per
 * symbol is left in place: readers prefer the symbol's own file of the same slot (files.ts).
 */
async function rebuildDerived(
  deps: ArchiveDeps, dataset: DerivedDataset, family: Family, day: string, slot: Slot, sourceFiles: ArchiveFile[], sourceDeltaIds: string[], report: CompactionReport,
): Promise<void> {
  const { perSymbol } = DATASETS[dataset];
  const symbols = sourceFiles.map((f) => f.symbol!);
  const existing = await deps.manifest.compactedFilesOfDay(dataset, family, day);
  const inSlot = (f: ArchiveFile) => slot.tier === 'day' || (f.tier === 'hour' && f.hour === slot.hour);
  const previous = visibleFiles(existing, []).filter((f) => inSlot(f) && (perSymbol ? f.symbol !== undefined && symbols.includes(f.symbol) : f.symbol === undefined));
  const sourcePaths = await deps.files.paths(sourceFiles);
  // A per-symbol derived dataset replaces each symbol's previous files whole; an all-symbol one keeps their other symbols' rows.
  const previousPaths = !perSymbol && previous.length > 0 ? await deps.files.paths(previous) : [];
  // A derivation that looks back (a move over a window) also reads the source's rows just before the slot.
  const { derivedFrom, lookbackMs }: { derivedFrom: string; lookbackMs?: number } = DATASETS[dataset].compaction;
  const [slotFrom] = slotRange(day, slot);
  const before = lookbackMs ? await windowSource(deps, { dataset: derivedFrom as IngestedDataset, family, from: slotFrom - lookbackMs, to: slotFrom - 1, symbols }) : undefined;
  await deps.sql.session(async (session) => {
    const source = before ? `(SELECT * FROM read_parquet($source, union_by_name = true) UNION ALL BY NAME ${before.sql})` : 'read_parquet($source)';
    const fresh = `SELECT * FROM (${DERIVATIONS[dataset](source, slot.tier === 'day' ? 24 : 1)})`;
    const kept = previousPaths.length > 0 ? `SELECT * FROM read_parquet($previous, union_by_name = true) WHERE NOT list_contains($symbols, symbol) UNION ALL BY NAME ` : '';
    await session.execute({
      sql: `CREATE OR REPLACE TEMP TABLE merged AS ${kept}${fresh}`,
      // DuckDB refuses parameters a statement does not use, so $symbols comes only with $previous.
      params: {
        source: sourcePaths, ...(previousPaths.length > 0 && { previous: previousPaths, symbols }), ...(lookbackMs && { ...before?.params, slot_from: slotFrom }),
      },
    });
    await writeParts(deps, session, dataset, await partsOf(session, perSymbol, perSymbol ? symbols : undefined), (part) => ({
      fileId: `c-${dataset}-${version(deps)}`, dataset, family, day, kind: 'compacted', symbol: part.symbol,
      ...(slot.tier === 'hour' && { tier: 'hour' as const, hour: slot.hour }),
      replaces: [...sourceDeltaIds, ...previous.filter((f) => f.symbol === part.symbol).map((f) => f.fileId)],
    }), report);
  });
  await retire(deps, previous, report);
}

/**
 * One day of one dataset and family. A closed day folds everything (deltas, delta compactions, hour
 * files, a previous day file) into day files; an open day merges its ingest deltas by hour and
 * folds each closed hour into hour files.
 */
async function compactDay(
  deps: ArchiveDeps, dataset: IngestedDataset, family: Family, day: string, deltas: ArchiveFile[], report: CompactionReport, mayFold: () => boolean,
): Promise<void> {
  const now = deps.clock.now();
  const existing = await deps.manifest.compactedFilesOfDay(dataset, family, day);
  const closed = now >= dayStart(day) + DAY_MS + SETTLE_MS;
  // Late rows for a day folded long ago go straight into their symbols' day files.
  if (closed && !existing.some((f) => f.tier === 'hour')) {
    if (deltas.length > 0 && mayFold()) await mergeSlot(deps, dataset, family, day, { tier: 'day' }, deltas, existing, report);
    return;
  }
  const raw = deltas.filter((d) => d.tier === undefined);
  const merged = [...deltas.filter((d) => d.tier === 'minute'), ...(raw.length > 0 ? await mergeIngestDeltas(deps, dataset, family, day, raw, report) : [])];
  const closedHours = [...new Set(merged.map((d) => d.hour!))].filter((hour) => hourSettled(dayStart(day) + hour * HOUR_MS, now)).sort((a, b) => a - b);
  for (const hour of closedHours) {
    if (!mayFold()) return;
    await mergeSlot(deps, dataset, family, day, { tier: 'hour', hour }, merged.filter((d) => d.hour === hour), existing, report);
  }
  if (closed) await foldDay(deps, dataset, family, day, report, mayFold);
}

/** Symbols folded into day files per step of a closing day's fold (the budget is checked between steps). */
const DAY_FOLD_STEP_SYMBOLS = 16;

/**
 * Folds a closed day, now hour files only, into day files a few symbols at a time, so a busy
 * day's close spreads over several runs; the derived dataset's day is rebuilt once per run, from
 * the day files written and the previous derived rows of every other symbol.
 */
async function foldDay(deps: ArchiveDeps, dataset: IngestedDataset, family: Family, day: string, report: CompactionReport, mayFold: () => boolean): Promise<void> {
  const existing = await deps.manifest.compactedFilesOfDay(dataset, family, day);
  const pending = [...visibleBySymbol(existing)].filter(([, files]) => files.some((f) => f.tier === 'hour')).map(([symbol]) => symbol).sort();
  const written: ArchiveFile[] = [];
  for (let i = 0; i < pending.length; i += DAY_FOLD_STEP_SYMBOLS) {
    if (!mayFold()) break;
    const step = DATASETS[dataset].perSymbol ? pending.slice(i, i + DAY_FOLD_STEP_SYMBOLS) : ['*'];
    written.push(...await mergeSlot(deps, dataset, family, day, { tier: 'day' }, [], existing, report, { symbols: step, derive: false }));
  }
  if (written.length > 0) await rebuildAllDerived(deps, dataset, family, day, { tier: 'day' }, written, [], report);
}

export interface CompactionOptions {
  datasets?: readonly IngestedDataset[];
  families?: readonly Family[];
  /**
   * Wall-clock milliseconds after which a run starts no more hour or day folds (they wait for the
   * next run); ingest deltas are always merged, so live reads stay a few files. No limit if absent.
   */
  foldBudgetMs?: number;
}

export async function compactArchive(deps: ArchiveDeps, options: CompactionOptions = {}): Promise<CompactionReport> {
  const report = emptyReport();
  const owner = randomUUID();
  const now = deps.clock.now();
  const started = performance.now();
  const mayFold = () => {
    const within = options.foldBudgetMs === undefined || performance.now() - started < options.foldBudgetMs;
    if (!within) report.foldsDeferred += 1;
    return within;
  };
  // Days that closed lately may hold hour files and no deltas: they are folded into day files.
  const foldDays = Array.from({ length: FOLD_LOOKBACK_DAYS }, (_, i) => dayOf(now - SETTLE_MS - (i + 1) * DAY_MS));
  for (const dataset of options.datasets ?? INGESTED_DATASETS) {
    for (const family of familiesOf(dataset).filter((f) => !options.families || options.families.includes(f))) {
      const deltas = await deps.manifest.deltaFiles(dataset, family, '0000-01-01', '9999-12-31');
      const byDay = new Map<string, ArchiveFile[]>();
      for (const delta of deltas) byDay.set(delta.day, [...(byDay.get(delta.day) ?? []), delta]);
      for (const day of foldDays) {
        if (!byDay.has(day) && (await deps.manifest.compactedFilesOfDay(dataset, family, day)).some((f) => f.tier === 'hour')) byDay.set(day, []);
      }
      if (byDay.size === 0) continue;
      const lease = `compact#${dataset}#${family}`;
      if (!(await deps.manifest.acquireLease(lease, owner, deps.clock.now() + LEASE_MS, deps.clock.now()))) {
        report.skippedLeased += 1;
        continue;
      }
      try {
        for (const [day, dayDeltas] of [...byDay].sort(([a], [b]) => a.localeCompare(b))) {
          await compactDay(deps, dataset, family, day, dayDeltas, report, mayFold);
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

const emptyReport = (): CompactionReport => ({
  partitions: 0, filesWritten: 0, rowsWritten: 0, derivedRowsWritten: 0, deltasRetired: 0, objectsDeleted: 0, skippedLeased: 0, foldsDeferred: 0,
});

/**
 * Derives derived datasets again for closed days from their source's day files: days compacted
 * before a derived dataset existed (a rollup added to a running archive), or one to rebuild. A
 * day at a time per family, under the source's compaction lease (waiting while compaction holds
 * it); days still in hour files are left to their day fold, which derives them.
 */
export async function rederiveDays(
  deps: ArchiveDeps, options: { datasets: readonly DerivedDataset[]; families?: readonly Family[]; from: string; to: string; onDay?: (day: string) => void },
): Promise<CompactionReport> {
  const report = emptyReport();
  const owner = randomUUID();
  for (const dataset of options.datasets) {
    const source = DATASETS[dataset].compaction.derivedFrom as IngestedDataset;
    for (const family of familiesOf(dataset).filter((f) => !options.families || options.families.includes(f))) {
      for (const day of daysBetween(options.from, options.to)) {
        if (deps.clock.now() < dayStart(day) + DAY_MS + SETTLE_MS) continue;
        const lease = `compact#${source}#${family}`;
        while (!(await deps.manifest.acquireLease(lease, owner, deps.clock.now() + LEASE_MS, deps.clock.now()))) {
          report.skippedLeased += 1;
          await new Promise((resolve) => setTimeout(resolve, 2_000));
        }
        try {
          const files = visibleFiles(await deps.manifest.compactedFilesOfDay(source, family, day), []);
          if (files.length > 0 && files.every((f) => f.tier === undefined)) {
            await rebuildDerived(deps, dataset, family, day, { tier: 'day' }, files, [], report);
            report.partitions += 1;
          }
        } finally {
          await deps.manifest.releaseLease(lease, owner);
        }
        options.onDay?.(day);
      }
    }
  }
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
