/**
 * The simulation's mutable state, carried from tick to tick. Everything a tick needs beyond this state
 * comes from that tick's own generator, which is what makes the output independent of how `advance`
 * is chunked.
 */
import type { NormalizedRecord } from '#schemas/datasets.ts';
import type { Family } from '#core/venues.ts';
import { type AssetSpec, type MarketSpec, initialCatalog } from './catalog.ts';
import type { Position } from './ledger.ts';
import { Rng, STREAM, hash32 } from './random.ts';
import { type Wallets, createWallets } from './wallets.ts';

export type Side = 'B' | 'A';

/** Seconds in a year: converts annual volatility to per-tick (one second) volatility. */
const SECONDS_PER_YEAR = 365 * 86_400;

export interface AssetState {
  spec: AssetSpec;
  /** Log price, or log-odds of Yes for an outcome. */
  x: number;
  /**
   * Where `x` would be without the scheduled events (cascades, swings): the diffusion and its jumps.
   * An event moves `x` alone, and `x` decays back toward this (half-life `EVENT_HALF_LIFE_S` in
   * prices.ts), so the events' moves stay sharp but never add up to a crash.
   */
  anchor: number;
  /** Log-volatility deviation (stochastic volatility state, mean 0). */
  h: number;
  /** Average per-second volatility (of log-odds for an outcome). */
  sigma: number;
  /** Loading on the class factor shared by the assets of the class. */
  rho: number;
}

export interface Holding extends Position {
  trader: number;
  leverage: number;
  /** Mid at which the venue liquidates (perpx, hip3 and altx perps; 0 elsewhere). */
  liqPrice: number;
  /** Queued for liquidation; keeps the position from being queued twice during a cascade. */
  liquidating: boolean;
}

export interface RestingOrder {
  oid: number;
  trader: number;
  side: Side;
  price: number;
  priceText: string;
  units: number;
  reduceOnly: boolean;
  tif: string;
  cloid?: string;
  expiresSec: number;
}

export interface SimOrder {
  oid: number;
  owner: string;
  side: Side;
  price: number;
  priceText: string;
  units: number;
  /** The size it was placed with. */
  origUnits: number;
  placedAt: number;
  /** Set on a trader's resting order (its fills and cancels are the trader's); unset on a maker's quote. */
  resting?: RestingOrder;
}

export interface SimBook {
  /** Price text -> orders in queue order, per side. */
  levels: Record<Side, Map<string, SimOrder[]>>;
  orders: Map<number, SimOrder>;
  /** Price decimals the makers quote in; a change of the venue's tick size requotes the whole ladder. */
  decimals: number;
  /** Ticks between the ladder's rungs, and the mid when the grid was set; set with `decimals`. */
  gap: number;
  gridMid: number;
}

const emptyBook = (): SimBook => ({ levels: { B: new Map(), A: new Map() }, orders: new Map(), decimals: -1, gap: 1, gridMid: 0 });

export interface TriggerOrder {
  oid: number;
  trader: number;
  /** The closing side. */
  side: Side;
  above: boolean;
  triggerPrice: number;
  triggerText: string;
  limitText: string;
  orderType: string;
  positionTpsl: boolean;
  units: number;
}

