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
import { DATASETS, INGESTED_DATASETS, familiesOf, type IngestedDataset } from '#schemas/datasets.ts';
import type { Family } from '../venues.ts';
import type { ArchiveDeps, ArchiveFile } from '#ports/archive.ts';
import { DAY_MS, SETTLE_MS, dayOf, hourSettled } from './layout.ts';
export { SETTLE_MS };
import { visibleFiles } from './files.ts';
import { groupBy } from '../group.ts';
import { collectGarbage } from './object-life.ts';
import { createMerged, partsOf, version, writeParts } from './compact-write.ts';
import { mergeIngestDeltas } from './compact-ingest.ts';
import { rebuildAllDerived, retire } from './compact-derived.ts';
import { type CompactionReport, HOUR_MS, LEASE_MS, type Slot, dayStart, emptyReport, slotRange } from './compact-slot.ts';

/** The scheduled run's fold budget: folds started after it wait a minute, so runs stay short. */
export const SCHEDULED_FOLD_BUDGET_MS = 5_000;

/** Closed days still checked for hour files to fold, when they have no deltas left. */
const FOLD_LOOKBACK_DAYS = 2;

/** A compacted file's visible predecessors per symbol (`*` for all-symbol datasets): its day file and hour files. */
function visibleBySymbol(files: readonly ArchiveFile[]): Map<string, ArchiveFile[]> {
  const bySymbol = groupBy(files, (file) => file.symbol ?? '*');
  for (const [symbol, group] of bySymbol) bySymbol.set(symbol, visibleFiles(group, []));
  return bySymbol;
}

/**
 * Rewrites the rows of `deltas` and of each affected symbol's visible compacted files of the slot
 * into one file per symbol (or one all-symbol file) of the slot, then re-derives what derives from
 * the dataset and retires what the new files replace.
 */
async function mergeSlot(
  deps: ArchiveDeps,
  dataset: IngestedDataset,
  family: Family,
  day: string,
  slot: Slot,
  deltas: ArchiveFile[],
  existing: readonly ArchiveFile[],
  report: CompactionReport,
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
    written.push(
      ...(await writeParts(
        deps,
        session,
        dataset,
        parts,
        (part) => ({
          fileId: `c-${dataset}-${version(deps)}`,
          dataset,
          family,
          day,
          kind: 'compacted',
          symbol: part.symbol,
          ...(slot.tier === 'hour' && { tier: 'hour' as const, hour: slot.hour }),
          replaces: replacedOf(part.symbol ?? '*').map((f) => f.fileId),
        }),
        report,
      )),
    );
  });
  // The deltas hold every symbol's rows: only once each symbol's file exists may one of them hide
  // the deltas (until then, rows seen in both collapse), so a family-wide read never misses a symbol.
  const last = written.at(-1);
  if (last) await deps.manifest.putFile({ ...last, replaces: [...last.replaces, ...deltas.map((d) => d.fileId)] });
  if (written.length > 0 && options.derive !== false) await rebuildAllDerived(deps, dataset, family, day, slot, written, deltas, report);
  await retire(deps, [...deltas, ...symbols.flatMap(replacedOf)], report);
  return written;
}

/**
 * One day of one dataset and family. A closed day folds everything (deltas, delta compactions, hour
 * files, a previous day file) into day files; an open day merges its ingest deltas by hour and
 * folds each closed hour into hour files.
 */
async function compactDay(
  deps: ArchiveDeps,
  dataset: IngestedDataset,
  family: Family,
  day: string,
  deltas: ArchiveFile[],
  report: CompactionReport,
  mayFold: () => boolean,
  dayFoldStepRows = DAY_FOLD_STEP_ROWS,
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
    await mergeSlot(
      deps,
      dataset,
      family,
      day,
      { tier: 'hour', hour },
      merged.filter((d) => d.hour === hour),
      existing,
      report,
    );
  }
  if (closed) await foldDay(deps, dataset, family, day, report, mayFold, dayFoldStepRows);
}

/** Symbols folded into day files per step of a closing day's fold (the budget is checked between steps). */
const DAY_FOLD_STEP_SYMBOLS = 16;

/**
 * Rows one step of a day's fold rewrites at most. A symbol whose day holds more keeps its hour files
 * as its last tier: at the venue's rate a BTC day of order events is a billion rows, which no step
 * of bounded time and memory rewrites (issue 43; the venue-rate bench measures the rewrite rate).
 */
export const DAY_FOLD_STEP_ROWS = 5_000_000;

