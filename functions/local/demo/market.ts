/**
 * A deterministic demo market: every family's markets trading, in normalized records, for as long as
 * the caller advances the clock. The simulation runs in fixed one-second ticks; each tick draws from its
 * own generator (seed x epoch second) and carries its state to the next, so the same options give the
 * same records however `advance` is chunked.
 */
import { deserialize, serialize } from 'node:v8';
import type { InstrumentRecord, L4DiffRecord, NormalizedRecord } from '#schemas/datasets.ts';
import { CAPPED_BOOK_FAMILIES, FAMILIES, NATIVE_BOOK_LEVELS, type Family } from '#core/venues.ts';
import { accountRecords } from './accounts.ts';
import { quoteOf } from './book.ts';
import { REQUOTE_EVERY_SEC, checkpointRecord, closingDiffs, requote, topLevels } from './orderbook.ts';
import { LISTING_INTERVAL_MS, type MarketSpec, firstListingAfter, newListing } from './catalog.ts';
import { formatFixed, formatUnits } from './decimal.ts';
import { planTick } from './flow.ts';
import { transferRecords } from './transfers.ts';
import { maybeCascade, maybeSwing, movePrices } from './prices.ts';
import { Rng, STREAM, hash32 } from './random.ts';
import { type SimState, type Tick, addMarket, createAsset, createState, indexPriceOf, midOf } from './state.ts';
import type { DemoWallet } from './wallets.ts';

export type { DemoWallet } from './wallets.ts';

export interface DemoMarketOptions {
  /** Default 42. */
  seed?: number;
  /** Simulation start, a multiple of 1000. */
  startMs: number;
  /** Scales trade arrival rates; default 1 (4 to 5 trades a second over all markets). */
  intensity?: number;
  /** Generated core perps beyond the catalogued ones. */
  extraCoreMarkets?: number;
  /** Native L2 snapshot cadence per market; default 60 000, a multiple of 1000. */
  l2IntervalMs?: number;
  /** Order-level (L4) checkpoint cadence per market; default 300 000, a multiple of 1000. */
  l4CheckpointMs?: number;
}

export interface DemoMarket {
  /** The demo wallets (stable for a seed); each trades at least once in every simulated minute. */
  readonly wallets: readonly DemoWallet[];
  /** The options that shape its records (a snapshot resumes only under the same ones). */
  readonly options: { seed: number; intensity: number; l2IntervalMs: number; l4CheckpointMs: number };
  /** Where the simulation's clock stands: every record before it has been returned. */
  nowMs(): number;
  /** Symbols listed now, per family. */
  symbols(): Record<Family, string[]>;
  /**
   * Advances to `untilMs` (a multiple of 1000, later than now) and returns every record with ts in
   * [now, untilMs), sorted by ts. The first call also returns the registries first: the instruments
   * (the markets listed before the start, each at its listing time), then the accounts of altx and
   * altx-rh (every wallet and the venues' system accounts, at the start). With `orderLevel` false
   * the order-level records (L4 diffs and checkpoints) are not made: the books, and every other
   * record, are the same (a seed that keeps only recent L4 history saves their cost).
   */
  advance(untilMs: number, options?: { orderLevel?: boolean }): NormalizedRecord[];
  /**
   * The L4 diffs that empty every book, stamped now: written where this simulation's span ends and
   * another simulation's span begins (its books start empty), so the order-level history has no seam.
   */
  closingDiffs(): L4DiffRecord[];
  /** The whole state, for `resumeDemoMarket` (v8 serialization: Maps and shared references survive). */
  snapshot(): Uint8Array;
}

const MINUTE_MS = 60_000;
/**
 * Order-level checkpoints every 5 minutes: a book at any instant then replays at most 5 minutes of
 * diffs (see ARCHITECTURE.md, "Order books", for the measurement behind it).
 */
const L4_CHECKPOINT_MS = 5 * MINUTE_MS;
/** Interest component of funding (0.01% per 8 hours) and the clamp around it, as on the venue. */
const FUNDING_INTEREST = 0.0001;
const FUNDING_CLAMP = 0.0005;
/** Chance per minute that a perp's premium regime flips sign (about every 10 hours). */
const REGIME_FLIP = 1 / 600;
const HOUR_MS = 60 * MINUTE_MS;
/** Share of the gap to its long-run level that open interest closes each minute. */
const OI_REVERSION = 0.02;
/** The records must carry epoch milliseconds the schema accepts, listing times included. */
const EARLIEST_START_MS = Date.UTC(2015, 0, 1);
const LATEST_START_MS = Date.UTC(2099, 0, 1);