export interface MarketState {
  spec: MarketSpec;
  index: number;
  key: string;
  asset: AssetState;
  unitSize: number;
  maxPriceDecimals: number;
  spreadBps: number;
  /** Resting size per book level, USD. */
  depthNotional: number;
  /** Deviation of this market's mid from its asset (log units; probability units for an outcome). */
  basis: number;
  /** Stationary standard deviation of the basis around its bias. */
  basisSd: number;
  /** Where the basis reverts to: a perp's premium regime, which sets the sign of funding. */
  bias: number;
  /** Self-exciting share of the flow: recent trades draw more trades. */
  excitation: number;
  /** The UTC day's traded notional (price units) and size (units), and the last trade's time. */
  sessionDay: number;
  sessionNotional: number;
  sessionUnits: number;
  lastTradeMs: number;
  /** The premium samples of the funding hour so far (one a minute): funding settles on their mean. */
  premiumSum: number;
  premiumSamples: number;
  /** Open interest in units. */
  oi: number;
  oiTarget: number;
  holders: Holding[];
  /**
   * Never below the highest long liquidation price nor above the lowest short one (raised and lowered
   * as positions change, tightened when the holders are scanned): while the mid stays between them no
   * position of the market can be liquidated, and the scan is skipped.
   */
  longLiqCeiling: number;
  shortLiqFloor: number;
  resting: RestingOrder[];
  triggers: TriggerOrder[];
  /** The order book, order by order: makers' quotes and the traders' resting orders. */
  book: SimBook;
  /** Rests orders and TP/SL and emits every order event (perpx, hip3, hip4); spot emits its fills' (fillEvents in exchange.ts). */
  orderLevel: boolean;
  funding: boolean;
  openInterest: boolean;
  liquidatable: boolean;
  /** Spot tokens and outcome shares are held, never sold short. */
  longOnly: boolean;
}

export interface PendingLiquidation {
  dueSec: number;
  market: MarketState;
  holding: Holding;
}

/** `ownStream`: its draws come from its own stream (spot TWAPs), not the tick's. */
export interface Twap {
  id: number;
  trader: number;
  market: MarketState;
  side: Side;
  closing: boolean;
  sliceUnits: number;
  slicesLeft: number;
  nextSec: number;
  ownStream?: boolean;
}

/** A system account's order waiting for its second (the insurance fund following a liquidation). */
export interface PendingSystemOrder {
  dueSec: number;
  trader: number;
  market: MarketState;
  side: Side;
  units: number;
}

export interface SimState {
  seed: number;
  intensity: number;
  l2IntervalMs: number;
  l4CheckpointMs: number;
  wallets: Wallets;
  assets: AssetState[];
  markets: MarketState[];
  byKey: Map<string, MarketState>;
  /** Keyed by `trader * MARKET_SLOTS + market index`. */
  positions: Map<number, Holding>;
  /** Running sums of the pool traders' activity, for drawing the trader behind an order. */
  poolCumulative: Float64Array;
  pendingLiquidations: PendingLiquidation[];
  pendingSystemOrders: PendingSystemOrder[];
  twaps: Twap[];
  /** Global self-exciting intensity of the order flow (orders per second above the base rate). */
  excitation: number;
  nextOid: number;
  /** The last L4 diff of each family, (block, seq): where a checkpoint taken now stands. */
  lastBookDiff: Map<Family, [number, number]>;
  nextTwapId: number;
  nextListingMs: number;
  nowMs: number;
}

/** Room for this many markets in a position key. */
const MARKET_SLOTS = 65_536;

export function positionKey(trader: number, market: MarketState): number {
  return trader * MARKET_SLOTS + market.index;
}

/** One tick's context: its generator, its output and the per-tick id sequences. */
export interface Tick {
  sec: number;
  startMs: number;
  rng: Rng;
  out: NormalizedRecord[];
  /** Fills so far this tick (trade ids are `sec * 10_000 + n`). */
  trades: number;
  /** Current block and next seq per family (order events; a block every 100 ms). */
  blocks: Map<Family, { block: number; seq: number }>;
  /** The same for L4 diffs. */
  bookBlocks: Map<Family, { block: number; seq: number }>;
  /** The book's own generator (makers' quotes), so requoting does not shift the order flow's draws. */
  bookRng: Rng;
  /** Whether the tick's order-level records (L4 diffs, checkpoints) are made; the books change the same either way. */
  orderLevel: boolean;
}

export function createAsset(spec: AssetSpec): AssetState {
  const x = spec.assetClass === 'outcome' ? Math.log(spec.price / (1 - spec.price)) : Math.log(spec.price);
  const rho = { crypto: 0.65, equity: 0.6, commodity: 0, stable: 0, outcome: 0 }[spec.assetClass];
  return { spec, x, anchor: x, h: 0, sigma: spec.annualVol / Math.sqrt(SECONDS_PER_YEAR), rho: spec.key === 'BTC' ? 0.95 : rho };
}

