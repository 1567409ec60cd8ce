/**
 * Derived datasets (1-minute candles from trades, estimate rollups and reductions, OI crossings,
 * per-wallet statistics for wallet classes):
 * each rebuilt for the hour or day its source's merged rows cover, and rebuilt over past days when
 * a derivation is added or changed (`rederiveDays`).
 */
import { randomUUID } from 'node:crypto';
import { DATASETS, DERIVED_DATASETS, familiesOf, type DerivedDataset, type IngestedDataset } from '#schemas/datasets.ts';
import type { Family } from '../venues.ts';
import type { ArchiveDeps, ArchiveFile } from '#ports/archive.ts';
import { DAY_MS, SETTLE_MS, daysBetween } from './layout.ts';
import { visibleFiles } from './files.ts';
import { eachBounded } from '../bounded.ts';
import { candlesFromTradesSql, checkpointOrdersSql, oiCrossingsSql, reductionSql, rollupSql } from './sql.ts';
import { windowSource } from './read.ts';
import { WALLET_STATS } from './wallet-stats-sql.ts';
import { IO_CONCURRENCY, partsOf, version, writeParts } from './compact-write.ts';
import { type CompactionReport, DELETION_GRACE_MS, LEASE_MS, type Slot, dayStart, emptyReport, slotRange } from './compact-slot.ts';

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
  l4_checkpoint_orders: checkpointOrdersSql,
  wallet_fill_stats: WALLET_STATS.wallet_fill_stats.derive,
  wallet_order_stats: WALLET_STATS.wallet_order_stats.derive,
  wallet_trade_stats: WALLET_STATS.wallet_trade_stats.derive,
};

export async function rebuildAllDerived(
  deps: ArchiveDeps,
  dataset: IngestedDataset,
  family: Family,
  day: string,
  slot: Slot,
  written: ArchiveFile[],
  deltas: readonly ArchiveFile[],
  report: CompactionReport,
): Promise<void> {
  // Only in the families the derived dataset has (pga_payments_1h is perpx's alone, though every family trades).
  for (const derived of DERIVED_DATASETS.filter((d) => DATASETS[d].compaction.derivedFrom === dataset && familiesOf(d).includes(family))) {
    await rebuildDerived(
      deps,
      derived,
      family,
      day,
      slot,
      written,
      deltas.map((d) => d.fileId),
      report,
    );
  }
}

/** Removes files from the manifest (their rows are visible through what replaced them) and schedules their objects' deletion. */
export async function retire(deps: ArchiveDeps, files: readonly ArchiveFile[], report: CompactionReport): Promise<void> {
  // Scheduled first: a run killed between the two leaves no object unlisted and never to be deleted
  // (a file still listed when its deletion comes due is kept; see object-life.ts).
  await deps.manifest.scheduleDeletion(files, deps.clock.now() + DELETION_GRACE_MS, 'retired');
  await eachBounded(files, IO_CONCURRENCY, (file) => deps.manifest.deleteFile(file));
  report.deltasRetired += files.filter((f) => f.kind === 'delta').length;
}

/**
 * Re-derives a derived dataset's slot for the symbols whose source rows changed (`sourceFiles`, one
 * per symbol, each complete for the slot). A per-symbol derived dataset (1-minute candles) writes
 * one file per such symbol, replacing that symbol's previous files of the slot; an all-symbol one
 * rewrites the slot's one file, keeping the previous rows of the other symbols (none when the
 * source is all-symbol, as position legs are: its slot file holds every symbol). The derived files
 * also list the source deltas they cover: readers add what they derive on the fly from source
 * deltas no derived file of the symbol covers yet (for candles, the last minutes), so the derived
 * dataset stays complete meanwhile. A family-wide file left from before the dataset was split per
 * symbol is left in place: readers prefer the symbol's own file of the same slot (files.ts).
 */
