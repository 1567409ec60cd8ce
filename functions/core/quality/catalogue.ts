/**
 * The symbol catalogue: every symbol with data in the last 24 hours, from the manifest and the
 * files' cadence statistics (coverage.ts), never from Parquet.
 */
import { familiesOf } from '#schemas/datasets.ts';
import type { ArchiveManifest } from '#ports/archive.ts';
import { visibleFiles } from '../archive/files.ts';
import { coverageStart } from '../archive/coverage.ts';
import { dayOf, DAY_MS } from '../archive/layout.ts';
import type { Family } from '../venues.ts';
import { QUALITY_DATASETS, type QualityDataset } from '../archive/cadence.ts';
import { iso, statsOf, withCadence } from './coverage.ts';

/** Every (family, dataset) pair whose quality is measured. */
const QUALITY_FAMILIES_AND_DATASETS: readonly (readonly [Family, QualityDataset])[] = QUALITY_DATASETS.flatMap((d) =>
  familiesOf(d).map((f) => [f, d] as const),
);

export interface SymbolEntry {
  symbol: string;
  exchange: Family;
  coverage_from?: string;
  coverage_to?: string;
  data_types: string[];
  coverage_by_type: Record<string, string>;
  size_per_day: Record<string, number>;
}

/**
 * Every symbol of every family with data in the last 24 hours: its data types, where the archive's
 * coverage of each begins (the dataset's coverage start in the family), the newest record, and the
 * bytes of Parquet each data type took over those 24 hours (an all-symbol file's bytes shared by
 * rows). Two manifest queries per family and dataset.
 */
export async function symbolCatalogue(manifest: ArchiveManifest, now: number): Promise<SymbolEntry[]> {
  const since = now - DAY_MS;
  const entries = new Map<string, SymbolEntry>();
  await Promise.all(
    QUALITY_FAMILIES_AND_DATASETS.map(async ([family, dataset]) => {
      const [yesterday, today, deltas] = await Promise.all([
        manifest.compactedFilesOfDay(dataset, family, dayOf(since)),
        manifest.compactedFilesOfDay(dataset, family, dayOf(now)),
        manifest.deltaFiles(dataset, family, dayOf(since), dayOf(now)),
      ]);
      const files = await withCadence(
        manifest,
        visibleFiles([...yesterday, ...today], deltas).filter((f) => f.maxTs >= since),
      );
      const start = coverageStart(dataset, family)!;
      for (const file of files) {
        for (const symbol of file.symbols) {
          const stats = statsOf(file, symbol);
          const share = stats && file.rows > 0 ? stats.rows / file.rows : 1 / file.symbols.length;
          const key = `${family}|${symbol}`;
          const entry = entries.get(key) ?? { symbol, exchange: family, data_types: [], coverage_by_type: {}, size_per_day: {} };
          if (!entry.data_types.includes(dataset)) entry.data_types.push(dataset);
          entry.coverage_by_type[dataset] = iso(start);
          entry.size_per_day[dataset] = Math.round((entry.size_per_day[dataset] ?? 0) + file.bytes * share);
          const newest = stats?.maxTs ?? file.maxTs;
          if (entry.coverage_to === undefined || newest > Date.parse(entry.coverage_to)) entry.coverage_to = iso(newest);
          entries.set(key, entry);
        }
      }
    }),
  );
  return [...entries.values()]
    .map((entry) => ({
      ...entry,
      data_types: [...entry.data_types].sort(),
      coverage_from: iso(Math.min(...Object.values(entry.coverage_by_type).map(Date.parse))),
    }))
    .sort((a, b) => a.exchange.localeCompare(b.exchange) || a.symbol.localeCompare(b.symbol));
}
