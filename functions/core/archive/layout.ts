/**
 * Where archive objects live. Exact keys are computed from dataset, family, symbol and UTC day, so
 * the request path never lists S3: it asks the manifest, which names every file.
 *
 *   archive/v1/<dataset>/family=<family>/day=<YYYY-MM-DD>/delta-<id>.parquet                 recent, many symbols
 *   archive/v1/<dataset>/family=<family>/symbol=<enc>/day=<YYYY-MM-DD>/compacted-<v>.parquet one symbol-day
 *   archive/v1/<dataset>/family=<family>/day=<YYYY-MM-DD>/compacted-<v>.parquet               all symbols (candles, registry)
 *   landing/<format>/<YYYY-MM-DD>/[at=<epoch ms>/]<name>                                      raw batches
 */
import type { Dataset } from '#schemas/datasets.ts';
import type { Family } from '../venues.ts';

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** An hour or a day counts as closed this long after it ends, so the last live batches are in. */
export const SETTLE_MS = 2 * 60_000;
/** How far a reader's clock and compaction's may disagree (both are NTP-synced Lambda clocks). */
const CLOCK_SKEW_MS = 60_000;

/** Whether compaction may fold the hour starting at `hourStart` into per-symbol files at `now`: it has ended and settled. */
export const hourSettled = (hourStart: number, now: number): boolean => now >= hourStart + HOUR_MS + SETTLE_MS;

/**
 * The start of the first hour no per-symbol compacted file can hold at `now` (hourSettled is the
 * only way into one, and a day closes only once its last hour has settled), counted a minute late
 * for clock skew: a family-wide read of rows from there on finds them in deltas and all-symbol files.
 */
export const unsettledFrom = (now: number): number => Math.floor((now + CLOCK_SKEW_MS - SETTLE_MS) / HOUR_MS) * HOUR_MS;

export function dayOf(ts: number): string {
  return new Date(ts - (ts % DAY_MS)).toISOString().slice(0, 10);
}

/** Every UTC day from `fromDay` to `toDay` (YYYY-MM-DD), inclusive. */
export function daysBetween(fromDay: string, toDay: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${fromDay}T00:00:00Z`); t <= Date.parse(`${toDay}T00:00:00Z`); t += DAY_MS) days.push(dayOf(t));
  return days;
}

// Symbols such as `xyz:TSLA` and `#10` are made key-safe (and stay readable).
const encodeSymbol = (symbol: string) => encodeURIComponent(symbol);

export function deltaKey(dataset: Dataset, family: Family, day: string, fileId: string): string {
  return `archive/v1/${dataset}/family=${family}/day=${day}/delta-${fileId}.parquet`;
}

/**
 * The directory of compacted files: one symbol's (`symbol` as it appears in keys) or, for all-symbol
 * datasets, the family's. The data lake's tables (lib/lake-tables.ts) read these directories.
 */
export function compactedDir(dataset: Dataset, family: string, keySymbol: string | undefined, day: string): string {
  const symbolPart = keySymbol === undefined ? '' : `symbol=${keySymbol}/`;
  return `archive/v1/${dataset}/family=${family}/${symbolPart}day=${day}/`;
}

export function compactedKey(dataset: Dataset, family: Family, symbol: string | undefined, day: string, version: string): string {
  return `${compactedDir(dataset, family, symbol === undefined ? undefined : encodeSymbol(symbol), day)}compacted-${version}.parquet`;
}

/**
 * A raw batch's key. `at` is the instant of a file that carries no time of its own (an L4
 * snapshot, the spot metadata): the command that lands it knows it, the ingest function reads it here.
 */
export function landingKey(format: string, ts: number, name: string, at?: number): string {
  return `landing/${format}/${dayOf(ts)}/${at === undefined ? '' : `at=${at}/`}${name}`;
}

/** The `at` a landing key carries, if any. */
export function landingAtOf(key: string): number | undefined {
  const match = /^landing\/[^/]+\/[^/]+\/at=(\d{1,15})\//.exec(key);
  return match ? Number(match[1]) : undefined;
}
