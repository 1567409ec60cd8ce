/**
 * What the demo market lists: the underlying assets (one price process each, shared by every market on
 * it, so BTC on perpx, altx and the UBTC spot pair move together) and the markets of every family, with
 * listing times relative to the simulation start. Prices are plausible levels, not quotes.
 */
import type { Family } from '#core/venues.ts';
import type { OutcomeSideDetails, SpotPairDetails } from '#schemas/datasets.ts';
import { Rng, STREAM, hash32 } from './random.ts';

/** Correlation groups: assets of one group share a per-tick factor (crypto with crypto, stocks with stocks). */
export type AssetClass = 'crypto' | 'equity' | 'commodity' | 'stable' | 'outcome';
export type MarketType = 'perp' | 'spot' | 'outcome';

export interface AssetSpec {
  key: string;
  assetClass: AssetClass;
  /** Starting price; for an outcome the probability of Yes. */
  price: number;
  /** Annualized volatility of log returns (of log-odds for an outcome). */
  annualVol: number;
}

export interface MarketSpec {
  family: Family;
  symbol: string;
  asset: string;
  marketType: MarketType;
  /** hip4 side: 0 = Yes (priced p), 1 = No (priced 1 - p). */
  outcomeSide?: 0 | 1;
  szDecimals: number;
  maxLeverage?: number;
  dex?: string;
  quote?: string;
  /** Spot pairs: the token registry entry. */
  spotPair?: SpotPairDetails;
  /** hip4 sides: the outcome they belong to and how it reads. */
  outcome?: OutcomeSideDetails;
  /** Relative share of the trade flow. */
  activity: number;
  listedAt: number;
}

const HOUR_MS = 3_600_000;
/** A new core perp every hour, so a local run of an hour sees `market.listed`. */
export const LISTING_INTERVAL_MS = HOUR_MS;

/** Core perps: coin, price, max leverage, activity. */
const CORE_PERPS: readonly (readonly [string, number, number, number])[] = [
  ['BTC', 97_000, 40, 30],
  ['ETH', 3_400, 25, 18],
  ['SOL', 195, 20, 9],
  ['HYPE', 25, 10, 9],
  ['XRP', 2.45, 20, 4],
  ['DOGE', 0.32, 20, 3.5],
  ['BNB', 690, 10, 1.5],
  ['ADA', 0.95, 10, 1.2],
  ['AVAX', 35, 10, 1.2],
  ['LINK', 21, 10, 1.2],
  ['SUI', 4.2, 10, 2.5],
  ['TRX', 0.25, 10, 0.5],
  ['TON', 5.1, 10, 0.6],
  ['DOT', 6.8, 10, 0.6],
  ['LTC', 105, 10, 0.8],
  ['BCH', 420, 10, 0.6],
  ['NEAR', 5, 10, 0.7],
  ['APT', 8.9, 10, 0.6],
  ['ARB', 0.78, 10, 0.7],
  ['OP', 1.9, 10, 0.6],
  ['UNI', 13.5, 10, 0.7],
  ['AAVE', 330, 10, 1],
  ['ATOM', 6.5, 10, 0.4],
  ['FIL', 5.2, 10, 0.4],
  ['ETC', 27, 10, 0.4],
  ['INJ', 22, 10, 0.5],
  ['TIA', 4.8, 10, 0.5],
  ['SEI', 0.42, 10, 0.5],
  ['WIF', 1.3, 10, 1.5],
  ['kPEPE', 0.0175, 10, 2],
  ['kBONK', 0.032, 10, 0.8],
  ['kSHIB', 0.021, 10, 0.5],
  ['ENA', 0.85, 10, 1.2],
  ['ONDO', 1.35, 10, 0.7],
  ['JUP', 0.95, 10, 0.5],
  ['PYTH', 0.36, 10, 0.3],
  ['LDO', 1.8, 10, 0.4],
  ['CRV', 0.85, 10, 0.5],
  ['MKR', 1_500, 10, 0.3],
  ['SNX', 1.9, 10, 0.2],
  ['PENDLE', 4.9, 10, 0.4],
  ['RUNE', 3.1, 10, 0.3],
  ['STX', 1.4, 10, 0.2],
  ['IMX', 1.1, 10, 0.2],
  ['RENDER', 6.9, 10, 0.4],
  ['FET', 1.25, 10, 0.5],
  ['TAO', 450, 10, 0.6],
  ['WLD', 2.1, 10, 0.5],
  ['ORDI', 22, 10, 0.3],
  ['POL', 0.45, 10, 0.2],
  ['ALGO', 0.38, 10, 0.2],
  ['HBAR', 0.31, 10, 0.4],
  ['XLM', 0.43, 10, 0.3],
  ['ICP', 9.8, 10, 0.2],
  ['BERA', 7.5, 5, 0.6],
  ['TRUMP', 18, 10, 1.5],
  ['FARTCOIN', 0.95, 5, 1.8],
  ['PENGU', 0.012, 5, 0.9],
  ['VIRTUAL', 2.4, 5, 0.9],
  ['AI16Z', 0.85, 5, 0.6],
  ['POPCAT', 0.55, 5, 0.5],
  ['MOODENG', 0.18, 5, 0.4],
  ['EIGEN', 3.4, 5, 0.3],
  ['ZRO', 5.6, 5, 0.2],
  ['STRK', 0.42, 5, 0.2],
  ['GMX', 28, 5, 0.2],
  ['DYDX', 1.4, 5, 0.2],
  ['ZK', 0.17, 5, 0.2],
  ['ETHFI', 2, 5, 0.2],
  ['JTO', 3.2, 5, 0.2],
  ['BRETT', 0.11, 5, 0.3],
  ['GOAT', 0.45, 5, 0.3],
  ['KAITO', 1.6, 5, 0.4],
  ['IP', 5.5, 5, 0.3],
  ['PURR', 0.19, 3, 0.4],
];

