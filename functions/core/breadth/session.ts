/** Gathers what a breadth snapshot needs from the archive: the registry and the session's candles. */
import type { ArchiveDeps } from '../../ports/archive.ts';
import { minuteCandleSource } from '../archive/read.ts';
import { instruments } from '../market/queries.ts';
import type { BreadthStore } from '../../ports/breadth.ts';
import { computeBreadth, sessionStart, type BreadthFamily, type BreadthSnapshot, type SessionStats } from './compute.ts';

const MINUTE = 60_000;

/** Session aggregates per symbol from 1-minute candles that closed at or before the cutoff. */
export async function sessionStats(deps: ArchiveDeps, family: BreadthFamily, cutoff: number): Promise<Map<string, SessionStats>> {
  const stats = new Map<string, SessionStats>();
  const from = sessionStart(cutoff);
  // A candle opened at ts closes at ts + 1 minute; none has closed yet at the session's first instant.
  if (cutoff - MINUTE < from) return stats;
  const source = await minuteCandleSource(deps, { family, from, to: cutoff - MINUTE });
  if (!source) return stats;
  const rows = await deps.sql.query({
    sql: `SELECT symbol, sum(quote_volume) AS qv, sum(volume) AS v, last(close ORDER BY ts) AS last_close, max(ts) AS last_ts
          FROM (${source.sql}) GROUP BY symbol`,
    params: source.params,
  });
  for (const row of rows) {
    stats.set(String(row.symbol), { quoteVolume: Number(row.qv), baseVolume: Number(row.v), lastClose: Number(row.last_close), lastCandleTs: Number(row.last_ts) });
  }
  return stats;
}

/** Computes and stores the snapshot of one family at one minute cutoff (rerunning rewrites it). */
export async function snapshotMinute(deps: ArchiveDeps & { breadth: BreadthStore }, family: BreadthFamily, cutoff: number): Promise<BreadthSnapshot> {
  const registry = await instruments(deps, family, cutoff);
  const candidates = registry.filter((i) => i.is_active && i.instrument_type === 'perp').map((i) => i.symbol);
  const snapshot = computeBreadth(family, cutoff, candidates, await sessionStats(deps, family, cutoff));
  await deps.breadth.put(snapshot);
  return snapshot;
}
