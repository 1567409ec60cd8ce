/**
 * One UTC day of a family's per-wallet statistics (the derived datasets of
 * core/archive/wallet-stats-sql.ts), combined into one row per wallet. A day's rows come from the
 * derived dataset where it holds them (the folded day's row, or the rows of its compacted hours)
 * and, for the hours it does not hold yet (the open hour, hours whose deltas compaction has not
 * folded, days compacted before the dataset existed), from the source's raw rows of those hours
 * alone, derived on the fly as one piece. So a folded day reads a row per wallet and market, and
 * the open day its compacted hours' rows plus the raw rows of the hours since.
 */
import type { ArchiveDeps, ArchiveFile } from '#ports/archive.ts';
import type { Row, SqlValue } from '#ports/sql.ts';
import type { IngestedDataset } from '#schemas/datasets.ts';
import type { Family } from '../venues.ts';
import { DAY_MS, dayOf } from '../archive/layout.ts';
import { dedupeClause } from '../archive/dedupe.ts';
import { mayShareRows, windowFiles } from '../archive/read.ts';
import { WALLET_STATS, type WalletStatsDataset } from '../archive/wallet-stats-sql.ts';
import { HOUR_MS, derivedCoverage, hoursHeld } from '../detect/rollups.ts';

export interface WalletStats {
  /** Per lower-case address, its combined row (columns as wallet-stats-sql.ts `combine*` name them). */
  rows: Map<string, Row>;
  /**
   * Where the day's rows came from: the folded day's file, compacted hours' files, how many hours
   * were derived from raw rows, how many statistics rows were combined, and whether some rows
   * count per hour (hour files, or the hour rows a day file keeps for a market too big to fold).
   */
  read: { dayRows: boolean; hourFiles: number; rawHours: number; rowsRead: number; hourly: boolean };
}

/**
 * The derived files that answer the day and the hours they hold: the day's own file when every
 * hour of it is held (no source delta touches one), else the files of the held compacted hours.
 */
async function heldFiles(
  deps: ArchiveDeps,
  dataset: WalletStatsDataset,
  family: Family,
  from: number,
): Promise<{ files: ArchiveFile[]; held: Set<number>; day: boolean }> {
  const to = from + DAY_MS;
  const { visible, holds } = await derivedCoverage(deps, dataset, WALLET_STATS[dataset].source as IngestedDataset, family, from, to);
  const held = hoursHeld(from, to, holds);
  const ofDay = visible.filter((f) => f.day === dayOf(from));
  const dayFiles = ofDay.filter((f) => f.tier === undefined);
  if (dayFiles.length > 0 && held.size === DAY_MS / HOUR_MS) return { files: dayFiles, held, day: true };
  const hourFiles = ofDay.filter((f) => f.tier === 'hour' && held.has(from + f.hour! * HOUR_MS));
  return { files: hourFiles, held: new Set(hourFiles.map((f) => from + f.hour! * HOUR_MS)), day: false };
}

/** The day's rows of one statistics dataset, one per wallet; `from` is the day's first instant. */
export async function readWalletStats(deps: ArchiveDeps, dataset: WalletStatsDataset, family: Family, from: number): Promise<WalletStats> {
  const { source, derive, combine } = WALLET_STATS[dataset];
  const { files, held, day } = await heldFiles(deps, dataset, family, from);
  const rawHours = Array.from({ length: DAY_MS / HOUR_MS }, (_, h) => from + h * HOUR_MS).filter((h) => !held.has(h));
  const params: Record<string, SqlValue> = { w_from: from, w_to: from + DAY_MS - 1 };
  const parts: string[] = [];
  if (files.length > 0) {
    params.w_files = await deps.files.paths(files);
    parts.push('SELECT * FROM read_parquet($w_files, union_by_name = true) WHERE ts BETWEEN $w_from AND $w_to');
  }
  // The raw rows of the hours not held, only from the files that hold rows of those hours.
  const raw =
    rawHours.length === 0
      ? []
      : (await windowFiles(deps, { dataset: source as IngestedDataset, family, from, to: from + DAY_MS - 1 })).filter((f) =>
          rawHours.some((h) => f.maxTs >= h && f.minTs < h + HOUR_MS),
        );
  if (raw.length > 0) {
    // The hours as a bit mask of the day's hours (bit h: hour h), as lists bind as text.
    Object.assign(params, { w_raw: await deps.files.paths(raw), w_hours: rawHours.reduce((mask, h) => mask + 2 ** ((h - from) / HOUR_MS), 0) });
    const rows = `(SELECT * FROM read_parquet($w_raw, union_by_name = true)
      WHERE ts BETWEEN $w_from AND $w_to AND ($w_hours >> CAST((ts - $w_from) // ${HOUR_MS} AS INTEGER)) % 2 = 1
      ${mayShareRows(raw) ? dedupeClause(source as IngestedDataset) : ''})`;
    parts.push(`SELECT * FROM (${derive(rows, 24)})`);
  }
  const read = { dayRows: day, hourFiles: day ? 0 : files.length, rawHours: raw.length > 0 ? rawHours.length : 0, rowsRead: 0, hourly: false };
  if (parts.length === 0) return { rows: new Map(), read };
  const rows = await deps.sql.query<Row>({ sql: combine(`(${parts.join(' UNION ALL BY NAME ')})`), params });
  read.rowsRead = rows.reduce((n, row) => n + Number(row.pieces), 0);
  read.hourly = rows.some((row) => row.hourly === true);
  // Every row read counts above; a wallet whose trades say nothing the metrics count is left out.
  const counted = rows.filter((row) => row.marked === undefined || Number(row.marked) > 0);
  return { rows: new Map(counted.map((row) => [String(row.address), row])), read };
}
