/**
 * What happens during one tick, as actions at millisecond offsets: liquidations and triggers the price
 * has reached, resting orders the price ran through or that expire, new resting orders, the random order
 * flow (a self-exciting process, so trades come in bursts), the demo wallets' trades, TWAP slices and
 * the altx venues' own accounts' rare orders.
 * Actions run in time order and decide against the state at that moment, so a position is never closed
 * twice or flipped by two orders planned against the same snapshot.
 */
import { quoteOf } from './book.ts';
import { bestLevel } from './orderbook.ts';
import { followLiquidation, planSystem } from './accounts.ts';
import { cancelResting, executeTaker, fillResting, fireTrigger, liquidate, restOrder } from './exchange.ts';
import { formatUnits } from './decimal.ts';
import { Rng, STREAM, hash32 } from './random.ts';
import { type Action, type Holding, type MarketState, type Side, type SimState, type Tick, type Twap, midOf, positionKey } from './state.ts';

/** Random orders per second at intensity 1, before self-excitation and the time-of-day swing. */
const BASE_ORDER_RATE = 1.4;
/** Excitation decays with an 8 s time constant; each order adds enough for a branching ratio of 1/2. */
const EXCITATION_DECAY = Math.exp(-1 / 8);
const EXCITATION_JUMP = 0.5 * (1 - EXCITATION_DECAY);
/** Extra (unscheduled) orders per second of each demo wallet at intensity 1. */
const DEMO_RATE = 0.02;
/** TWAPs started per second at intensity 1, and seconds between slices. */
const TWAP_RATE = 3 / 3600;
const TWAP_SLICE_SECONDS = 30;
const DEMO_TWAP_EVERY_SEC = 20 * 60;
/** Resting orders placed per second per unit of market activity at intensity 1. */
const PLACE_RATE = 0.01;
const MAX_RESTING = 60;
/**
 * An order comes from one of the market's h holders with probability h / (h + HOLDER_BALANCE * (1 +
 * activity)); with the close rates of `decide`, a market settles at a few holders per unit of activity.
 */
const HOLDER_BALANCE = 1;
/** Mean life of a resting order before its owner cancels it, seconds. */
const RESTING_LIFE = 180;

interface Intent {
  side: Side;
  units: number;
  closing: boolean;
}

/**
 * What a trader does in a market: with a position, usually close all or part of it (always, once it is
 * far beyond the trader's usual size), otherwise add; without one, open either way (spot and outcome
 * shares are only bought). Sizes are log-normal around the trader's own median, which is Pareto-spread
 * across wallets, so order sizes have a fat tail.
 */
function decide(rng: Rng, state: SimState, traderIndex: number, market: MarketState): Intent {
  const trader = state.wallets.traders[traderIndex]!;
  const holding = state.positions.get(positionKey(traderIndex, market));
  if (holding) {
    const held = Math.abs(holding.units);
    const holds = trader.holdsToSettlement === true && market.spec.marketType === 'outcome';
    if (held * midOf(market) * market.unitSize > trader.notional * 12 || (!holds && rng.chance(0.55))) {
      // A holder to settlement only trims.
      const units = !holds && rng.chance(0.75) ? held : Math.max(1, Math.round(held * rng.uniform(0.2, 0.8)));
      return { side: holding.units > 0 ? 'A' : 'B', units, closing: true };
    }
  }
  return { side: openSide(rng, market, holding), units: orderUnits(rng, state, traderIndex, market), closing: false };
}

/** The side that adds to a position, or opens one. */
function openSide(rng: Rng, market: MarketState, holding: Holding | undefined): Side {
  if (holding) return holding.units > 0 ? 'B' : 'A';
  return market.longOnly || rng.chance(0.5) ? 'B' : 'A';
}

function orderUnits(rng: Rng, state: SimState, traderIndex: number, market: MarketState): number {
  const notional = Math.min(rng.logNormal(state.wallets.traders[traderIndex]!.notional, 1), 20_000_000);
  return Math.max(1, Math.round(notional / (midOf(market) * market.unitSize)));
}

export function planTick(state: SimState, tick: Tick): Action[] {
  const actions: Action[] = [];
  planLiquidations(state, tick, actions);
  planTriggers(state, tick, actions);
  planResting(state, tick, actions);
  planPlacements(state, tick, actions);
  planRandomFlow(state, tick, actions);
  planDemo(state, tick, actions);
  planTwaps(state, tick, actions);
  planSystem(state, tick, actions);
  return actions.sort((a, b) => a.ms - b.ms);
}

