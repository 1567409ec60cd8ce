/**
 * The accounts of altx and altx-rh, venues that number their accounts. Each publishes a registry of
 * them (which L1 address owns an account, and what kind it is); the demo emits it once, at its start:
 * every wallet as a user account on each venue, and the venues' own settlement, insurance and system
 * accounts (`SYSTEM_ACCOUNTS`).
 *
 * The venues' own accounts trade too, through the same fills as every trader, so their positions chain
 * from fill to fill like anyone's, but rarely and only on these two venues:
 *
 *   - each of them places one order at a seeded second of every hour on each venue: it closes or trims
 *     a position it holds there, or else opens a small one in a market drawn by activity;
 *   - the insurance fund also follows a third of the altx liquidations, 1 to 10 seconds later, taking
 *     the other side of part of the liquidated size (never so much that its own position flips).
 *
 * That is 3 orders an hour a venue, plus on altx the insurance fund's one or two after liquidations
 * (about four an hour at intensity 1), each of a fill or two: a few fills an hour a venue.
 */
import type { AccountRecord } from '#schemas/datasets.ts';
import { type TakerOrder, executeTaker } from './exchange.ts';
import { type Rng, STREAM, hash32 } from './random.ts';
import { type Action, type MarketState, type PendingSystemOrder, type Side, type SimState, type Tick, midOf, positionKey } from './state.ts';
import { ACCOUNT_FAMILIES, ACCOUNT_NUMBERED, type AccountFamily, SYSTEM_ACCOUNTS, type SystemAccount, type Wallets, accountIndexOf } from './wallets.ts';

const HOUR_SEC = 3_600;
/** Share of altx liquidations the insurance fund follows, and the part of the liquidated size it then takes. */
const INSURANCE_FOLLOWS = 1 / 3;
const INSURANCE_SHARE = { min: 0.2, max: 0.5 } as const;
/** However large the liquidation, the fund takes at most this many book levels' worth: a fill or two. */
const INSURANCE_MAX_LEVELS = 1.5;
/** The fund's order follows the liquidation after 1 to this many seconds. */
const INSURANCE_DELAY_SEC = 10;
/** Chance that an hourly order closes the whole position rather than trimming it. */
const CLOSE_ALL = 0.6;
const INSURANCE = SYSTEM_ACCOUNTS.find((account) => account.kind === 'insurance')!;

/** The registry of both venues: every wallet that can trade there as a user account, then the venues' own accounts. */
export function accountRecords(wallets: Wallets, ts: number): AccountRecord[] {
  const { traders, makers, sweepers, liquidator } = wallets;
  const addresses = [...traders.filter((trader) => !trader.system).map((trader) => trader.address), ...makers, ...sweepers, liquidator];
  return ACCOUNT_FAMILIES.flatMap((family) => [
    ...addresses.map(
      (address): AccountRecord => ({
        dataset: 'accounts',
        family,
        symbol: 'ACCOUNTS',
        ts,
        account_index: accountIndexOf(address),
        l1_address: address,
        account_type: 0,
        account_kind: 'user',
      }),
    ),
    ...SYSTEM_ACCOUNTS.map(
      (account): AccountRecord => ({
        dataset: 'accounts',
        family,
        symbol: 'ACCOUNTS',
        ts,
        account_index: account.accountIndex,
        l1_address: null,
        account_type: account.accountType,
        account_kind: account.kind,
      }),
    ),
  ]);
}