/** Volatility of the majors; other coins trade around 90% a year, memes more. */
const CRYPTO_VOL: Readonly<Record<string, number>> = {
  BTC: 0.5,
  ETH: 0.65,
  SOL: 0.8,
  BNB: 0.55,
  XRP: 0.8,
  kPEPE: 1.3,
  WIF: 1.4,
  FARTCOIN: 1.5,
  TRUMP: 1.3,
  PENGU: 1.3,
  POPCAT: 1.4,
  MOODENG: 1.5,
};

/** Builder-deployed perps: dex, coin, underlying asset (shared across dexes), max leverage, activity. */
const HIP3_PERPS: readonly (readonly [string, string, string, number, number])[] = [
  ['xyz', 'TSLA', 'TSLA', 10, 4],
  ['xyz', 'NVDA', 'NVDA', 10, 3.6],
  ['xyz', 'AAPL', 'AAPL', 10, 1.6],
  ['xyz', 'MSFT', 'MSFT', 10, 1],
  ['xyz', 'AMZN', 'AMZN', 10, 1],
  ['xyz', 'GOOGL', 'GOOGL', 10, 1],
  ['xyz', 'META', 'META', 10, 1],
  ['xyz', 'COIN', 'COIN', 10, 1.4],
  ['xyz', 'MSTR', 'MSTR', 10, 1.2],
  ['xyz', 'XYZ100', 'NDX', 20, 2.4],
  ['xyz', 'GOLD', 'GOLD', 20, 1.8],
  ['xyz', 'SILVER', 'SILVER', 20, 0.8],
  ['km', 'US500', 'SPX', 20, 2],
  ['km', 'USTECH', 'NDX', 20, 1],
  ['km', 'SMALL2000', 'RUT', 20, 0.4],
  ['km', 'GOLD', 'GOLD', 20, 0.6],
  ['flx', 'TSLA', 'TSLA', 10, 0.8],
  ['flx', 'CRCL', 'CRCL', 5, 0.6],
  ['flx', 'OIL', 'OIL', 10, 0.6],
];