function takeAction(state: SimState, tick: Tick, market: MarketState, trader: number, ms: number, orderType: string, tif: string): Action {
  return {
    ms,
    run: () => {
      const { side, units, closing } = decide(tick.rng, state, trader, market);
      executeTaker(state, tick, { market, trader, side, units, ms, orderType, tif, reduceOnly: closing });
    },
  };
}

function poolTrader(state: SimState, rng: Rng): number {
  return state.wallets.demo.length + rng.weighted(state.poolCumulative);
}

/**
 * The trader behind an order in `market`: the more wallets hold a position there, the likelier it is
 * one of them, so opens and closes balance instead of positions piling up.
 */
function marketTrader(state: SimState, rng: Rng, market: MarketState): number {
  const holders = market.holders.length;
  const fromHolder = rng.next() * (holders + HOLDER_BALANCE * (1 + market.spec.activity)) < holders;
  return fromHolder ? rng.pick(market.holders).trader : poolTrader(state, rng);
}

function planLiquidations(state: SimState, tick: Tick, actions: Action[]): void {
  const { rng, sec } = tick;
  for (const market of state.markets) {
    if (!market.liquidatable) continue;
    const mid = midOf(market);
    if (mid > market.longLiqCeiling && mid < market.shortLiqFloor) continue;
    market.longLiqCeiling = 0;
    market.shortLiqFloor = Infinity;
    for (const holding of market.holders) {
      if (holding.liquidating) continue;
      const long = holding.units > 0;
      if (long ? mid > holding.liqPrice : mid < holding.liqPrice) {
        if (long) market.longLiqCeiling = Math.max(market.longLiqCeiling, holding.liqPrice);
        else market.shortLiqFloor = Math.min(market.shortLiqFloor, holding.liqPrice);
        continue;
      }
      holding.liquidating = true;
      // Most go within the second; the rest follow over the next few as the engine works through the book.
      state.pendingLiquidations.push({ dueSec: sec + (rng.chance(0.4) ? 0 : 1 + rng.int(3)), market, holding });
    }
  }
  const due = state.pendingLiquidations.filter((p) => p.dueSec <= sec);
  if (due.length === 0) return;
  state.pendingLiquidations = state.pendingLiquidations.filter((p) => p.dueSec > sec);
  for (const { market, holding } of due) {
    const ms = rng.int(1000);
    actions.push({
      ms,
      run: () => {
        const order = liquidate(state, tick, market, holding, ms);
        if (order) followLiquidation(state, tick, order);
      },
    });
  }
}

function planTriggers(state: SimState, tick: Tick, actions: Action[]): void {
  for (const market of state.markets) {
    if (market.triggers.length === 0) continue;
    const mid = midOf(market);
    for (const trigger of market.triggers) {
      if (trigger.above ? mid < trigger.triggerPrice : mid > trigger.triggerPrice) continue;
      const ms = tick.rng.int(300);
      actions.push({ ms, run: () => fireTrigger(state, tick, market, trigger, ms) });
    }
  }
}

function planResting(state: SimState, tick: Tick, actions: Action[]): void {
  for (const market of state.markets) {
    if (market.resting.length === 0) continue;
    const mid = midOf(market);
    for (const order of market.resting) {
      if (order.expiresSec <= tick.sec) {
        const ms = tick.rng.int(1000);
        actions.push({ ms, run: () => cancelResting(state, tick, market, order, ms) });
      } else if (order.side === 'B' ? mid <= order.price : mid >= order.price) {
        const ms = tick.rng.int(300);
        actions.push({ ms, run: () => fillResting(state, tick, market, order, ms) });
      }
    }
  }
}

function planPlacements(state: SimState, tick: Tick, actions: Action[]): void {
  const { rng } = tick;
  const { traders } = state.wallets;
  for (const market of state.markets) {
    if (!market.orderLevel) continue;
    for (let n = rng.poisson(state.intensity * market.spec.activity * PLACE_RATE); n > 0; n--) {
      // Now and then a demo wallet rests an order in one of its markets (the whale earns the rebate).
      const demo = rng.chance(0.1) ? rng.int(state.wallets.demo.length) : -1;
      const trader = traders[demo]?.favorites?.includes(market.key) ? demo : marketTrader(state, rng, market);
      const ms = rng.int(1000);
      actions.push({ ms, run: () => placeResting(state, tick, market, trader, ms) });
    }
  }
}

