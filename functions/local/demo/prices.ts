/**
 * Price dynamics, one step per second. Each asset's log price (log-odds for an outcome) takes a normal
 * step scaled by a stochastic volatility (log-AR(1), so calm and wild hours alternate), loaded on a
 * factor shared with its class, plus rare jumps that also lift volatility and the order flow. Each
 * market adds its own basis, reverting within seconds to its bias (a perp's premium regime).
 * Scheduled cascades shock an asset just far enough to liquidate a crowd of positions, and scheduled
 * swings move the whole crypto market across its breadth thresholds.
 */
import { STREAM, hash32 } from './random.ts';
import { executeTaker } from './exchange.ts';
import { type MarketState, type SimState, type Tick, midOf, positionKey } from './state.ts';

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
/**
 * On the majors (BTC, ETH: annual volatility at most 0.65) no larger than this many hourly standard
 * deviations (BTC about 3%): their crowds are deep enough to be reached. Other assets keep
 * `MAX_CASCADE_MOVE`, so hip3 and altx crowds are reached too; every move fades (EVENT_HALF_LIFE_S).
 */
const MAX_MAJOR_CASCADE_HOURLY_SD = 6;
const MAJOR_ANNUAL_VOL = 0.65;
const HOURS_PER_YEAR = 365 * 24;

/** The largest move a cascade may make on this market's asset. */
const largestMove = (market: MarketState) => {
  const { annualVol, assetClass } = market.asset.spec;
  const major = assetClass === 'crypto' && annualVol <= MAJOR_ANNUAL_VOL;
  return major ? Math.min(MAX_CASCADE_MOVE, (MAX_MAJOR_CASCADE_HOURLY_SD * annualVol) / Math.sqrt(HOURS_PER_YEAR)) : MAX_CASCADE_MOVE;
};
/** A hip3 cascade moves the oracle past the 2% jump that `oracle.jump` rules fire on by default. */
const MIN_HIP3_CASCADE_MOVE = 0.025;
/**
 * A scheduled event's move (a cascade every 15 minutes, a swing every 30) fades with this half-life.
 * Kept, they added up: a day of them once took BTC down 58% and an hour up 24%. Fading, a day's
 * moves are the diffusion's (the assets' annual volatility), as real markets show.
 */
const EVENT_HALF_LIFE_S = 20 * 60;
const EVENT_DECAY = 2 ** (-1 / EVENT_HALF_LIFE_S);

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
    const displacement = asset.x - asset.anchor;
    asset.anchor += step;
    asset.x = asset.anchor + displacement * EVENT_DECAY;
    // A stablecoin is pulled back to its peg; an outcome's odds stay short of certainty.
    if (assetClass === 'stable') {
      asset.anchor += (Math.log(asset.spec.price) - asset.anchor) * 0.01;
      asset.x += (Math.log(asset.spec.price) - asset.x) * 0.01;
    }
    if (assetClass === 'outcome') {
      asset.anchor = Math.max(-MAX_LOG_ODDS, Math.min(MAX_LOG_ODDS, asset.anchor));
      asset.x = Math.max(-MAX_LOG_ODDS, Math.min(MAX_LOG_ODDS, asset.x));
    }
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

interface Crowd {
  market: MarketState;
  long: boolean;
  size: number;
  move: number;
  notional: number;
  demo: boolean;
}

/**
 * The all-in position that sparks a perp turn: alone it is a burst at the rules' default threshold
 * (1M USD in 5 minutes) even after the move and the sweep take their toll on its fills. The crowd's
 * own positions may not all count, as stops close some of them first.
 */
const FUND_ALL_IN_USD = 1_300_000;
/** How far past the farthest liquidation price the move goes. */
const MOVE_MARGIN = 0.003;

/**
 * At its scheduled second, a cascade picks a crowd of 15 to 30 positions (longs or shorts of one
 * perpx or hip3 market) and moves the asset just past their liquidation prices. Turns rotate:
 *
 *   0. the crowd with the most notional at stake, which the pool's largest wallet flat in that market
 *      joins first with an all-in position (`FUND_ALL_IN_USD`), so every hour has a burst at the
 *      default threshold;
 *   1. and 3. a hip3 crowd (smaller moves likelier among the full crowds, weight 1/move^2, or the largest
 *      when none is full), where a move of the asset is a jump of its dex oracle;
 *   2. a crowd holding a demo wallet; when none is exposed, the most levered demo wallet goes all in on
 *      one of its markets first, so every hour a watched address is liquidated.
 *
 * The liquidations and their price impact follow over the next seconds.
 */
