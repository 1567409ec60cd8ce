/**
 * Who trades. Every trade is between one *trader* (the demo wallets and a pool of retail and fund
 * wallets, whose positions are simulated and whose side of the fill is the recorded one) and one
 * *counterparty* (market makers, sweeping bots, the liquidation vault), whose positions are not tracked.
 * Keeping one tracked side per trade is what lets `start_position` chain exactly from fill to fill.
 * The altx venues' own accounts (settlement, insurance, system) are traders too, so their positions
 * chain the same way.
 */
import type { AccountRecord } from '#schemas/datasets.ts';
import type { Family } from '#core/venues.ts';
import { Rng, STREAM, hash32 } from './random.ts';

export interface DemoWallet {
  address: string;
  label: string;
}

export interface Builder {
  address: string;
  feeRate: number;
}

export interface Trader {
  /** None ('') for the venue's system accounts: they have no L1 address, only their account number. */
  address: string;
  /** Median order notional, USD. */
  notional: number;
  /** Leverage used on new perp positions (capped by the market's maximum). */
  leverage: number;
  /** Relative chance of being the trader behind a random order. */
  activity: number;
  /** Multiplier on the venue's base taker fee (volume tiers). */
  feeTier: number;
  /** Maker fills earn a rebate rather than pay a fee. */
  rebate: boolean;
  /** Front end the trader routes through; its fills carry the builder fee. */
  builder?: Builder;
  /** Sends client order ids. */
  cloids: boolean;
  /** Holds outcome shares to settlement, selling only what grows far beyond its usual size. */
  holdsToSettlement?: boolean;
  /** Demo wallets only: the markets (`family/symbol`) the wallet trades. */
  favorites?: readonly string[];
  /** The venue's own account this trader is (altx, altx-rh only); its fills carry the account's fixed number. */
  system?: SystemAccount;
}

/** An account the altx venues keep for themselves, under the same number on both. */
export interface SystemAccount {
  accountIndex: string;
  accountType: number;
  kind: Exclude<AccountRecord['account_kind'], 'user'>;
}

/**
 * The top of the venues' 48-bit account numbers (2^48 - 1 down), far above the numbers wallets get
 * (`accountIndexOf`, below 10^7), so the two never collide.
 */
export const SYSTEM_ACCOUNTS: readonly SystemAccount[] = [
  { accountIndex: '281474976710655', accountType: 1, kind: 'settlement' },
  { accountIndex: '281474976710654', accountType: 2, kind: 'insurance' },
  { accountIndex: '281474976710653', accountType: 3, kind: 'system' },
];

export interface Wallets {
  demo: DemoWallet[];
  /** Demo wallets first (same order as `demo`), then the pool, then the system accounts (same order as `SYSTEM_ACCOUNTS`). */
  traders: Trader[];
  /** Where the pool ends in `traders` and the system accounts begin. */
  poolEnd: number;
  makers: string[];
  sweepers: string[];
  liquidator: string;
  builders: Builder[];
}

interface DemoProfile extends Omit<Trader, 'address' | 'activity' | 'builder'> {
  label: string;
  builder: boolean;
}

const DEMO_PROFILES: readonly DemoProfile[] = [
  {
    label: 'Whale',
    notional: 150_000,
    leverage: 5,
    feeTier: 0.6,
    rebate: true,
    builder: false,
    cloids: false,
    favorites: ['perpx/BTC', 'perpx/ETH', 'perpx/SOL'],
  },
  {
    label: 'Scalper',
    notional: 4_000,
    leverage: 20,
    feeTier: 0.8,
    rebate: false,
    builder: false,
    cloids: true,
    favorites: ['perpx/BTC', 'perpx/ETH', 'perpx/HYPE'],
  },
  {
    label: 'Degen',
    notional: 2_500,
    leverage: 50,
    feeTier: 1,
    rebate: false,
    builder: true,
    cloids: false,
    favorites: ['perpx/kPEPE', 'perpx/WIF', 'perpx/FARTCOIN', 'perpx/TRUMP', 'perpx/HYPE'],
  },
  {
    label: 'Equities trader',
    notional: 8_000,
    leverage: 10,
    feeTier: 1,
    rebate: false,
    builder: true,
    cloids: false,
    favorites: ['hip3/xyz:TSLA', 'hip3/xyz:NVDA', 'hip3/km:US500', 'hip3/flx:TSLA', 'altx-rh/AAPL-USDG'],
  },
  {
    label: 'Spot stacker',
    notional: 1_500,
    leverage: 1,
    feeTier: 1,
    rebate: false,
    builder: true,
    cloids: false,
    favorites: ['spot/HYPE-USDC', 'spot/PURR-USDC', 'spot/UBTC-USDC'],
  },
  // One side of each outcome, so that each half-hour settlement pays the Forecaster out.
  {
    label: 'Forecaster',
    notional: 600,
    leverage: 1,
    feeTier: 1,
    rebate: false,
    builder: false,
    cloids: false,
    holdsToSettlement: true,
    favorites: ['hip4/#0', 'hip4/#11', 'hip4/#20', 'hip4/#31', 'hip4/#1'],
  },
  {
    label: 'Cross-venue arbitrageur',
    notional: 20_000,
    leverage: 10,
    feeTier: 0.7,
    rebate: true,
    builder: false,
    cloids: true,
    favorites: ['perpx/BTC', 'altx/BTC', 'altx/ETH', 'altx-rh/BTC'],
  },
];