/** A limit order away from the touch: reducing the trader's position, or adding to it (or opening). */
function placeResting(state: SimState, tick: Tick, market: MarketState, trader: number, ms: number): void {
  if (market.resting.length >= MAX_RESTING) return;
  const { rng } = tick;
  const holding = state.positions.get(positionKey(trader, market));
  const reduce = holding !== undefined && rng.chance(0.5);
  const side: Side = reduce ? (holding.units > 0 ? 'A' : 'B') : openSide(rng, market, holding);
  const units = reduce ? Math.max(1, Math.round(Math.abs(holding.units) * rng.uniform(0.3, 1))) : orderUnits(rng, state, trader, market);
  const mid = midOf(market);
  const outcome = market.spec.marketType === 'outcome';
  const offset = outcome
    ? rng.uniform(0.002, 0.04)
    : (rng.chance(0.4) ? rng.uniform(1, 5) : 5 + rng.exponential(30)) * 1e-4 * (market.asset.spec.annualVol / 0.6);
  const raw = outcome ? mid + (side === 'B' ? -offset : offset) : mid * (side === 'B' ? 1 - offset : 1 + offset);
  const quote = quoteOf(market);
  // Never priced through the touch, nor through the book's best quote on the other side: a resting order rests.
  const facing = bestLevel(market.book, side === 'B' ? 'A' : 'B')?.[0];
  const ticks =
    side === 'B'
      ? Math.min(Math.floor(raw * quote.scale), quote.bid, facing ? Math.ceil(facing.price * quote.scale - 1e-9) - 1 : Infinity)
      : Math.max(Math.ceil(raw * quote.scale), quote.ask, facing ? Math.floor(facing.price * quote.scale + 1e-9) + 1 : -Infinity);
  if (ticks < 1 || ticks > quote.maxTick) return;
  restOrder(
    state,
    tick,
    market,
    {
      oid: state.nextOid++,
      trader,
      side,
      price: ticks / quote.scale,
      priceText: formatUnits(ticks, quote.decimals),
      units,
      reduceOnly: reduce,
      tif: rng.chance(0.8) ? 'Gtc' : 'Alo',
      expiresSec: tick.sec + 1 + Math.round(rng.exponential(RESTING_LIFE)),
      ...(state.wallets.traders[trader]!.cloids ? { cloid: `0x${rng.hex(32)}` } : {}),
    },
    ms,
  );
}

function planRandomFlow(state: SimState, tick: Tick, actions: Action[]): void {
  const { rng, sec } = tick;
  // Busiest around the US open, quietest in the Asian night.
  const season = 1 + 0.15 * Math.sin((2 * Math.PI * ((sec % 86_400) - 9 * 3_600)) / 86_400);
  const count = rng.poisson(state.intensity * BASE_ORDER_RATE * season + state.excitation);
  state.excitation = state.excitation * EXCITATION_DECAY + EXCITATION_JUMP * count;
  if (count === 0) return;
  const { markets } = state;
  const cumulative = new Float64Array(markets.length);
  let sum = 0;
  markets.forEach((market, i) => {
    cumulative[i] = sum += market.spec.activity * (1 + market.excitation) * Math.exp(market.asset.h);
  });
  for (let i = 0; i < count; i++) {
    const market = markets[rng.weighted(cumulative)]!;
    const trader = marketTrader(state, rng, market);
    const frontEnd = rng.chance(0.6);
    actions.push(takeAction(state, tick, market, trader, rng.int(1000), frontEnd ? 'Market' : 'Limit', frontEnd ? 'FrontendMarket' : 'Ioc'));
  }
}

/** Each demo wallet trades at a seeded second of every minute, and now and then besides. */
function planDemo(state: SimState, tick: Tick, actions: Action[]): void {
  const { rng, sec } = tick;
  const minute = Math.floor(sec / 60);
  state.wallets.demo.forEach((_, d) => {
    const scheduled = hash32(state.seed, STREAM.demoSchedule, d, minute) % 60 === sec % 60;
    if (!scheduled && !rng.chance(state.intensity * DEMO_RATE)) return;
    const favorites = state.wallets.traders[d]!.favorites!;
    const market = state.byKey.get(rng.pick(favorites))!;
    actions.push(takeAction(state, tick, market, d, rng.int(1000), 'Market', 'FrontendMarket'));
  });
}