export function createDemoMarket(options: DemoMarketOptions): DemoMarket {
  const { startMs, seed = 42, intensity = 1, extraCoreMarkets = 0, l2IntervalMs = MINUTE_MS, l4CheckpointMs = L4_CHECKPOINT_MS } = options;
  if (!Number.isInteger(startMs) || startMs % 1000 !== 0 || startMs < EARLIEST_START_MS || startMs > LATEST_START_MS) {
    throw new RangeError('startMs must be a whole second between 2015 and 2099');
  }
  if (!Number.isInteger(seed)) throw new RangeError('seed must be an integer');
  if (!Number.isFinite(intensity) || intensity < 0) throw new RangeError('intensity must be a finite number >= 0');
  if (!Number.isInteger(extraCoreMarkets) || extraCoreMarkets < 0 || extraCoreMarkets > 2_000)
    throw new RangeError('extraCoreMarkets must be an integer from 0 to 2000');
  if (!Number.isInteger(l2IntervalMs) || l2IntervalMs <= 0 || l2IntervalMs % 1000 !== 0)
    throw new RangeError('l2IntervalMs must be a positive multiple of 1000');
  if (!Number.isInteger(l4CheckpointMs) || l4CheckpointMs <= 0 || l4CheckpointMs % 1000 !== 0)
    throw new RangeError('l4CheckpointMs must be a positive multiple of 1000');

  const state = createState({ seed, startMs, intensity, extraCoreMarkets, l2IntervalMs, l4CheckpointMs });
  state.nextListingMs = firstListingAfter(startMs);
  return marketOver(state, { registryEmitted: false, startMs });
}

/** What a snapshot holds: the whole simulation state (plain data: Maps, arrays, shared references kept). */
interface MarketSnapshot {
  version: 1;
  state: SimState;
  registryEmitted: boolean;
  startMs: number;
}

/**
 * The market from a snapshot another market took (`snapshot()`): it goes on exactly as that market
 * would have, so a stopped local cloud continues the same books, positions and prices.
 */
export function resumeDemoMarket(snapshot: Uint8Array): DemoMarket {
  const saved = deserialize(snapshot) as MarketSnapshot;
  if (saved?.version !== 1) throw new RangeError('not a demo market snapshot');
  return marketOver(saved.state, saved);
}

function marketOver(state: SimState, progress: { registryEmitted: boolean; startMs: number }): DemoMarket {
  let { registryEmitted } = progress;
  return {
    wallets: Object.freeze(state.wallets.demo.map((wallet) => Object.freeze({ ...wallet }))),
    options: { seed: state.seed, intensity: state.intensity, l2IntervalMs: state.l2IntervalMs, l4CheckpointMs: state.l4CheckpointMs },
    nowMs: () => state.nowMs,
    symbols() {
      const symbols = Object.fromEntries(FAMILIES.map((family) => [family, [] as string[]])) as Record<Family, string[]>;
      for (const market of state.markets) symbols[market.spec.family].push(market.spec.symbol);
      return symbols;
    },
    advance(untilMs, { orderLevel = true } = {}) {
      if (!Number.isInteger(untilMs) || untilMs % 1000 !== 0 || untilMs <= state.nowMs) {
        throw new RangeError(`untilMs must be a whole second after ${state.nowMs}`);
      }
      const out: NormalizedRecord[] = [];
      if (!registryEmitted) {
        registryEmitted = true;
        out.push(...state.markets.map((m) => instrumentRecord(m.spec)).sort((a, b) => a.ts - b.ts));
        out.push(...accountRecords(state.wallets, progress.startMs));
      }
      for (let ms = state.nowMs; ms < untilMs; ms += 1000) runTick(state, ms, out, orderLevel);
      state.nowMs = untilMs;
      return out;
    },
    closingDiffs: () => closingDiffs(state, state.nowMs),
    snapshot: () => serialize({ version: 1, state, registryEmitted, startMs: progress.startMs } satisfies MarketSnapshot),
  };
}