/**
 * Folds a closed day, now hour files only, into day files a few symbols at a time (at most
 * `DAY_FOLD_STEP_SYMBOLS`, and `stepRows` rows, a step), so a busy day's close spreads over several
 * runs; the derived dataset's day is rebuilt once per run, from the day files written and the
 * previous derived rows of every other symbol.
 */
async function foldDay(
  deps: ArchiveDeps,
  dataset: IngestedDataset,
  family: Family,
  day: string,
  report: CompactionReport,
  mayFold: () => boolean,
  stepRows: number,
): Promise<void> {
  const existing = await deps.manifest.compactedFilesOfDay(dataset, family, day);
  const { perSymbol } = DATASETS[dataset];
  const pending = [...visibleBySymbol(existing)]
    .filter(([, files]) => files.some((f) => f.tier === 'hour'))
    .map(([symbol, files]) => ({ symbol, rows: files.reduce((n, f) => n + f.rows, 0) }))
    .filter(({ rows }) => !perSymbol || rows <= stepRows)
    .sort((a, b) => a.symbol.localeCompare(b.symbol));
  const steps: { symbols: string[]; rows: number }[] = [];
  for (const { symbol, rows } of pending) {
    const last = steps.at(-1);
    if (last && last.symbols.length < DAY_FOLD_STEP_SYMBOLS && last.rows + rows <= stepRows) {
      last.symbols.push(symbol);
      last.rows += rows;
    } else {
      steps.push({ symbols: [symbol], rows });
    }
  }
  const written: ArchiveFile[] = [];
  for (const step of perSymbol ? steps.map((s) => s.symbols) : steps.length > 0 ? [['*']] : []) {
    if (!mayFold()) break;
    written.push(...(await mergeSlot(deps, dataset, family, day, { tier: 'day' }, [], existing, report, { symbols: step, derive: false })));
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
  /** Rows a day-fold step rewrites at most (`DAY_FOLD_STEP_ROWS`); a symbol-day over it stays in hour files. */
  dayFoldStepRows?: number;
  /**
   * Wall-clock milliseconds after which a run starts no more partitions (a dataset and family): the
   * rest wait for the next run, which starts where this one stopped, so a backlog (a first start's
   * seed) is worked off over several runs that each end inside the function's timeout. The first
   * partition with work always runs. No limit if absent.
   */
  runBudgetMs?: number;
}

/**
 * The (dataset, family) partitions; with a run budget, in a turn that moves on one partition a
 * minute, so that a partition one run deferred comes early in a later one.
 */
function partitionsInTurn(options: CompactionOptions, now: number): [IngestedDataset, Family][] {
  const all = (options.datasets ?? INGESTED_DATASETS).flatMap((dataset) =>
    familiesOf(dataset)
      .filter((f) => !options.families || options.families.includes(f))
      .map((family): [IngestedDataset, Family] => [dataset, family]),
  );
  if (options.runBudgetMs === undefined || all.length === 0) return all;
  const first = Math.floor(now / 60_000) % all.length;
  return [...all.slice(first), ...all.slice(0, first)];
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
  let worked = false;
  for (const [dataset, family] of partitionsInTurn(options, now)) {
    const deltas = await deps.manifest.deltaFiles(dataset, family, '0000-01-01', '9999-12-31');
    const byDay = groupBy(deltas, (delta) => delta.day);
    for (const day of foldDays) {
      if (!byDay.has(day) && (await deps.manifest.compactedFilesOfDay(dataset, family, day)).some((f) => f.tier === 'hour')) byDay.set(day, []);
    }
    if (byDay.size === 0) continue;
    if (worked && options.runBudgetMs !== undefined && performance.now() - started >= options.runBudgetMs) {
      report.partitionsDeferred += 1;
      continue;
    }
    worked = true;
    const lease = `compact#${dataset}#${family}`;
    if (!(await deps.manifest.acquireLease(lease, owner, deps.clock.now() + LEASE_MS, deps.clock.now()))) {
      report.skippedLeased += 1;
      continue;
    }
    try {
      for (const [day, dayDeltas] of [...byDay].sort(([a], [b]) => a.localeCompare(b))) {
        await compactDay(deps, dataset, family, day, dayDeltas, report, mayFold, options.dayFoldStepRows);
        report.partitions += 1;
      }
    } finally {
      await deps.manifest.releaseLease(lease, owner);
    }
  }
  report.objectsDeleted = await collectGarbage(deps);
  return report;
}