async function rebuildDerived(
  deps: ArchiveDeps,
  dataset: DerivedDataset,
  family: Family,
  day: string,
  slot: Slot,
  sourceFiles: ArchiveFile[],
  sourceDeltaIds: string[],
  report: CompactionReport,
): Promise<void> {
  const { perSymbol } = DATASETS[dataset];
  const symbols = sourceFiles.flatMap((f) => (f.symbol === undefined ? [] : [f.symbol]));
  // An all-symbol source (position legs) rewrites a slot's one file whole: every symbol's rows are in it.
  const wholeSlot = sourceFiles.some((f) => f.symbol === undefined);
  const existing = await deps.manifest.compactedFilesOfDay(dataset, family, day);
  const inSlot = (f: ArchiveFile) => slot.tier === 'day' || (f.tier === 'hour' && f.hour === slot.hour);
  const previous = visibleFiles(existing, []).filter(
    (f) => inSlot(f) && (perSymbol ? f.symbol !== undefined && symbols.includes(f.symbol) : f.symbol === undefined),
  );
  const sourcePaths = await deps.files.paths(sourceFiles);
  // A per-symbol derived dataset replaces each symbol's previous files whole; an all-symbol one keeps their other symbols' rows.
  const previousPaths = !perSymbol && !wholeSlot && previous.length > 0 ? await deps.files.paths(previous) : [];
  // A derivation that looks back (a move over a window) also reads the source's rows just before the slot.
  const { derivedFrom, lookbackMs }: { derivedFrom: string; lookbackMs?: number } = DATASETS[dataset].compaction;
  const [slotFrom] = slotRange(day, slot);
  const before = lookbackMs
    ? await windowSource(deps, {
        dataset: derivedFrom as IngestedDataset,
        family,
        from: slotFrom - lookbackMs,
        to: slotFrom - 1,
        ...(!wholeSlot && { symbols }),
      })
    : undefined;
  await deps.sql.session(async (session) => {
    const source = before ? `(SELECT * FROM read_parquet($source, union_by_name = true) UNION ALL BY NAME ${before.sql})` : 'read_parquet($source)';
    const fresh = `SELECT * FROM (${DERIVATIONS[dataset](source, slot.tier === 'day' ? 24 : 1)})`;
    const kept =
      previousPaths.length > 0
        ? `SELECT * FROM read_parquet($previous, union_by_name = true) WHERE NOT list_contains($symbols, symbol) UNION ALL BY NAME `
        : '';
    await session.execute({
      sql: `CREATE OR REPLACE TEMP TABLE merged AS ${kept}${fresh}`,
      // DuckDB refuses parameters a statement does not use, so $symbols comes only with $previous.
      params: {
        source: sourcePaths,
        ...(previousPaths.length > 0 && { previous: previousPaths, symbols }),
        ...(lookbackMs && { ...before?.params, slot_from: slotFrom }),
      },
    });
    await writeParts(
      deps,
      session,
      dataset,
      await partsOf(session, perSymbol, perSymbol ? symbols : undefined),
      (part) => ({
        fileId: `c-${dataset}-${version(deps)}`,
        dataset,
        family,
        day,
        kind: 'compacted',
        symbol: part.symbol,
        ...(slot.tier === 'hour' && { tier: 'hour' as const, hour: slot.hour }),
        replaces: [...sourceDeltaIds, ...previous.filter((f) => f.symbol === part.symbol).map((f) => f.fileId)],
      }),
      report,
    );
  });
  await retire(deps, previous, report);
}

/**
 * Derives derived datasets again for closed days from their source's day files: days compacted
 * before a derived dataset existed (a rollup added to a running archive), or one to rebuild. A
 * day at a time per family, under the source's compaction lease (waiting while compaction holds
 * it); days still in hour files are left to their day fold, which derives them.
 */
export async function rederiveDays(
  deps: ArchiveDeps,
  options: { datasets: readonly DerivedDataset[]; families?: readonly Family[]; from: string; to: string; onDay?: (day: string) => void },
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