/** Non-crypto underlyings: price, annual volatility, class. */
const TRADFI: Readonly<Record<string, readonly [number, number, AssetClass]>> = {
  TSLA: [340, 0.55, 'equity'],
  NVDA: [135, 0.5, 'equity'],
  AAPL: [230, 0.25, 'equity'],
  MSFT: [415, 0.25, 'equity'],
  AMZN: [225, 0.3, 'equity'],
  GOOGL: [195, 0.3, 'equity'],
  META: [610, 0.35, 'equity'],
  COIN: [270, 0.7, 'equity'],
  MSTR: [330, 0.8, 'equity'],
  CRCL: [120, 0.9, 'equity'],
  NDX: [21_500, 0.2, 'equity'],
  SPX: [6_050, 0.16, 'equity'],
  RUT: [2_250, 0.22, 'equity'],
  GOLD: [2_900, 0.15, 'commodity'],
  SILVER: [32, 0.28, 'commodity'],
  OIL: [72, 0.35, 'commodity'],
};

/** Spot pairs: symbol, underlying asset, activity. UBTC, UETH and USOL are wrapped tokens tracking the majors. */
const SPOT_PAIRS: readonly (readonly [string, string, number])[] = [
  ['HYPE-USDC', 'HYPE', 4.5],
  ['PURR-USDC', 'PURR', 1.2],
  ['UBTC-USDC', 'BTC', 1.5],
  ['UETH-USDC', 'ETH', 0.9],
  ['USOL-USDC', 'SOL', 0.45],
  ['HFUN-USDC', 'HFUN', 0.3],
  ['USDT0-USDC', 'USDT0', 0.75],
];

/** Spot-only tokens. */
const SPOT_ONLY: readonly AssetSpec[] = [
  { key: 'HFUN', assetClass: 'crypto', price: 18, annualVol: 1.2 },
  { key: 'USDT0', assetClass: 'stable', price: 1.0002, annualVol: 0.004 },
];

/** Outcome markets: probability of Yes, log-odds volatility, activity per side. */
const OUTCOMES: readonly (readonly [number, number, number])[] = [
  [0.62, 4, 1],
  [0.35, 5, 0.8],
  [0.18, 6, 0.5],
  [0.81, 4, 0.4],
];

const ALTX_PERPS: readonly (readonly [string, number])[] = [
  ['BTC', 6],
  ['ETH', 4.5],
  ['SOL', 2.25],
  ['HYPE', 1.8],
  ['XRP', 0.9],
  ['DOGE', 0.75],
  ['LINK', 0.45],
  ['SUI', 0.45],
  ['ENA', 0.45],
  ['PENGU', 0.3],
];

/** Second deployment: perps and tokenized stocks quoted in USDG. */
const ALTX_RH: readonly (readonly [string, string, MarketType, number])[] = [
  ['BTC', 'BTC', 'perp', 1.2],
  ['ETH', 'ETH', 'perp', 0.6],
  ['AAPL-USDG', 'AAPL', 'spot', 0.5],
  ['TSLA-USDG', 'TSLA', 'spot', 0.5],
  ['NVDA-USDG', 'NVDA', 'spot', 0.4],
];

/**
 * Tickers of markets listed during a run are three consonant-vowel syllables (`ZAKOMI`), a form no
 * catalogued or generated ticker takes, picked by the listing's six-hour slot through a permutation of
 * all 16^3 * 5^3 names: a slot always lists the same market, and no two slots within 512 000 (350
 * years) share a ticker, so a simulation restarted later never lists an earlier name again.
 */
const CONSONANTS = 'BDFGHJKLMNPRSTVZ';
const VOWELS = 'AEIOU';
const LISTING_NAMES = 512_000;
const NAME_BITS_MASK = (1 << 19) - 1;

/** A pseudo-random permutation of [0, LISTING_NAMES): odd multiplies and xorshifts permute 19-bit words; cycle-walking stays in range. */
function listingName(index: number): number {
  let x = index;
  do {
    for (let round = 0; round < 3; round++) {
      x = Math.imul(x, 0x2c1b3c6d) & NAME_BITS_MASK;
      x ^= x >>> 9;
    }
  } while (x >= LISTING_NAMES);
  return x;
}

/** Size decimals so that one unit is worth roughly 0.1 to 1 USD at the starting price. */
function sizeDecimals(price: number): number {
  return Math.max(0, Math.min(5, Math.floor(Math.log10(price)) + 1));
}

export interface Catalog {
  assets: AssetSpec[];
  markets: MarketSpec[];
}

