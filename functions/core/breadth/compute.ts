/**
 * Market breadth above session VWAP (SPEC "Breadth snapshot"). Pure: given the candidate registry
 * at the cutoff and each instrument's session aggregates from 1-minute candles closed at or before
 * the cutoff, it classifies every candidate exactly once, so
 *   above + at + below = eligible  and  eligible + excluded_no_session_volume + excluded_stale_price = candidates.
 */
import { dexOf } from '../venues.ts';
import type { BreadthSnapshotView } from '#schemas/market.ts';

export const BREADTH_FAMILIES = ['perpx', 'hip3'] as const;
export type BreadthFamily = (typeof BREADTH_FAMILIES)[number];

/** A price whose last completed candle closed more than this before the cutoff is stale. */
export const STALE_AFTER_MS = 5 * 60_000;
const MINUTE = 60_000;

export interface SessionStats {
  /** Σ quote volume and Σ base volume of the session's completed candles. */
  quoteVolume: number;
  baseVolume: number;
  /** Close and open time of the latest completed 1-minute candle. */
  lastClose: number;
  lastCandleTs: number;
}

type NamespaceCounts = Record<string, number>;

/** A snapshot as the routes publish it (schemas/market.ts), plus the family it was computed for. */
export type BreadthSnapshot = BreadthSnapshotView & { family: BreadthFamily };

export function sessionStart(cutoff: number): number {
  return cutoff - (cutoff % 86_400_000);
}

export function computeBreadth(
  family: BreadthFamily,
  cutoff: number,
  candidates: readonly string[],
  stats: ReadonlyMap<string, SessionStats>,
): BreadthSnapshot {
  const counts = { candidates: candidates.length, eligible: 0, above: 0, at: 0, below: 0, excluded_no_session_volume: 0, excluded_stale_price: 0 };
  const namespaces = { eligible: {} as NamespaceCounts, above: {} as NamespaceCounts, at: {} as NamespaceCounts, below: {} as NamespaceCounts };
  const bump = (kind: keyof typeof namespaces, symbol: string) => {
    // Core markets have no builder namespace; hip3 counts per dex, and a zero count never appears.
    const dex = family === 'hip3' ? dexOf(symbol) : undefined;
    if (dex) namespaces[kind][dex] = (namespaces[kind][dex] ?? 0) + 1;
  };
  for (const symbol of candidates) {
    const s = stats.get(symbol);
    if (!s || !(s.baseVolume > 0) || !(s.quoteVolume > 0)) {
      counts.excluded_no_session_volume += 1;
      continue;
    }
    // The candle opened at lastCandleTs closed a minute later.
    if (cutoff - (s.lastCandleTs + MINUTE) > STALE_AFTER_MS) {
      counts.excluded_stale_price += 1;
      continue;
    }
    counts.eligible += 1;
    bump('eligible', symbol);
    const vwap = s.quoteVolume / s.baseVolume;
    const side = s.lastClose > vwap ? 'above' : s.lastClose < vwap ? 'below' : 'at';
    counts[side] += 1;
    bump(side, symbol);
  }
  return {
    family,
    session_date: new Date(sessionStart(cutoff)).toISOString().slice(0, 10),
    calculated_at: new Date(cutoff).toISOString(),
    value_pct: counts.eligible === 0 ? null : Math.round(((100 * counts.above) / counts.eligible) * 10_000) / 10_000,
    coverage_ratio: counts.candidates === 0 ? 0 : counts.eligible / counts.candidates,
    counts,
    namespaces,
  };
}