function createMarket(spec: MarketSpec, index: number, asset: AssetState, rng: Rng): MarketState {
  const { family, marketType, activity } = spec;
  const perp = marketType === 'perp';
  // Every perpetual pays funding, on every venue.
  const hasFunding = perp;
  const market: MarketState = {
    spec,
    index,
    key: `${family}/${spec.symbol}`,
    asset,
    unitSize: 10 ** -spec.szDecimals,
    maxPriceDecimals: marketType === 'outcome' ? 4 : (perp ? 6 : 8) - spec.szDecimals,
    spreadBps: Math.min(20, 0.5 / activity ** 0.8),
    depthNotional: 500 + 4_000 * activity,
    basis: 0,
    basisSd: marketType === 'outcome' ? 0.003 : marketType === 'spot' ? 0.0003 : 0.0002,
    bias: hasFunding ? (rng.chance(0.65) ? 1 : -1) * rng.uniform(0.0003, 0.0012) : 0,
    excitation: 0,
    sessionDay: -1,
    sessionNotional: 0,
    sessionUnits: 0,
    lastTradeMs: 0,
    premiumSum: 0,
    premiumSamples: 0,
    oi: 0,
    oiTarget: 0,
    holders: [],
    longLiqCeiling: 0,
    shortLiqFloor: Infinity,
    resting: [],
    triggers: [],
    book: emptyBook(),
    orderLevel: family === 'perpx' || family === 'hip3' || family === 'hip4',
    funding: hasFunding,
    openInterest: hasFunding || marketType === 'outcome',
    liquidatable: perp && (family === 'perpx' || family === 'hip3' || family === 'altx'),
    longOnly: !perp,
  };
  market.basis = market.bias;
  return market;
}

/** Mid price now: the asset's price moved by this market's basis. */
export function midOf(market: MarketState): number {
  if (market.spec.marketType !== 'outcome') return Math.exp(market.asset.x + market.basis);
  const yes = 1 / (1 + Math.exp(-market.asset.x));
  const base = market.spec.outcomeSide === 1 ? 1 - yes : yes;
  return Math.min(0.995, Math.max(0.005, base + market.basis));
}

/** The asset's own price (the oracle of a perp). */
export function indexPriceOf(market: MarketState): number {
  return Math.exp(market.asset.x);
}

export function addMarket(state: SimState, spec: MarketSpec, asset: AssetState, rng: Rng): MarketState {
  const market = createMarket(spec, state.markets.length, asset, rng);
  if (market.openInterest) {
    market.oiTarget = (spec.activity * 2_000_000) / (midOf(market) * market.unitSize);
    market.oi = Math.round(market.oiTarget * rng.uniform(0.8, 1.2));
  }
  state.markets.push(market);
  state.byKey.set(market.key, market);
  return market;
}

/** Sets the position's liquidation price from its entry and leverage (perpx and hip3 only). */
export function updateLiquidationPrice(holding: Holding, market: MarketState): void {
  if (!market.liquidatable) return;
  // Maintenance margin is half the initial margin at maximum leverage.
  const maintenance = 1 / (2 * (market.spec.maxLeverage ?? 1));
  const distance = 1 / holding.leverage - maintenance;
  if (holding.units > 0) {
    holding.liqPrice = holding.entry * (1 - distance);
    market.longLiqCeiling = Math.max(market.longLiqCeiling, holding.liqPrice);
  } else {
    holding.liqPrice = holding.entry * (1 + distance);
    market.shortLiqFloor = Math.min(market.shortLiqFloor, holding.liqPrice);
  }
}

export interface SimOptions {
  seed: number;
  startMs: number;
  intensity: number;
  extraCoreMarkets: number;
  l2IntervalMs: number;
  l4CheckpointMs: number;
}

