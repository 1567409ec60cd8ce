/** Gathers what a breadth snapshot needs from the archive: the registry and the session's candles. */
import type { ArchiveDeps } from '#ports/archive.ts';
import { minuteCandleSource } from '../archive/read-candles.ts';
import { instruments } from '../market/instruments.ts';
import { readWindow } from '../archive/read-pages.ts';
import type { BreadthStore } from '#ports/breadth.ts';
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
    stats.set(String(row.symbol), {
      quoteVolume: Number(row.qv),
      baseVolume: Number(row.v),
      lastClose: Number(row.last_close),
      lastCandleTs: Number(row.last_ts),
    });
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

const DAY = 86_400_000;

/**
 * Recomputes the snapshots of every minute cutoff in [from, to] (minute-aligned), a UTC day at a
 * time: one read of the registry and one query of the day's 1-minute candles per day, the minutes
 * swept in memory, the day's snapshots written together. Each equals what `snapshotMinute` would
 * write at that cutoff (same candidates, same session aggregates); `onDay` reports progress.
 */
export async function snapshotRange(
  deps: ArchiveDeps & { breadth: BreadthStore },
  family: BreadthFamily,
  from: number,
  to: number,
  onDay?: (done: { day: number; snapshots: number }) => void,
): Promise<number> {
  let written = 0;
  for (let day = sessionStart(from); day <= to; day += DAY) {
    const first = Math.max(from, day);
    const last = Math.min(to, day + DAY - MINUTE);
    const snapshots = await snapshotsOfDay(deps, family, day, first, last);
    await deps.breadth.putMany(snapshots);
    written += snapshots.length;
    onDay?.({ day, snapshots: snapshots.length });
  }
  return written;
}

interface RegistryVersion {
  ts: number;
  perp: boolean;
  delistedAt: number | null;
}
interface CandleStep {
  ts: number;
  close: number;
  cumQuote: number;
  cumBase: number;
}

async function snapshotsOfDay(deps: ArchiveDeps, family: BreadthFamily, day: number, first: number, last: number): Promise<BreadthSnapshot[]> {
  // Every registry record up to the day's last cutoff: the registry at a cutoff is each symbol's newest record by then.
  const { rows: registryRows } = await readWindow(deps, { dataset: 'instruments', family, from: 0, to: last, limit: 100_000 });
  const versions = new Map<string, RegistryVersion[]>();
  for (const row of registryRows) {
    const symbol = String(row.symbol);
    const list = versions.get(symbol) ?? [];
    list.push({ ts: Number(row.ts), perp: row.market_type === 'perp', delistedAt: row.delisted_at == null ? null : Number(row.delisted_at) });
    versions.set(symbol, list);
  }
  for (const list of versions.values()) list.sort((a, b) => a.ts - b.ts);

  // The session's candles with running sums per symbol, in one query.
  const steps = new Map<string, CandleStep[]>();
  const source = last - MINUTE >= day ? await minuteCandleSource(deps, { family, from: day, to: last - MINUTE }) : undefined;
  if (source) {
    const rows = await deps.sql.query({
      sql: `SELECT symbol, ts, close,
                   sum(quote_volume) OVER (PARTITION BY symbol ORDER BY ts) AS cum_quote,
                   sum(volume) OVER (PARTITION BY symbol ORDER BY ts) AS cum_base
            FROM (${source.sql}) ORDER BY symbol, ts`,
      params: source.params,
    });
    for (const row of rows) {
      const symbol = String(row.symbol);
      const list = steps.get(symbol) ?? [];
      list.push({ ts: Number(row.ts), close: Number(row.close), cumQuote: Number(row.cum_quote), cumBase: Number(row.cum_base) });
      steps.set(symbol, list);
    }
  }

  const snapshots: BreadthSnapshot[] = [];
  const registryAt = new Map<string, number>([...versions.keys()].map((s) => [s, -1]));
  const candleAt = new Map<string, number>([...steps.keys()].map((s) => [s, -1]));
  for (let cutoff = first; cutoff <= last; cutoff += MINUTE) {
    const candidates: string[] = [];
    for (const [symbol, list] of versions) {
      let i = registryAt.get(symbol)!;
      while (i + 1 < list.length && list[i + 1]!.ts <= cutoff) i++;
      registryAt.set(symbol, i);
      const current = list[i];
      if (current?.perp && (current.delistedAt === null || current.delistedAt > cutoff)) candidates.push(symbol);
    }
    candidates.sort((a, b) => a.localeCompare(b));
    // A candle opened at ts has closed by the cutoff when ts <= cutoff - 1 minute.
    const stats = new Map<string, SessionStats>();
    for (const [symbol, list] of steps) {
      let i = candleAt.get(symbol)!;
      while (i + 1 < list.length && list[i + 1]!.ts <= cutoff - MINUTE) i++;
      candleAt.set(symbol, i);
      const step = list[i];
      if (step) stats.set(symbol, { quoteVolume: step.cumQuote, baseVolume: step.cumBase, lastClose: step.close, lastCandleTs: step.ts });
    }
    snapshots.push(computeBreadth(family, cutoff, candidates, stats));
  }
  return snapshots;
}
