/**
 * Relative metrics (SPEC, Webhook configuration): a notional as a share of the market's last-hour
 * and last-day volume, of its open interest, and of the wallet's 30-day volume. Each is null, and so
 * never fires, when its denominator is under 10,000 USD; the delivery then carries `reference_at`,
 * the time of the reference values, so a receiver can see what it was compared with.
 */
import type { Family } from '../venues.ts';
import type { Candidate } from './match.ts';

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
}

/** Types that carry the relative metrics, and whether they carry the wallet one. */
export const RELATIVE_TYPES: Readonly<Record<string, { wallet: boolean }>> = {
  'market.liquidation': { wallet: false },
  'account.liquidated': { wallet: false },
  'account.fill': { wallet: true },
  'market.liquidation_burst': { wallet: false },
};

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

/** Adds the relative metrics (and `reference_at`) to the candidates of the types that declare them. */
export async function withReferences(candidates: Candidate[], source: ReferenceSource): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const candidate of candidates) {
    const kind = RELATIVE_TYPES[candidate.type];
    const notional = candidate.metrics.notional_usd;
    if (!kind || typeof notional !== 'number' || candidate.symbol === null) {
      out.push(candidate);
      continue;
    }
    const family = candidate.venue as Family;
    const market = await source.market(family, candidate.symbol, candidate.occurredAt);
    const wallet = kind.wallet && candidate.address ? ((await source.walletVolume30dUsd(candidate.address, candidate.occurredAt)) ?? 0) : undefined;
    const relative = relativeMetrics(family, candidate.symbol, notional, market, wallet);
    const referenceAt = market ? new Date(market.at).toISOString() : null;
    out.push({ ...candidate, metrics: { ...candidate.metrics, ...relative }, data: { ...candidate.data, ...relative, reference_at: referenceAt } });
  }
  return out;
}
