/**
 * Price dynamics, one step per second. Each asset's log price (log-odds for an outcome) takes a normal
 * step scaled by a stochastic volatility (log-AR(1), so calm and wild hours alternate), loaded on a
 * factor shared with its class, plus rare jumps that also lift volatility and the order flow. Each
 * market adds its own basis, reverting within seconds to its bias (a perp's premium regime).
 * Scheduled cascades shock an asset just far enough to liquidate a crowd of positions.
 */
import { STREAM, hash32 } from './random.ts';
import { type MarketState, type SimState, type Tick, midOf } from './state.ts';

/** Log-volatility reverts over about half an hour with a stationary deviation of 0.5. */
const VOL_PERSISTENCE = Math.exp(-1 / 1_800);
const VOL_SHOCK = 0.5 * Math.sqrt(1 - VOL_PERSISTENCE ** 2);
/** exp(-sd^2 / 2): keeps the mean of exp(h) at 1, so `sigma` stays the average volatility. */
const VOL_MEAN = Math.exp(-0.125);
const JUMP_PROBABILITY = 1 / 7_200;
/** A jump is worth this many seconds of volatility on average. */
const JUMP_SCALE = 25;
const BASIS_PERSISTENCE = 0.97;
const BASIS_SHOCK = Math.sqrt(1 - BASIS_PERSISTENCE ** 2);
const MARKET_EXCITATION_DECAY = 0.9;
/** Outcome log-odds stay within these bounds (probabilities 1% to 99%). */
const MAX_LOG_ODDS = 4.6;
/** One cascade in each window of this many seconds (UTC-aligned), at a seeded second: often enough that a short local run sees liquidation bursts. */
const CASCADE_WINDOW_SEC = 30 * 60;
/** Bounds of the move that reaches the crowd: it is always sharp, never a crash of the whole market. */
const MIN_CASCADE_MOVE = 0.015;
const MAX_CASCADE_MOVE = 0.12;

export function movePrices(state: SimState, tick: Tick): void {
  const { rng } = tick;
  const crypto = rng.normal();
  const equity = rng.normal();
  for (const asset of state.assets) {
    const { assetClass } = asset.spec;
    asset.h = VOL_PERSISTENCE * asset.h + VOL_SHOCK * rng.normal();
    const vol = asset.sigma * Math.exp(asset.h) * VOL_MEAN;
    const factor = assetClass === 'crypto' ? crypto : assetClass === 'equity' ? equity : 0;
    let step = vol * (asset.rho * factor + Math.sqrt(1 - asset.rho ** 2) * rng.normal());
    if (rng.chance(JUMP_PROBABILITY)) {
      step += (rng.chance(0.5) ? 1 : -1) * vol * rng.exponential(JUMP_SCALE);
      asset.h += 0.7;
      state.excitation += state.intensity * 1.5;
    }
    asset.x += step;
    // A stablecoin is pulled back to its peg; an outcome's odds stay short of certainty.
    if (assetClass === 'stable') asset.x += (Math.log(asset.spec.price) - asset.x) * 0.01;
    if (assetClass === 'outcome') asset.x = Math.max(-MAX_LOG_ODDS, Math.min(MAX_LOG_ODDS, asset.x));
  }
  for (const market of state.markets) {
    market.basis = market.bias + (market.basis - market.bias) * BASIS_PERSISTENCE + market.basisSd * BASIS_SHOCK * rng.normal();
    market.excitation *= MARKET_EXCITATION_DECAY;
  }
}

/** The second of the cascade in the `window`-th cascade window. */
function cascadeSecond(seed: number, window: number): number {
  return window * CASCADE_WINDOW_SEC + (hash32(seed, STREAM.cascade, window) % CASCADE_WINDOW_SEC);
}

interface Crowd { market: MarketState; long: boolean; size: number; move: number }

/**
 * At its scheduled second, a cascade picks a crowd of eight to twenty perpx/hip3 positions (longs or
 * shorts of one market) and moves the asset just past their liquidation prices. Among the markets
 * that have such a crowd, smaller moves are likelier (weight 1/move^2), so it is not always the most
 * crowded market; with no full crowd anywhere, the largest one goes. The liquidations and their price
 * impact follow over the next seconds.
 */
export function maybeCascade(state: SimState, tick: Tick): void {
  if (cascadeSecond(state.seed, Math.floor(tick.sec / CASCADE_WINDOW_SEC)) !== tick.sec) return;
  const { rng } = tick;
  const target = 8 + rng.int(13);
  const crowds: Crowd[] = [];
  for (const market of state.markets) {
    if (!market.liquidatable) continue;
    const mid = midOf(market);
    for (const long of [true, false]) {
      const distances = market.holders
        .filter((h) => !h.liquidating && h.units > 0 === long)
        .map((h) => (long ? mid - h.liqPrice : h.liqPrice - mid) / mid)
        .filter((d) => d > 0 && d < MAX_CASCADE_MOVE)
        .sort((a, b) => a - b);
      if (distances.length === 0) continue;
      const size = Math.min(distances.length, target);
      crowds.push({ market, long, size, move: Math.min(Math.max(distances[size - 1]! + 0.003, MIN_CASCADE_MOVE), MAX_CASCADE_MOVE) });
    }
  }
  const full = crowds.filter((c) => c.size === target);
  const largest = crowds.reduce<Crowd | undefined>((best, c) => (!best || c.size > best.size ? c : best), undefined);
  const cumulative: number[] = [];
  full.reduce((sum, c, i) => (cumulative[i] = sum + 1 / c.move ** 2), 0);
  const crowd = full.length > 0 ? full[rng.weighted(cumulative)] : largest;
  if (!crowd) return;
  const { market, long, move } = crowd;
  market.asset.x += Math.log(long ? 1 - move : 1 + move);
  market.asset.h += 1;
  market.excitation += 5;
  state.excitation += state.intensity * 5;
}
