import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { AccountRecord, NormalizedRecord, type TradeRecord } from '../../../schemas/datasets.ts';
import { groupBy } from '../../../functions/core/detect/group.ts';
import { createDemoMarket } from '../../../functions/local/demo/market.ts';
import { SYSTEM_ACCOUNTS, accountIndexOf, createWallets } from '../../../functions/local/demo/wallets.ts';

/** Simulating hours of market is CPU work that a loaded machine does slower, not a condition to wait for: no tight budget. */
const SIMULATION_BUDGET_MS = 600_000;

type Dataset = NormalizedRecord['dataset'];
type RecordOf<D extends Dataset> = Extract<NormalizedRecord, { dataset: D }>;

const START = Date.UTC(2026, 2, 10);
const SECOND = 1_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const HOURS = 6;
const SEED = 42;
const ACCOUNT_FAMILIES = ['altx', 'altx-rh'] as const;
const SYSTEM_INDEXES = new Set(SYSTEM_ACCOUNTS.map((account) => account.accountIndex));

const only = <D extends Dataset>(records: readonly NormalizedRecord[], dataset: D) =>
  records.filter((r): r is RecordOf<D> => r.dataset === dataset);
const marketKey = (r: { family: string; symbol: string }) => `${r.family}/${r.symbol}`;
const isSystemFill = (t: TradeRecord) => t.account_index != null && SYSTEM_INDEXES.has(t.account_index);

// Six quiet hours: the system accounts' hourly orders and a few altx liquidations the insurance fund follows.
let run: NormalizedRecord[];
let trades: TradeRecord[];
let systemFills: TradeRecord[];

beforeAll(() => {
  run = createDemoMarket({ seed: SEED, startMs: START, intensity: 0.25 }).advance(START + HOURS * HOUR);
  trades = only(run, 'trades');
  systemFills = trades.filter(isSystemFill);
}, SIMULATION_BUDGET_MS);

describe('the demo account registry of altx and altx-rh', () => {
  it('registers every wallet once per venue as a user account, and the three system accounts, at the start', () => {
    // Prepare
    const wallets = createWallets(SEED);
    const addresses = [...wallets.traders.filter((t) => !t.system).map((t) => t.address), ...wallets.makers, ...wallets.sweepers, wallets.liquidator];
    const market = createDemoMarket({ seed: SEED, startMs: START });
    // Act
    const first = market.advance(START + SECOND);
    const later = market.advance(START + 2 * SECOND);
    // Assess
    const accounts = only(first, 'accounts');
    expect(accounts.filter((r) => !v.safeParse(AccountRecord, r).success)).toEqual([]);
    expect(accounts.every((r) => r.ts === START && r.symbol === 'ACCOUNTS')).toBe(true);
    expect(only(later, 'accounts')).toEqual([]);
    for (const family of ACCOUNT_FAMILIES) {
      const ofFamily = accounts.filter((r) => r.family === family);
      const users = ofFamily.filter((r) => r.account_kind === 'user');
      expect(users.map((r) => r.l1_address)).toEqual(addresses);
      expect(users.every((r) => r.account_index === accountIndexOf(r.l1_address!) && r.account_type === 0)).toBe(true);
      expect(users.every((r) => Number(r.account_index) < 10_000_000)).toBe(true);
      expect(ofFamily.filter((r) => r.account_kind !== 'user').map(({ account_index, l1_address, account_type, account_kind }) => ({ account_index, l1_address, account_type, account_kind }))).toEqual([
        { account_index: '281474976710655', l1_address: null, account_type: 1, account_kind: 'settlement' },
        { account_index: '281474976710654', l1_address: null, account_type: 2, account_kind: 'insurance' },
        { account_index: '281474976710653', l1_address: null, account_type: 3, account_kind: 'system' },
      ]);
      // The registry's key: one account per number.
      expect(new Set(ofFamily.map((r) => r.account_index)).size).toBe(ofFamily.length);
    }
  });

  it('writes the same accounts and altx fills whether the demo is generated in one chunk or several', () => {
    // Prepare
    const chunked = createDemoMarket({ seed: SEED, startMs: START, intensity: 0.25 });
    const until = START + 2 * HOUR;
    // Act
    const parts = [START + SECOND, START + 17 * MINUTE + 3 * SECOND, START + HOUR, until].map((t) => chunked.advance(t)).flat();
    // Assess
    const whole = run.filter((r) => r.ts < until);
    expect(only(parts, 'accounts')).toEqual(only(whole, 'accounts'));
    expect(only(parts, 'accounts').length).toBeGreaterThan(0);
    const numbered = (records: NormalizedRecord[]) => only(records, 'trades').filter((t) => t.family === 'altx' || t.family === 'altx-rh');
    expect(numbered(parts)).toEqual(numbered(whole));
    expect(numbered(parts).filter(isSystemFill).length).toBeGreaterThan(0);
  });
});