const POOL_SIZE = 400;
const LEVERAGES = [1, 2, 2, 3, 3, 5, 5, 5, 5, 10, 10, 10, 10, 15, 20, 20, 25, 40, 50];

const address = (rng: Rng) => `0x${rng.hex(40)}`;

/** The wallets of a seed; the same seed always yields the same addresses. */
export function createWallets(seed: number): Wallets {
  const rng = new Rng(hash32(seed, STREAM.wallets));
  const builders = [0.0001, 0.0003, 0.0005].map((feeRate) => ({ address: address(rng), feeRate }));
  const makers = Array.from({ length: 6 }, () => address(rng));
  const sweepers = Array.from({ length: 3 }, () => address(rng));
  const liquidator = address(rng);
  const traders: Trader[] = DEMO_PROFILES.map(({ label: _label, builder, ...profile }, index) => ({
    ...profile,
    address: address(rng),
    activity: 0,
    ...(builder ? { builder: builders[index % builders.length] as Builder } : {}),
  }));
  const demo = DEMO_PROFILES.map(({ label }, index) => ({ address: (traders[index] as Trader).address, label }));
  for (let i = 0; i < POOL_SIZE; i++) {
    const size = Math.min(rng.pareto(1, 1.2), 400);
    traders.push({
      address: address(rng),
      // Sized so that a cascade of the larger books reaches the 1M USD burst threshold now and then.
      notional: 4_000 * size,
      leverage: rng.pick(LEVERAGES),
      // A few wallets do most of the trading.
      activity: Math.min(rng.pareto(1, 1.1), 150),
      feeTier: size > 30 ? 0.7 : size > 8 ? 0.85 : 1,
      rebate: size > 30,
      ...(rng.chance(0.25) ? { builder: rng.pick(builders) } : {}),
      cloids: rng.chance(0.15),
    });
  }
  const poolEnd = traders.length;
  // Appended without a draw, so every wallet's address is what it was before the venues had them.
  for (const system of SYSTEM_ACCOUNTS) traders.push(systemTrader(system));
  return { demo, traders, poolEnd, makers, sweepers, liquidator, builders };
}

/**
 * The venue trades its own accounts in small sizes (the insurance fund somewhat larger: it also takes
 * over part of liquidated positions), fully collateralized and free of fees; see `accounts.ts`.
 */
function systemTrader(system: SystemAccount): Trader {
  return { address: '', notional: system.kind === 'insurance' ? 5_000 : 1_500, leverage: 1, activity: 0, feeTier: 0, rebate: false, cloids: false, system };
}

/** Venues whose accounts are numbered: a wallet's fills and orders there carry its account number. */
export const ACCOUNT_FAMILIES = ['altx', 'altx-rh'] as const satisfies readonly Family[];
export type AccountFamily = (typeof ACCOUNT_FAMILIES)[number];
/** The same venues, for a membership test. */
export const ACCOUNT_NUMBERED: ReadonlySet<Family> = new Set(ACCOUNT_FAMILIES);
/** A wallet's stable account number on those venues, from its address. */
export const accountIndexOf = (address: string) => String(Number.parseInt(address.slice(2, 12), 16) % 10_000_000);