/** The system accounts' orders of this second: their hourly ones on each venue, and the insurance fund's follow-ups now due. */
export function planSystem(state: SimState, tick: Tick, actions: Action[]): void {
  const { sec, rng } = tick;
  const hour = Math.floor(sec / HOUR_SEC);
  ACCOUNT_FAMILIES.forEach((family, f) => {
    SYSTEM_ACCOUNTS.forEach((account, a) => {
      if (hash32(state.seed, STREAM.systemSchedule, f, a, hour) % HOUR_SEC !== sec % HOUR_SEC) return;
      const ms = rng.int(1000);
      actions.push({ ms, run: () => hourlyOrder(state, tick, traderOf(state, account), family, ms) });
    });
  });
  if (state.pendingSystemOrders.length === 0) return;
  const due = state.pendingSystemOrders.filter((order) => order.dueSec <= sec);
  state.pendingSystemOrders = state.pendingSystemOrders.filter((order) => order.dueSec > sec);
  for (const order of due) {
    const ms = rng.int(1000);
    actions.push({ ms, run: () => followUp(state, tick, order, ms) });
  }
}

/**
 * After a liquidation on altx (the only liquidating venue with numbered accounts), the insurance fund
 * may queue an order taking the other side of part of it.
 */
export function followLiquidation(state: SimState, tick: Tick, liquidation: TakerOrder): void {
  const { market } = liquidation;
  const { rng } = tick;
  if (!ACCOUNT_NUMBERED.has(market.spec.family) || !rng.chance(INSURANCE_FOLLOWS)) return;
  const cap = Math.max(1, Math.floor((INSURANCE_MAX_LEVELS * market.depthNotional) / (midOf(market) * market.unitSize)));
  const units = Math.min(cap, Math.max(1, Math.round(liquidation.units * rng.uniform(INSURANCE_SHARE.min, INSURANCE_SHARE.max))));
  state.pendingSystemOrders.push({
    dueSec: tick.sec + 1 + rng.int(INSURANCE_DELAY_SEC),
    trader: traderOf(state, INSURANCE),
    market,
    side: liquidation.side === 'B' ? 'A' : 'B',
    units,
  });
}

function traderOf(state: SimState, account: SystemAccount): number {
  return state.wallets.poolEnd + SYSTEM_ACCOUNTS.indexOf(account);
}

/** Closes or trims a position the account holds on the venue, or else opens a small one. */
function hourlyOrder(state: SimState, tick: Tick, trader: number, family: AccountFamily, ms: number): void {
  const { rng } = tick;
  const markets = state.markets.filter((market) => market.spec.family === family);
  const held = markets.filter((market) => state.positions.has(positionKey(trader, market)));
  if (held.length > 0) {
    const market = rng.pick(held);
    const units = state.positions.get(positionKey(trader, market))!.units;
    const size = rng.chance(CLOSE_ALL) ? Math.abs(units) : Math.max(1, Math.round(Math.abs(units) * rng.uniform(0.3, 0.8)));
    executeTaker(state, tick, { market, trader, side: units > 0 ? 'A' : 'B', units: size, ms, orderType: 'Market', tif: 'Ioc', reduceOnly: true });
    return;
  }
  const market = byActivity(rng, markets);
  if (!market) return;
  const notional = rng.logNormal(state.wallets.traders[trader]!.notional, 0.5);
  const side: Side = market.longOnly || rng.chance(0.5) ? 'B' : 'A';
  executeTaker(state, tick, {
    market,
    trader,
    side,
    units: Math.max(1, Math.round(notional / (midOf(market) * market.unitSize))),
    ms,
    orderType: 'Market',
    tif: 'Ioc',
  });
}

function byActivity(rng: Rng, markets: readonly MarketState[]): MarketState | undefined {
  const cumulative = new Float64Array(markets.length);
  markets.reduce((sum, market, i) => (cumulative[i] = sum + market.spec.activity), 0);
  return markets[rng.weighted(cumulative)];
}

/** The insurance fund's order after a liquidation; against its own position it only closes. */
function followUp(state: SimState, tick: Tick, order: PendingSystemOrder, ms: number): void {
  const { trader, market, side } = order;
  const holding = state.positions.get(positionKey(trader, market));
  const against = holding !== undefined && holding.units > 0 !== (side === 'B');
  const units = against ? Math.min(order.units, Math.abs(holding.units)) : order.units;
  executeTaker(state, tick, { market, trader, side, units, ms, orderType: 'Market', tif: 'Ioc', reduceOnly: against });
}
