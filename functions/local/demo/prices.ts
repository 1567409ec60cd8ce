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
const CASCADE_WINDOW_SEC = 15 * 60;
/** Bounds of the move that reaches the crowd: it is always sharp, never a crash of the whole market. */
const MIN_CASCADE_MOVE = 0.015;
const MAX_CASCADE_MOVE = 0.12;
/** A hip3 cascade moves the oracle past the 2% jump that `oracle.jump` rules fire on by default. */
const MIN_HIP3_CASCADE_MOVE = 0.025;

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

interface Crowd { market: MarketState; long: boolean; size: number; move: number; notional: number; demo: boolean }

/**
 * At its scheduled second, a cascade picks a crowd of 15 to 30 positions (longs or shorts of one
 * perpx or hip3 market) and moves the asset just past their liquidation prices. Turns rotate: the
 * crowd with the most notional at stake; a hip3 crowd (smaller moves likelier among the full crowds,
 * weight 1/move^2, or the largest when none is full); a crowd holding a demo wallet (else the
 * heaviest); a hip3 crowd again. The liquidations and their price impact follow over the next seconds.
 */
export function maybeCascade(state: SimState, tick: Tick): void {
  if (cascadeSecond(state.seed, Math.floor(tick.sec / CASCADE_WINDOW_SEC)) !== tick.sec) return;
  const { rng } = tick;
  const target = 15 + rng.int(16);
  // Cascades take turns: the heaviest perp crowd (bursts), a hip3 market (where a move of the asset
  // is a jump of its dex oracle), a crowd with a demo wallet in it (account.liquidated), hip3 again.
  const turn = Math.floor(tick.sec / CASCADE_WINDOW_SEC) % 4;
  const hip3Turn = turn % 2 === 1;
  const crowds: Crowd[] = [];
  for (const market of state.markets) {
    if (!market.liquidatable || (hip3Turn && market.spec.family !== 'hip3')) continue;
    const mid = midOf(market);
    for (const long of [true, false]) {
      const exposed = market.holders
        .filter((h) => !h.liquidating && h.units > 0 === long)
        .map((h) => ({ distance: (long ? mid - h.liqPrice : h.liqPrice - mid) / mid, notional: Math.abs(h.units) * market.unitSize * mid, demo: h.trader < state.wallets.demo.length }))
        .filter((e) => e.distance > 0 && e.distance < MAX_CASCADE_MOVE)
        .sort((a, b) => a.distance - b.distance);
      if (exposed.length === 0) continue;
      const size = Math.min(exposed.length, target);
      const floor = hip3Turn ? MIN_HIP3_CASCADE_MOVE : MIN_CASCADE_MOVE;
      const notional = exposed.slice(0, size).reduce((sum, e) => sum + e.notional, 0);
      crowds.push({ market, long, size, notional, demo: exposed.slice(0, size).some((e) => e.demo), move: Math.min(Math.max(exposed[size - 1]!.distance + 0.003, floor), MAX_CASCADE_MOVE) });
    }
  }
  const full = crowds.filter((c) => c.size === target);
  const largest = crowds.reduce<Crowd | undefined>((best, c) => (!best || c.size > best.size ? c : best), undefined);
  // Perp turns take the crowd with the most at stake, so they are the cascades that make bursts.
  const heaviest = crowds.reduce<Crowd | undefined>((best, c) => (!best || c.notional > best.notional ? c : best), undefined);
  const cumulative: number[] = [];
  full.reduce((sum, c, i) => (cumulative[i] = sum + 1 / c.move ** 2), 0);
  const withDemo = crowds.find((c) => c.demo);
  const crowd = turn === 0 || (turn === 2 && !withDemo) ? heaviest : turn === 2 ? withDemo : full.length > 0 ? full[rng.weighted(cumulative)] : largest;
  if (!crowd) return;
  const { market, long, move } = crowd;
  market.asset.x += Math.log(long ? 1 - move : 1 + move);
  market.asset.h += 1;
  market.excitation += 5;
  state.excitation += state.intensity * 5;
}
