/**
 * Relative metrics (SPEC, Webhook configuration): a notional as a share of the market's last-hour
 * and last-day volume, of its open interest, and of the wallet's 30-day volume. Each is null, and so
 * never fires, when its denominator is under 10,000 USD; the delivery then carries `reference_at`,
 * the time of the reference values, so a receiver can see what it was compared with.
 */
import type { Family } from '#core/venues.ts';

export const MIN_DENOMINATOR_USD = 10_000;

export interface MarketReference {
  volume1hUsd: number;
  volume24hUsd: number;
  /** Null where the market has no open interest (spot, outcomes). */
  openInterestUsd: number | null;
  /** When the reference values were taken, epoch ms. */
  at: number;
}

/** Reference values, as of a time; the detection step caches them per market and minute. */
export interface ReferenceSource {
  market(family: Family, symbol: string, at: number): Promise<MarketReference | undefined>;
  walletVolume30dUsd(address: string, at: number): Promise<number | undefined>;
  /**
   * The same values as `market`, for many markets and minutes of one family at once (one query):
   * what a replay asks for a page of occurrences. Keyed by `marketKey(symbol, minute)`; a market
   * and minute with no reference values is absent.
   */
  marketsAt?(family: Family, wanted: readonly { symbol: string; at: number }[]): Promise<Map<string, MarketReference>>;
}

/** The key of one market and minute in `marketsAt`'s answer. */
export const marketKey = (symbol: string, minute: number) => `${symbol}|${minute}`;

const PERP_FAMILIES: ReadonlySet<Family> = new Set(['perpx', 'hip3', 'altx', 'altx-rh']);

function share(notional: number, denominator: number | null | undefined): number | null {
  if (denominator === null || denominator === undefined || denominator < MIN_DENOMINATOR_USD) return null;
  return Number(((notional / denominator) * 100).toFixed(4));
}

/** The relative metrics of one notional against its references. */
export function relativeMetrics(family: Family, symbol: string, notional: number, market: MarketReference | undefined, walletVolume?: number) {
  // The second deployment publishes no comparable volume; spot pairs (BASE-QUOTE) have no open interest.
  const volumeKnown = family !== 'altx-rh';
  const perp = PERP_FAMILIES.has(family) && !symbol.includes('-');
  return {
    notional_pct_volume_1h: volumeKnown ? share(notional, market?.volume1hUsd) : null,
    notional_pct_volume_24h: volumeKnown ? share(notional, market?.volume24hUsd) : null,
    notional_pct_oi: perp ? share(notional, market?.openInterestUsd) : null,
    ...(walletVolume !== undefined && { notional_pct_wallet_volume_30d: share(notional, walletVolume) }),
  };
}