function planTwaps(state: SimState, tick: Tick, actions: Action[]): void {
  const { rng, sec } = tick;
  state.twaps = state.twaps.filter((twap) => twap.slicesLeft > 0);
  // Besides the pool's, a demo wallet starts a TWAP every 20 minutes (in turn), on its first perpx favorite.
  const demoTurn = sec % DEMO_TWAP_EVERY_SEC === 0 ? (sec / DEMO_TWAP_EVERY_SEC) % state.wallets.demo.length : -1;
  const demoMarket = demoTurn >= 0 ? state.wallets.traders[demoTurn]!.favorites!.find((f) => f.startsWith('perpx/')) : undefined;
  for (let n = rng.poisson(state.intensity * TWAP_RATE) + (demoMarket ? 1 : 0); n > 0; n--) {
    const perps = state.markets.filter((m) => m.spec.family === 'perpx');
    const cumulative = new Float64Array(perps.length);
    perps.reduce((total, m, i) => (cumulative[i] = total + m.spec.activity), 0);
    const ofDemo = demoMarket !== undefined && n === 1;
    const market = ofDemo ? state.byKey.get(demoMarket)! : perps[rng.weighted(cumulative)]!;
    const trader = ofDemo ? demoTurn : poolTrader(state, rng);
    const { side, units, closing } = decide(rng, state, trader, market);
    const slices = 10 + rng.int(21);
    // A TWAP works an order several times a normal one.
    const sliceUnits = Math.max(1, Math.round((closing ? units : 3 * units) / slices));
    state.twaps.push({ id: state.nextTwapId++, trader, market, side, closing, sliceUnits, slicesLeft: slices, nextSec: sec + 1 });
  }
  planSpotTwap(state, tick);
  for (const twap of state.twaps) {
    if (twap.nextSec !== sec) continue;
    twap.slicesLeft--;
    twap.nextSec += TWAP_SLICE_SECONDS;
    const own = twap.ownStream ? spotTwapRng(state, tick) : undefined;
    const ms = (own ?? rng).int(1000);
    actions.push({ ms, run: () => (own ? withRng(tick, own, () => twapSlice(state, tick, twap, ms)) : twapSlice(state, tick, twap, ms)) });
  }
}

/** The spot TWAPs' draws, a stream of their own: adding them left every other draw of the demo as it was. */
const spotTwapRng = (state: SimState, tick: Tick) => new Rng(hash32(state.seed, STREAM.spotTwap, tick.sec));

function withRng(tick: Tick, rng: Rng, run: () => void): void {
  const main = tick.rng;
  tick.rng = rng;
  try {
    run();
  } finally {
    tick.rng = main;
  }
}

/**
 * Every 4 hours at 02:30, 06:30, ... UTC, the demo wallet that trades spot only (the spot stacker)
 * starts a TWAP on its first spot favorite: the demo's spot TWAPs (the pool's are on core perps).
 */
const SPOT_TWAP_EVERY_SEC = 4 * 3600;
const SPOT_TWAP_AT_SEC = 2.5 * 3600;

function planSpotTwap(state: SimState, tick: Tick): void {
  if (tick.sec % SPOT_TWAP_EVERY_SEC !== SPOT_TWAP_AT_SEC) return;
  const trader = state.wallets.demo.findIndex(
    (_, i) =>
      !state.wallets.traders[i]!.favorites!.some((f) => f.startsWith('perpx/')) && state.wallets.traders[i]!.favorites!.some((f) => f.startsWith('spot/')),
  );
  if (trader < 0) return;
  const market = state.byKey.get(state.wallets.traders[trader]!.favorites!.find((f) => f.startsWith('spot/'))!)!;
  const rng = spotTwapRng(state, tick);
  const { side, units, closing } = decide(rng, state, trader, market);
  const slices = 10 + rng.int(21);
  const sliceUnits = Math.max(1, Math.round((closing ? units : 3 * units) / slices));
  state.twaps.push({ id: state.nextTwapId++, trader, market, side, closing, sliceUnits, slicesLeft: slices, nextSec: tick.sec + 1, ownStream: true });
}

/** A slice never flips the position: against an opposite position it only closes; a closing TWAP ends with the position. */
function twapSlice(state: SimState, tick: Tick, twap: Twap, ms: number): void {
  const holding = state.positions.get(positionKey(twap.trader, twap.market));
  const against = holding !== undefined && holding.units > 0 !== (twap.side === 'B');
  if (twap.closing && !against) {
    twap.slicesLeft = 0;
    return;
  }
  const units = against ? Math.min(twap.sliceUnits, Math.abs(holding.units)) : twap.sliceUnits;
  executeTaker(state, tick, {
    market: twap.market,
    trader: twap.trader,
    side: twap.side,
    units,
    ms,
    orderType: 'Market',
    tif: 'Ioc',
    reduceOnly: twap.closing,
    twapId: twap.id,
  });
}