describe('the system accounts of altx and altx-rh', () => {
  it('trade only on altx and altx-rh, by account number, a few times an hour', () => {
    // Assess
    expect(systemFills.every((t) => t.family === 'altx' || t.family === 'altx-rh')).toBe(true);
    // They have no address: a fill without one is theirs, and names the counterparty alone.
    expect(trades.filter((t) => t.user_address == null)).toEqual(systemFills);
    expect(systemFills.every((t) => t.crossed && t.taker_address == null && /^0x[0-9a-f]{40}$/.test(t.maker_address!) && !t.is_liquidation)).toBe(true);
    for (const family of ACCOUNT_FAMILIES) {
      for (const { accountIndex } of SYSTEM_ACCOUNTS) {
        expect(systemFills.some((t) => t.family === family && t.account_index === accountIndex), `${family} ${accountIndex}`).toBe(true);
      }
      const perHour = systemFills.filter((t) => t.family === family).length / HOURS;
      expect(perHour, family).toBeGreaterThanOrEqual(3);
      expect(perHour, family).toBeLessThan(12);
    }
  });

  it('chain start_position from fill to fill, from flat, so their positions reconstruct exactly', () => {
    // Prepare
    const szDecimals = new Map(only(run, 'instruments').map((r) => [marketKey(r), r.sz_decimals]));
    const units = (t: TradeRecord, value: string) => Math.round(Number(value) * 10 ** szDecimals.get(marketKey(t))!);
    const signed = (t: TradeRecord) => (t.side === 'B' ? 1 : -1) * units(t, t.size);
    // Act
    const chains = [...groupBy(systemFills, (t) => `${marketKey(t)} ${t.account_index}`).values()];
    // Assess
    expect(chains.some((fills) => fills.length >= 3)).toBe(true);
    for (const fills of chains) {
      let position = 0;
      for (const t of fills) {
        expect(units(t, t.start_position!), `${marketKey(t)} ${t.account_index} ${t.trade_id}`).toBe(position);
        position += signed(t);
      }
      // Never flipped in one fill: a close is at most the position it closes.
      expect(fills.every((t) => !t.direction!.includes('>'))).toBe(true);
    }
  });

  it('have the insurance fund take the other side of some altx liquidations a few seconds later', () => {
    // Prepare
    const insurance = SYSTEM_ACCOUNTS.find((account) => account.kind === 'insurance')!.accountIndex;
    const liquidations = trades.filter((t) => t.family === 'altx' && t.is_liquidation);
    // Act
    const followed = liquidations.filter((l) => systemFills.some((t) => t.account_index === insurance && marketKey(t) === marketKey(l)
      && t.side !== l.side && t.ts > l.ts && t.ts < l.ts + 11 * SECOND));
    // Assess
    expect(liquidations.length).toBeGreaterThan(0);
    expect(followed.length).toBeGreaterThan(0);
  });
});

describe('accounts named on altx and altx-rh', () => {
  it('are all in the registry, a wallet under the number of its address', () => {
    // Prepare
    const registry = new Map(only(run, 'accounts').map((r) => [`${r.family} ${r.account_index}`, r]));
    const registered = (family: string, index: string) => registry.has(`${family} ${index}`);
    // Act
    const numbered = trades.filter((t) => t.family === 'altx' || t.family === 'altx-rh');
    // Assess
    expect(numbered.length).toBeGreaterThan(1_000);
    expect(numbered.filter((t) => t.account_index == null || !registered(t.family, t.account_index))).toEqual([]);
    const users = numbered.filter((t) => !isSystemFill(t));
    expect(users.filter((t) => registry.get(`${t.family} ${t.account_index}`)!.l1_address !== t.user_address)).toEqual([]);
    const liquidations = only(run, 'altx_liquidations');
    expect(liquidations.length).toBeGreaterThan(0);
    expect(liquidations.filter((l) => !registered('altx', l.ask_account) || !registered('altx', l.bid_account))).toEqual([]);
    // The makers' quotes in the order-level book are owned by registered accounts too.
    const owners = new Set(only(run, 'l4_diffs').filter((d) => d.family === 'altx' || d.family === 'altx-rh').map((d) => `${d.family} ${d.user_address}`));
    expect(owners.size).toBeGreaterThan(0);
    expect([...owners].filter((owner) => !registry.has(owner))).toEqual([]);
  });
});