export function createState(options: SimOptions): SimState {
  const { seed, startMs } = options;
  const rng = new Rng(hash32(seed, STREAM.init));
  const wallets = createWallets(seed);
  const catalog = initialCatalog(seed, startMs, options.extraCoreMarkets);
  const assets = catalog.assets.map(createAsset);
  const assetByKey = new Map(assets.map((a) => [a.spec.key, a]));
  const pool = wallets.traders.slice(wallets.demo.length, wallets.poolEnd);
  const poolCumulative = new Float64Array(pool.length);
  pool.reduce((sum, trader, i) => (poolCumulative[i] = sum + trader.activity), 0);
  const state: SimState = {
    seed,
    intensity: options.intensity,
    l2IntervalMs: options.l2IntervalMs,
    l4CheckpointMs: options.l4CheckpointMs,
    wallets,
    assets,
    markets: [],
    byKey: new Map(),
    positions: new Map(),
    poolCumulative,
    pendingLiquidations: [],
    pendingSystemOrders: [],
    twaps: [],
    excitation: 0,
    // Order ids are of the venue's magnitude (about 10^11) and only grow.
    nextOid: Math.floor(startMs / 10),
    lastBookDiff: new Map(),
    nextTwapId: 100_000 + rng.int(100_000),
    nextListingMs: 0,
    nowMs: startMs,
  };
  for (const spec of catalog.markets) addMarket(state, spec, assetByKey.get(spec.asset) as AssetState, rng);
  seedPositions(state, rng);
  return state;
}

/** The pool arrives holding positions, so closes, liquidations and TP/SL activity start at once. */
function seedPositions(state: SimState, rng: Rng): void {
  const candidates = state.markets.filter((m) => m.spec.marketType !== 'spot');
  const cumulative = new Float64Array(candidates.length);
  candidates.reduce((sum, m, i) => (cumulative[i] = sum + m.spec.activity), 0);
  const { traders, demo, poolEnd } = state.wallets;
  for (let t = demo.length; t < poolEnd; t++) {
    const trader = traders[t]!;
    for (let n = rng.poisson(1.2); n > 0; n--) {
      const market = candidates[rng.weighted(cumulative)]!;
      if (state.positions.has(positionKey(t, market))) continue;
      const mid = midOf(market);
      const entry = market.spec.marketType === 'outcome' ? Math.min(0.99, Math.max(0.01, mid + 0.02 * rng.normal())) : mid * Math.exp(0.005 * rng.normal());
      const units = Math.max(1, Math.round(rng.logNormal(trader.notional, 1) / (entry * market.unitSize)));
      const long = market.longOnly || rng.chance(0.5);
      const holding = openHolding(state, t, market, { units: long ? units : -units, entry }, rng);
      // A position already past its liquidation price would not have survived to the start.
      if (market.liquidatable && (long ? mid <= holding.liqPrice : mid >= holding.liqPrice)) closeHolding(state, market, holding);
    }
  }
}

/**
 * Registers a position opened from flat. Cross margin usually backs a position with more than the
 * leverage setting requires, so the effective leverage (which sets the liquidation price) is lower.
 * A system account's position is not among the market's holders: the venue never liquidates it, and
 * the order flow never draws it as the trader behind an order (it trades only on its own schedule).
 */
export function openHolding(state: SimState, trader: number, market: MarketState, position: Position, rng: Rng): Holding {
  const { leverage: setting, system } = state.wallets.traders[trader]!;
  const leverage = Math.max(1, Math.min(setting, market.spec.maxLeverage ?? 1) * rng.uniform(0.25, 1));
  const holding: Holding = { ...position, trader, leverage, liqPrice: 0, liquidating: false };
  if (!system) {
    updateLiquidationPrice(holding, market);
    market.holders.push(holding);
  }
  state.positions.set(positionKey(trader, market), holding);
  return holding;
}

export function closeHolding(state: SimState, market: MarketState, holding: Holding): void {
  state.positions.delete(positionKey(holding.trader, market));
  const index = market.holders.indexOf(holding);
  if (index < 0) return;
  market.holders[index] = market.holders[market.holders.length - 1]!;
  market.holders.pop();
}

/** Something to do at millisecond `ms` of a tick: actions run in time order against the state at that moment. */
export interface Action {
  ms: number;
  run: () => void;
}
