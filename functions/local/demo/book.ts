/**
 * The visible book around a market's mid: the touch that takers hit, the price of deeper levels a large
 * order sweeps, and the 20-level snapshot. Prices are integer ticks of 10^-decimals so levels never
 * collide through floating-point noise.
 */
import { formatUnits, priceDecimals } from './decimal.ts';
import type { Rng } from './random.ts';
import { type MarketState, type Side, midOf } from './state.ts';

export interface Quote {
  decimals: number;
  /** 10^decimals: ticks per unit of price. */
  scale: number;
  bid: number;
  ask: number;
  spreadTicks: number;
  /** Highest tick a price may take (an outcome's price stays below 1). */
  maxTick: number;
}

const BOOK_LEVELS = 20;

export function quoteOf(market: MarketState): Quote {
  const mid = midOf(market);
  const decimals = priceDecimals(mid, market.maxPriceDecimals);
  const scale = 10 ** decimals;
  const spreadTicks = Math.max(1, Math.round(mid * market.spreadBps * 1e-4 * scale));
  const maxTick = market.spec.marketType === 'outcome' ? scale - 1 : Number.MAX_SAFE_INTEGER;
  const bid = Math.max(1, Math.min(Math.floor(mid * scale - spreadTicks / 2), maxTick - spreadTicks));
  return { decimals, scale, bid, ask: bid + spreadTicks, spreadTicks, maxTick };
}

/** Tick of the `level`-th price a taker on `side` reaches (0 = the touch). */
export function levelTick(quote: Quote, side: Side, level: number): number {
  return side === 'B' ? Math.min(quote.maxTick, quote.ask + level * quote.spreadTicks) : Math.max(1, quote.bid - level * quote.spreadTicks);
}

/** Typical resting size of one level, in units. */
export function levelUnits(market: MarketState): number {
  return Math.max(1, market.depthNotional / (midOf(market) * market.unitSize));
}

export type Level = [string, string, number];

/** One side of the snapshot, best first: levels a tick or a few apart, size and order count growing with depth. */
export function bookSide(rng: Rng, market: MarketState, quote: Quote, side: 'bids' | 'asks'): Level[] {
  const levels: Level[] = [];
  const typical = levelUnits(market);
  let tick = side === 'bids' ? quote.bid : quote.ask;
  for (let i = 0; i < BOOK_LEVELS && tick >= 1 && tick <= quote.maxTick; i++) {
    // Uniform noise is enough for resting sizes, and cheap: every book is drawn every interval.
    const units = Math.max(1, Math.round(typical * (0.4 + 0.15 * i) * (0.3 + 1.4 * rng.next())));
    levels.push([formatUnits(tick, quote.decimals), formatUnits(units, market.spec.szDecimals), 1 + rng.int(2 + (i >> 2))]);
    const gap = quote.spreadTicks * (rng.chance(0.3) ? 1 + rng.int(3) : 1);
    tick += side === 'bids' ? -gap : gap;
  }
  return levels;
}