function runTick(state: SimState, startMs: number, out: NormalizedRecord[], orderLevel: boolean): void {
  const sec = startMs / 1000;
  const tick: Tick = {
    sec,
    startMs,
    rng: new Rng(hash32(state.seed, STREAM.tick, sec)),
    out,
    trades: 0,
    blocks: new Map(),
    bookBlocks: new Map(),
    bookRng: new Rng(hash32(state.seed, STREAM.book, sec)),
    orderLevel,
  };
  if (startMs === state.nextListingMs) listNewMarket(state, tick);
  movePrices(state, tick);
  maybeCascade(state, tick);
  maybeSwing(state, tick);
  if (startMs % MINUTE_MS === 0) minuteRecords(state, tick);
  // A minute's transfers are drawn together and each is emitted in its own second.
  for (const transfer of transferRecords(state, startMs - (startMs % MINUTE_MS))) if (transfer.ts === startMs) tick.out.push(transfer);
  for (const action of planTick(state, tick)) action.run();
  // Makers requote after the second's orders (resting orders the price ran through are filled by then).
  // Snapshots close the second: stamped with its last millisecond, they hold every change stamped before.
  const endMs = startMs + 999;
  for (const market of state.markets) {
    // An empty price level is removed from its side, so a side without levels has no quote.
    const emptySide = market.book.levels.B.size === 0 || market.book.levels.A.size === 0;
    if ((sec + market.index) % REQUOTE_EVERY_SEC === 0 || emptySide) requote(state, tick, market, endMs);
  }
  if ((endMs + 1) % state.l2IntervalMs === 0) bookRecords(state, tick, endMs);
  if (orderLevel && (endMs + 1) % state.l4CheckpointMs === 0) {
    for (const market of state.markets) tick.out.push(checkpointRecord(state, market, endMs));
  }
}

function instrumentRecord(spec: MarketSpec): InstrumentRecord {
  return {
    dataset: 'instruments',
    family: spec.family,
    symbol: spec.symbol,
    ts: spec.listedAt,
    market_type: spec.marketType,
    sz_decimals: spec.szDecimals,
    ...(spec.maxLeverage === undefined ? {} : { max_leverage: spec.maxLeverage }),
    ...(spec.quote === undefined ? {} : { quote: spec.quote }),
    ...(spec.dex === undefined ? {} : { dex: spec.dex }),
    ...(spec.spotPair === undefined ? {} : { spot_pair: spec.spotPair }),
    ...(spec.outcome === undefined ? {} : { outcome: spec.outcome }),
  };
}

/** A new core perp every six hours; it trades from its listing second on. */
function listNewMarket(state: SimState, tick: Tick): void {
  const { asset, market } = newListing(state.seed, tick.startMs);
  const assetState = createAsset(asset);
  state.assets.push(assetState);
  addMarket(state, market, assetState, tick.rng);
  tick.out.push(instrumentRecord(market));
  state.nextListingMs += LISTING_INTERVAL_MS;
}

/** Funding (perps of perpx, hip3, altx) and open interest (those and hip4 sides), once a minute. */
function minuteRecords(state: SimState, tick: Tick): void {
  const { rng, startMs: ts } = tick;
  for (const market of state.markets) {
    if (!market.openInterest) continue;
    const { family, symbol, szDecimals } = market.spec;
    if (market.funding) {
      if (rng.chance(REGIME_FLIP)) market.bias = -Math.sign(market.bias) * rng.uniform(0.0003, 0.0012);
      // The premium of the mid over the oracle, sampled each minute and averaged over the hour: each
      // minute's record is the rate predicted so far; the one on the hour is the rate that settles.
      market.premiumSum += Math.exp(market.basis) - 1;
      market.premiumSamples += 1;
      const premium = market.premiumSum / market.premiumSamples;
      if (ts % HOUR_MS === 0) market.premiumSum = market.premiumSamples = 0;
      const fundingRate = (premium + Math.max(-FUNDING_CLAMP, Math.min(FUNDING_CLAMP, FUNDING_INTEREST - premium))) / 8;
      tick.out.push({ dataset: 'funding', family, symbol, ts, funding_rate: formatFixed(fundingRate, 10), premium: formatFixed(premium, 8) });
    }
    market.oi = Math.max(1, Math.round(market.oi + (market.oiTarget - market.oi) * OI_REVERSION));
    const quote = quoteOf(market);
    tick.out.push({
      dataset: 'open_interest',
      family,
      symbol,
      ts,
      open_interest: formatUnits(market.oi, szDecimals),
      mark_price: formatFixed(midOf(market), quote.decimals),
      ...(market.funding ? { oracle_price: formatFixed(indexPriceOf(market), quote.decimals + 1) } : {}),
      mid_price: formatUnits(5 * (quote.bid + quote.ask), quote.decimals + 1),
    });
  }
}

/**
 * Every market's native snapshot: the top 20 levels a side of its book on the perpx families, every
 * level on altx and altx-rh, as those venues publish it (their tick history, the order-level book's
 * level deltas, then replays from one snapshot into the next).
 */
function bookRecords(state: SimState, tick: Tick, ts: number): void {
  for (const market of state.markets) {
    const levels = CAPPED_BOOK_FAMILIES.includes(market.spec.family) ? NATIVE_BOOK_LEVELS : Infinity;
    tick.out.push({
      dataset: 'l2_snapshots',
      family: market.spec.family,
      symbol: market.spec.symbol,
      ts,
      bids: topLevels(market, 'B', levels),
      asks: topLevels(market, 'A', levels),
    });
  }
}