/** Markets listed before `startMs`. `extraCoreMarkets` adds generated core perps after the catalogued ones. */
export function initialCatalog(seed: number, startMs: number, extraCoreMarkets: number): Catalog {
  const rng = new Rng(hash32(seed, STREAM.listing));
  const startHour = Math.floor(startMs / HOUR_MS) * HOUR_MS;
  // Listed a whole number of hours before the start: majors long ago, builder and outcome markets recently.
  const listedDaysAgo = (minDays: number, maxDays: number) => startHour - Math.round(rng.uniform(minDays, maxDays) * 24) * HOUR_MS;
  const assets: AssetSpec[] = [];
  const markets: MarketSpec[] = [];

  CORE_PERPS.forEach(([coin, price, maxLeverage, activity], index) => {
    assets.push({ key: coin, assetClass: 'crypto', price, annualVol: CRYPTO_VOL[coin] ?? rng.uniform(0.8, 1.1) });
    const listedAt = index < 4 ? listedDaysAgo(600, 900) : listedDaysAgo(30 + index * 4, 60 + index * 8);
    markets.push({ family: 'perpx', symbol: coin, asset: coin, marketType: 'perp', szDecimals: sizeDecimals(price), maxLeverage, activity, listedAt });
  });
  const taken = new Set([...CORE_PERPS.map(([coin]) => coin), ...Object.keys(TRADFI), ...SPOT_ONLY.map((a) => a.key)]);
  for (let i = 0; i < extraCoreMarkets; i++) {
    const coin = generatedTicker(rng, taken);
    const price = Math.exp(rng.uniform(Math.log(0.002), Math.log(60)));
    assets.push({ key: coin, assetClass: 'crypto', price, annualVol: rng.uniform(0.9, 1.4) });
    markets.push({
      family: 'perpx',
      symbol: coin,
      asset: coin,
      marketType: 'perp',
      szDecimals: sizeDecimals(price),
      maxLeverage: 5,
      activity: 0.2,
      listedAt: listedDaysAgo(20, 400),
    });
  }
  assets.push(...SPOT_ONLY);
  const priceOf = (key: string) => assets.find((a) => a.key === key)?.price ?? 1;
  SPOT_PAIRS.forEach(([symbol, asset, activity], index) => {
    const base = symbol.split('-')[0]!;
    // PURR/USDC is the venue's one canonical pair; every other pair is named by its index.
    const spotPair = {
      pair_index: index,
      name: base === 'PURR' ? 'PURR/USDC' : `@${index}`,
      is_canonical: base === 'PURR',
      base_token: base,
      base_token_id: index + 1,
      base_wei_decimals: 8,
      quote_token_id: 0,
      quote_sz_decimals: 8,
      quote_wei_decimals: 8,
    };
    markets.push({
      family: 'spot',
      symbol,
      asset,
      marketType: 'spot',
      szDecimals: sizeDecimals(priceOf(asset)),
      quote: 'USDC',
      spotPair,
      activity,
      listedAt: listedDaysAgo(100, 600),
    });
  });
  for (const [key, [price, annualVol, assetClass]] of Object.entries(TRADFI)) assets.push({ key, assetClass, price, annualVol });
  for (const [dex, coin, asset, maxLeverage, activity] of HIP3_PERPS) {
    markets.push({
      family: 'hip3',
      symbol: `${dex}:${coin}`,
      asset,
      marketType: 'perp',
      szDecimals: sizeDecimals(priceOf(asset)),
      maxLeverage,
      dex,
      activity,
      listedAt: listedDaysAgo(10, 90),
    });
  }
  OUTCOMES.forEach(([probability, annualVol, activity], outcome) => {
    const asset = `outcome-${outcome}`;
    assets.push({ key: asset, assetClass: 'outcome', price: probability, annualVol });
    const listedAt = listedDaysAgo(1, 20);
    for (const side of [0, 1] as const) {
      markets.push({
        family: 'hip4',
        symbol: `#${10 * outcome + side}`,
        asset,
        marketType: 'outcome',
        outcomeSide: side,
        szDecimals: 0,
        activity,
        listedAt,
        outcome: outcomeSide(outcome, side, listedAt, priceOf),
      });
    }
  });
  for (const [coin, activity] of ALTX_PERPS) {
    markets.push({
      family: 'altx',
      symbol: coin,
      asset: coin,
      marketType: 'perp',
      szDecimals: sizeDecimals(priceOf(coin)),
      maxLeverage: 20,
      activity,
      listedAt: listedDaysAgo(60, 200),
    });
  }
  for (const [symbol, asset, marketType, activity] of ALTX_RH) {
    markets.push({
      family: 'altx-rh',
      symbol,
      asset,
      marketType,
      szDecimals: sizeDecimals(priceOf(asset)),
      activity,
      listedAt: listedDaysAgo(10, 60),
      ...(marketType === 'perp' ? { maxLeverage: 10 } : { quote: 'USDG' }),
    });
  }
  return { assets, markets };
}