export function maybeCascade(state: SimState, tick: Tick): void {
  if (cascadeSecond(state.seed, Math.floor(tick.sec / CASCADE_WINDOW_SEC)) !== tick.sec) return;
  const { rng } = tick;
  const turn = Math.floor(tick.sec / CASCADE_WINDOW_SEC) % 4;
  const hip3Turn = turn % 2 === 1;
  const target = 15 + rng.int(16);
  const crowds = exposedCrowds(state, target, hip3Turn ? MIN_HIP3_CASCADE_MOVE : MIN_CASCADE_MOVE, (m) => !hip3Turn || m.spec.family === 'hip3');
  let crowd: Crowd | undefined;
  if (turn === 0) {
    const heaviest = maxBy(crowds, (c) => c.notional);
    crowd = heaviest && fundAllIn(state, tick, heaviest);
  } else if (turn === 2) {
    crowd = crowds.find((c) => c.demo) ?? demoAllIn(state, tick);
  } else {
    const full = crowds.filter((c) => c.size === target);
    const cumulative: number[] = [];
    full.reduce((sum, c, i) => (cumulative[i] = sum + 1 / c.move ** 2), 0);
    crowd = full.length > 0 ? full[rng.weighted(cumulative)] : maxBy(crowds, (c) => c.size);
  }
  if (!crowd) return;
  const { market, long, move } = crowd;
  market.asset.x += Math.log(long ? 1 - move : 1 + move);
  market.asset.h += 1;
  market.excitation += 5;
  state.excitation += state.intensity * 5;
}

/** Per market side, the `target` positions nearest their liquidation prices (within the largest move) and the move that reaches them all. */
function exposedCrowds(state: SimState, target: number, minMove: number, eligible: (market: MarketState) => boolean): Crowd[] {
  const crowds: Crowd[] = [];
  for (const market of state.markets) {
    if (!market.liquidatable || !eligible(market)) continue;
    const mid = midOf(market);
    // A hip3 turn must still jump the oracle past its default threshold, whatever the asset's volatility.
    const cap = Math.max(minMove, largestMove(market));
    for (const long of [true, false]) {
      const exposed = market.holders
        .filter((h) => !h.liquidating && h.units > 0 === long)
        .map((h) => ({
          distance: (long ? mid - h.liqPrice : h.liqPrice - mid) / mid,
          notional: Math.abs(h.units) * market.unitSize * mid,
          demo: h.trader < state.wallets.demo.length,
        }))
        .filter((e) => e.distance > 0 && e.distance < cap)
        .sort((a, b) => a.distance - b.distance)
        .slice(0, target);
      if (exposed.length === 0) continue;
      crowds.push({
        market,
        long,
        size: exposed.length,
        notional: exposed.reduce((sum, e) => sum + e.notional, 0),
        demo: exposed.some((e) => e.demo),
        move: Math.min(Math.max(exposed[exposed.length - 1]!.distance + MOVE_MARGIN, minMove), cap),
      });
    }
  }
  return crowds;
}

function maxBy<T>(items: readonly T[], value: (item: T) => number): T | undefined {
  return items.reduce<T | undefined>((best, item) => (best === undefined || value(item) > value(best) ? item : best), undefined);
}

/**
 * `trader` buys (or sells) `units` at ms 0 all in, and the crowd's move stretches to take that position
 * as well, unless that would be more than the largest move (a market of low leverage).
 */
function withAllIn(state: SimState, tick: Tick, crowd: Crowd, trader: number, units: number): Crowd {
  const { market, long } = crowd;
  executeTaker(state, tick, { market, trader, side: long ? 'B' : 'A', units, ms: 0, orderType: 'Market', tif: 'FrontendMarket', allIn: true });
  const holding = state.positions.get(positionKey(trader, market));
  if (!holding || holding.units > 0 !== long) return crowd;
  const mid = midOf(market);
  const move = (long ? mid - holding.liqPrice : holding.liqPrice - mid) / mid + MOVE_MARGIN;
  return move > largestMove(market)
    ? crowd
    : { ...crowd, move: Math.max(crowd.move, move), notional: crowd.notional + Math.abs(holding.units) * market.unitSize * mid };
}

/** The pool's largest wallet without a position in the crowd's market joins it with `FUND_ALL_IN_USD`. */
function fundAllIn(state: SimState, tick: Tick, crowd: Crowd): Crowd {
  const { market } = crowd;
  const { demo, poolEnd } = state.wallets;
  let fund = -1;
  state.wallets.traders.forEach((trader, index) => {
    if (index < demo.length || index >= poolEnd || state.positions.has(positionKey(index, market))) return;
    if (fund < 0 || trader.notional > state.wallets.traders[fund]!.notional) fund = index;
  });
  return fund < 0 ? crowd : withAllIn(state, tick, crowd, fund, Math.round(FUND_ALL_IN_USD / (midOf(market) * market.unitSize)));
}

/**
 * The demo wallet with the highest leverage goes all in on a market of its own: the one it holds (on
 * its side), else one picked among its perps. The crowd is that market's side, from the wallet alone.
 */
function demoAllIn(state: SimState, tick: Tick): Crowd | undefined {
  const { rng } = tick;
  const demo = state.wallets.traders.slice(0, state.wallets.demo.length);
  const trader = demo.reduce((best, t, i) => (t.leverage > demo[best]!.leverage ? i : best), 0);
  const markets = demo[trader]!.favorites!.map((key) => state.byKey.get(key)!).filter((m) => m.liquidatable);
  if (markets.length === 0) return undefined;
  const held = markets.find((m) => state.positions.has(positionKey(trader, m)));
  const market = held ?? rng.pick(markets);
  const long = held ? state.positions.get(positionKey(trader, held))!.units > 0 : rng.chance(0.5);
  const units = Math.max(1, Math.round(rng.logNormal(demo[trader]!.notional, 1) / (midOf(market) * market.unitSize)));
  const crowd = withAllIn(state, tick, { market, long, size: 1, move: MIN_CASCADE_MOVE, notional: 0, demo: true }, trader, units);
  return crowd.notional > 0 ? crowd : undefined;
}

/**
 * Twice an hour the crypto market swings as a whole: at :50 risk off, until at most `DIP_SHARE` of the
 * perpx markets are above their session VWAP; at :20 risk on, until at least `RALLY_SHARE` are. Every
 * crypto asset takes the same log step, only as large as needed (none when breadth is already there),
 * so breadth crosses the default 30% both ways each hour and passes the default hysteresis band (25%
 * and 35%) in between. The step is instant and stirs the flow: breadth counts markets traded in the
 * last five minutes, so five minutes on it sees only prices from after the swing.
 */
const DIP_SHARE = 0.18;
const RALLY_SHARE = 0.45;
const SWING_MARGIN = 0.001;

export function maybeSwing(state: SimState, tick: Tick): void {
  const offset = tick.startMs % 3_600_000;
  const dip = offset === 50 * 60_000;
  if (!dip && offset !== 20 * 60_000) return;
  const deviations = state.markets
    .filter((m) => m.spec.family === 'perpx' && m.sessionUnits > 0)
    .map((m) => Math.log(midOf(m) / (m.sessionNotional / m.sessionUnits)))
    .sort((a, b) => a - b);
  // The deviation that `share` of the markets stay above once every price has moved by the step.
  const share = dip ? DIP_SHARE : RALLY_SHARE;
  const pivot = deviations[Math.min(deviations.length - 1, Math.floor((1 - share) * deviations.length))];
  const step = pivot === undefined ? 0 : dip ? Math.min(0, -pivot - SWING_MARGIN) : Math.max(0, -pivot + SWING_MARGIN);
  if (step === 0) return;
  for (const asset of state.assets) if (asset.spec.assetClass === 'crypto') asset.x += step;
  state.excitation += state.intensity * 3;
}