/**
 * The demo's one question: the venue groups its recurring daily binaries under a generic
 * `Recurring` ballot. Outcomes 0 and 1 are its named choices, 2 its fallback; 3 stands alone.
 */
const DEMO_QUESTION = { question_id: 0, name: 'Recurring', description: 'class:priceBinary|period:1d', fallback_outcome_id: 2 };
const QUESTION_OUTCOMES: readonly number[] = [0, 1, 2];

/** What the venue publishes about an outcome side: a daily price binary on a major, expiring a week after listing. */
function outcomeSide(outcome: number, side: 0 | 1, listedAt: number, priceOf: (key: string) => number): OutcomeSideDetails {
  const underlying = ['BTC', 'ETH', 'SOL', 'HYPE'][outcome % 4]!;
  const target = Math.round(priceOf(underlying) * (1 + 0.02 * (outcome - 1)));
  const expiry = new Date(Math.floor(listedAt / 86_400_000) * 86_400_000 + 7 * 86_400_000 + 8 * 3_600_000);
  const day = expiry.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
  const stamp = expiry.toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
  const slug = `${underlying}-above-${target}-${day.replace(' ', '-')}-0800`.toLowerCase();
  const title = `${underlying} above ${target.toLocaleString('en-US')} on ${day} at 08:00 UTC?`;
  return {
    outcome_id: outcome,
    side,
    asset_id: 100_000_000 + 10 * outcome + side,
    name: `${underlying} above ${target}`,
    side_name: side === 0 ? 'Yes' : 'No',
    description: `class:priceBinary|underlying:${underlying}|expiry:${stamp}|targetPrice:${target}|period:1d`,
    display_title: title,
    slug,
    ...(QUESTION_OUTCOMES.includes(outcome) && { question: DEMO_QUESTION }),
  };
}

function generatedTicker(rng: Rng, taken: Set<string>): string {
  const letters = 'ABCDEFGHIJKLMNOPRSTUVWXYZ';
  for (;;) {
    let ticker = '';
    const length = 3 + rng.int(3);
    while (ticker.length < length) ticker += letters[rng.int(letters.length)];
    if (!taken.has(ticker)) {
      taken.add(ticker);
      return ticker;
    }
  }
}

/** The first listing time strictly after `startMs`: listings fall on the hour. */
export function firstListingAfter(startMs: number): number {
  return (Math.floor(startMs / LISTING_INTERVAL_MS) + 1) * LISTING_INTERVAL_MS;
}

/** The core perp listed at `listedAt` (a listing boundary). */
export function newListing(seed: number, listedAt: number): { asset: AssetSpec; market: MarketSpec } {
  const slot = listedAt / LISTING_INTERVAL_MS;
  const rng = new Rng(hash32(seed, STREAM.listing, slot));
  let name = listingName((slot + hash32(seed, STREAM.listing)) % LISTING_NAMES);
  let coin = '';
  for (let syllable = 0; syllable < 3; syllable++, name = Math.floor(name / 80)) {
    coin += CONSONANTS[name % 16]! + VOWELS[Math.floor(name / 16) % 5]!;
  }
  const price = Math.exp(rng.uniform(Math.log(0.02), Math.log(4)));
  return {
    asset: { key: coin, assetClass: 'crypto', price, annualVol: rng.uniform(1.4, 2) },
    market: { family: 'perpx', symbol: coin, asset: coin, marketType: 'perp', szDecimals: sizeDecimals(price), maxLeverage: 3, activity: 1.5, listedAt },
  };
}
