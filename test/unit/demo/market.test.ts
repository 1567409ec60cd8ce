import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { AccountRecord, type NormalizedRecord, type TradeRecord } from '#schemas/datasets.ts';
import { refusedField } from '#core/archive/record-check.ts';
import { FAMILIES, SYMBOL_FORMS } from '#core/venues.ts';
import { createDemoMarket, resumeDemoMarket } from '#local/demo/market.ts';
import { groupBy } from '#core/group.ts';
import { SYSTEM_ACCOUNTS, accountIndexOf, createWallets } from '#local/demo/wallets.ts';

/** Simulating hours of market is CPU work that a loaded machine does slower, not a condition to wait for: no tight budget. */
const SIMULATION_BUDGET_MS = 600_000;

type Dataset = NormalizedRecord['dataset'];
type RecordOf<D extends Dataset> = Extract<NormalizedRecord, { dataset: D }>;

const START = Date.UTC(2026, 2, 10);
const SECOND = 1_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;

const only = <D extends Dataset>(records: readonly NormalizedRecord[], dataset: D) => records.filter((r): r is RecordOf<D> => r.dataset === dataset);
const marketKey = (r: { family: string; symbol: string }) => `${r.family}/${r.symbol}`;
const ACCOUNT_FAMILIES = ['altx', 'altx-rh'] as const;
const SYSTEM_INDEXES = new Set(SYSTEM_ACCOUNTS.map((account) => account.accountIndex));
const isSystemFill = (t: TradeRecord) => t.account_index != null && SYSTEM_INDEXES.has(t.account_index);

// One simulated hour at the defaults, and eight quieter hours crossing a listing and three cascades,
// with the system accounts' hourly orders and a few altx liquidations the insurance fund follows.
let hour: NormalizedRecord[];
let hourTrades: TradeRecord[];
let long: NormalizedRecord[];
let longTrades: TradeRecord[];
/** The long run's fills of the system accounts (altx and altx-rh). */
let systemFills: TradeRecord[];
const LONG_START = START + 2 * HOUR;
const LONG_HOURS = 8;
const SEED = 42;

beforeAll(() => {
  hour = createDemoMarket({ startMs: START }).advance(START + HOUR);
  hourTrades = only(hour, 'trades');
  long = createDemoMarket({ seed: SEED, startMs: LONG_START, intensity: 0.25 }).advance(LONG_START + LONG_HOURS * HOUR);
  longTrades = only(long, 'trades');
  systemFills = longTrades.filter(isSystemFill);
}, SIMULATION_BUDGET_MS);

describe('createDemoMarket', () => {
  it('gives the same records for the same options, however advance is chunked', () => {
    // Prepare
    const chunked = createDemoMarket({ startMs: START });
    // Act
    const parts = [START + 7 * SECOND, START + 3 * MINUTE, START + 3 * MINUTE + SECOND, START + 10 * MINUTE].map((t) => chunked.advance(t));
    // Assess
    expect(parts.flat()).toEqual(hour.filter((r) => r.dataset === 'instruments' || r.ts < START + 10 * MINUTE));
    const otherSeed = createDemoMarket({ startMs: START, seed: 43 }).advance(START + MINUTE);
    expect(only(otherSeed, 'trades').slice(0, 20)).not.toEqual(hourTrades.slice(0, 20));
  });

  it('without order-level records makes every other record the same, and goes on to the same books', () => {
    // Prepare: 10 minutes (two checkpoint instants) without order-level records, then 5 with.
    const seeded = createDemoMarket({ startMs: START });
    const isOrderLevel = (r: { dataset: string }) => r.dataset === 'l4_diffs' || r.dataset === 'l4_checkpoints';
    // Act
    const without = seeded.advance(START + 10 * MINUTE, { orderLevel: false });
    const after = seeded.advance(START + 15 * MINUTE);
    // Assess
    const expected = hour.filter((r) => r.dataset === 'instruments' || r.ts < START + 10 * MINUTE);
    expect(expected.some(isOrderLevel)).toBe(true);
    expect(without).toEqual(expected.filter((r) => !isOrderLevel(r)));
    expect(after).toEqual(hour.filter((r) => r.dataset !== 'instruments' && r.ts >= START + 10 * MINUTE && r.ts < START + 15 * MINUTE));
  });

  it('goes on from a snapshot exactly as the market it was taken from (books, positions, order ids)', () => {
    // Prepare: past the registries and into a checkpoint interval.
    const original = createDemoMarket({ startMs: START, intensity: 0.5 });
    original.advance(START + 4 * MINUTE);
    // Act
    const resumed = resumeDemoMarket(original.snapshot());
    // Assess: across the 5-minute checkpoint and a requote of every market.
    expect(resumed.nowMs()).toBe(START + 4 * MINUTE);
    expect(resumed.options).toEqual(original.options);
    expect(resumed.advance(START + 7 * MINUTE)).toEqual(original.advance(START + 7 * MINUTE));
    expect(() => resumeDemoMarket(new Uint8Array([1, 2, 3]))).toThrow();
  });

  it('emits only records the ingest schema accepts, in time order, over a long run', () => {
    for (const [records, start] of [
      [hour, START],
      [long, LONG_START],
    ] as const) {
      // Ingest's own check (valibot's NormalizedRecord compiled to predicates, plus the family rule;
      // test/unit/archive/record-check.test.ts holds it to valibot's answers): valibot's verdict on
      // each of the 1.58 M records, without the dataset and output copy valibot builds per value.
      expect(records.filter((r) => refusedField(r) !== undefined)).toEqual([]);
      const times = records.map((r) => r.ts);
      expect(times.every((ts, i) => i === 0 || ts >= times[i - 1]!)).toBe(true);
      expect(records.filter((r) => r.ts < start).every((r) => r.dataset === 'instruments')).toBe(true);
    }
    expect(long.filter((r) => r.dataset !== 'instruments').every((r) => r.ts >= LONG_START && r.ts < LONG_START + 8 * HOUR)).toBe(true);
    const decimals = hourTrades.flatMap((t) => [t.price, t.size, t.fee, t.closed_pnl, t.start_position]);
    expect(decimals.every((d) => typeof d === 'string' && /^-?\d+(\.\d*[1-9])?$/.test(d))).toBe(true);
  });

  it('lists the markets of every family in their symbol forms', () => {
    const symbols = createDemoMarket({ startMs: START }).symbols();
    for (const family of FAMILIES) expect(symbols[family].every((s) => SYMBOL_FORMS[family].pattern.test(s))).toBe(true);
    expect(symbols.perpx.length).toBeGreaterThanOrEqual(60);
    expect(symbols.perpx).toEqual(expect.arrayContaining(['BTC', 'ETH', 'SOL', 'HYPE']));
    expect(symbols.spot).toEqual(expect.arrayContaining(['HYPE-USDC', 'PURR-USDC']));
    expect(symbols.spot.length).toBeGreaterThanOrEqual(4);
    expect(symbols.hip3.length).toBeGreaterThanOrEqual(10);
    expect(new Set(symbols.hip3.map((s) => s.split(':')[0])).size).toBeGreaterThanOrEqual(2);
    expect(symbols.hip3).toEqual(expect.arrayContaining(['xyz:TSLA', 'xyz:NVDA', 'km:US500']));
    expect(symbols.hip4).toEqual(expect.arrayContaining(['#0', '#1', '#10', '#11']));
    expect(symbols.altx).toEqual(expect.arrayContaining(['BTC', 'ETH', 'SOL']));
    expect(symbols['altx-rh']).toContain('BTC');
    expect(symbols['altx-rh'].some((s) => s.endsWith('-USDG'))).toBe(true);
    expect(createDemoMarket({ startMs: START, extraCoreMarkets: 25 }).symbols().perpx).toHaveLength(symbols.perpx.length + 25);
  });

  it('trades at realistic prices', () => {
    const firstPrice = (family: string, symbol: string) => Number(hourTrades.find((t) => t.family === family && t.symbol === symbol)?.price);
    expect(firstPrice('perpx', 'BTC')).toBeGreaterThan(90_000);
    expect(firstPrice('perpx', 'BTC')).toBeLessThan(105_000);
    expect(firstPrice('perpx', 'ETH')).toBeGreaterThan(3_100);
    expect(firstPrice('perpx', 'ETH')).toBeLessThan(3_700);
    // The same asset trades at nearly the same price on every venue.
    expect(Math.abs(firstPrice('altx', 'BTC') / firstPrice('perpx', 'BTC') - 1)).toBeLessThan(0.01);
    expect(Math.abs(firstPrice('hip3', 'xyz:TSLA') / 340 - 1)).toBeLessThan(0.1);
  });

  it('moves the majors as real markets do, scheduled cascades and swings included: no hour beyond 6%, 8 hours within 15%', () => {
    for (const symbol of ['BTC', 'ETH']) {
      const trades = longTrades.filter((t) => t.family === 'perpx' && t.symbol === symbol);
      const closes = Array.from({ length: 8 }, (_, h) => trades.filter((t) => t.ts < LONG_START + (h + 1) * HOUR).at(-1)!.price).map(Number);
      const opening = Number(trades[0]!.price);
      const hourly = closes.map((close, h) => Math.abs(Math.log(close / (h === 0 ? opening : closes[h - 1]!))));
      expect(Math.max(...hourly), symbol).toBeLessThan(Math.log(1.06));
      expect(Math.abs(Math.log(closes.at(-1)! / opening)), symbol).toBeLessThan(Math.log(1.15));
    }
  });

  it('starts with the instrument registry of the markets listed before the start', () => {
    const market = createDemoMarket({ startMs: START });
    const first = market.advance(START + SECOND);
    const registry = only(first, 'instruments');
    const listed = Object.entries(market.symbols()).flatMap(([family, symbols]) => symbols.map((symbol) => `${family}/${symbol}`));
    expect(first.slice(0, registry.length)).toEqual(registry);
    expect(registry.map(marketKey).sort()).toEqual(listed.sort());
    expect(registry.every((r) => r.ts < START)).toBe(true);
    for (const r of registry) {
      expect(r.market_type).toBe(r.family === 'hip4' ? 'outcome' : r.family === 'spot' || r.symbol.endsWith('-USDG') ? 'spot' : 'perp');
      expect(r.max_leverage !== undefined).toBe(r.market_type === 'perp');
      expect(r.dex).toBe(r.family === 'hip3' ? r.symbol.split(':')[0] : undefined);
      expect(r.quote).toBe(r.market_type === 'spot' ? r.symbol.split('-')[1] : undefined);
    }
    expect(only(market.advance(START + 2 * SECOND), 'instruments')).toEqual([]);
  });

  it('lists a new core perp every hour and trades it from then on', () => {
    const listing = Date.UTC(2026, 2, 10, 6);
    const listings = only(long, 'instruments').filter((r) => r.ts >= LONG_START);
    expect(listings.map((r) => r.ts)).toEqual([3, 4, 5, 6, 7, 8, 9].map((h) => Date.UTC(2026, 2, 10, h)));
    expect(listings.every((r) => r.family === 'perpx' && r.market_type === 'perp')).toBe(true);
    expect(new Set(listings.map((r) => r.symbol)).size).toBe(7);
    const symbol = listings.find((r) => r.ts === listing)!.symbol;
    const trades = longTrades.filter((t) => t.family === 'perpx' && t.symbol === symbol);
    expect(trades.length).toBeGreaterThan(10);
    expect(trades.every((t) => t.ts >= listing)).toBe(true);
    const market = createDemoMarket({ startMs: listing - MINUTE });
    market.advance(listing);
    expect(market.symbols().perpx).not.toContain(symbol);
    market.advance(listing + SECOND);
    expect(market.symbols().perpx).toContain(symbol);
  });

  it('trades 3 to 6 times a second at intensity 1, in proportion to the intensity', () => {
    expect(hourTrades.length).toBeGreaterThanOrEqual(3 * 3_600);
    expect(hourTrades.length).toBeLessThanOrEqual(6 * 3_600);
    const half = only(createDemoMarket({ startMs: START, intensity: 0.5 }).advance(START + 10 * MINUTE), 'trades').length;
    const ratio = half / hourTrades.filter((t) => t.ts < START + 10 * MINUTE).length;
    expect(ratio).toBeGreaterThan(0.35);
    expect(ratio).toBeLessThan(0.7);
  });

  it('trades in bursts, in fat-tailed sizes, on both sides', () => {
    const perSecond = new Array<number>(3_600).fill(0);
    for (const t of hourTrades) perSecond[Math.floor((t.ts - START) / SECOND)]!++;
    const mean = perSecond.reduce((a, b) => a + b, 0) / perSecond.length;
    const variance = perSecond.reduce((a, b) => a + (b - mean) ** 2, 0) / perSecond.length;
    // Poisson arrivals would give a ratio of 1; clustering inflates it.
    expect(variance / mean).toBeGreaterThan(1.5);
    const notionals = hourTrades.map((t) => Number(t.price) * Number(t.size)).sort((a, b) => a - b);
    const quantile = (q: number) => notionals[Math.floor(q * (notionals.length - 1))]!;
    expect(quantile(0.999) / quantile(0.5)).toBeGreaterThan(50);
    const buys = hourTrades.filter((t) => t.side === 'B').length / hourTrades.length;
    expect(buys).toBeGreaterThan(0.35);
    expect(buys).toBeLessThan(0.65);
  });

  it('moves prices with clustered volatility and occasional jumps', () => {
    const btc = only(long, 'open_interest')
      .filter((r) => r.family === 'perpx' && r.symbol === 'BTC')
      .map((r) => Number(r.mid_price));
    const returns = btc.slice(1).map((p, i) => Math.log(p / btc[i]!));
    const sd = Math.sqrt(returns.reduce((a, r) => a + r * r, 0) / returns.length);
    const kurtosis = returns.reduce((a, r) => a + r ** 4, 0) / returns.length / sd ** 4;
    // Fatter tails than a normal's kurtosis of 3; a typical minute moves BTC by a few basis points.
    expect(kurtosis).toBeGreaterThan(3.5);
    const typical = returns.map(Math.abs).sort((a, b) => a - b)[returns.length >> 1]!;
    expect(typical).toBeGreaterThan(0.0001);
    expect(typical).toBeLessThan(0.002);
  });

  it('numbers trades increasingly per family and uniquely across families', () => {
    const trades = longTrades;
    for (const family of groupBy(trades, (t) => t.family).values()) {
      expect(family.every((t, i) => i === 0 || t.trade_id > family[i - 1]!.trade_id)).toBe(true);
    }
    expect(new Set(trades.map((t) => t.trade_id)).size).toBe(trades.length);
  });

  it("records each fill from the trader's side, consistent with the trader's position", () => {
    const szDecimals = new Map(only(hour, 'instruments').map((r) => [marketKey(r), r.sz_decimals]));
    const units = (t: TradeRecord, value: string) => Math.round(Number(value) * 10 ** szDecimals.get(marketKey(t))!);
    // The owner of a fill: its account on altx and altx-rh (the venues' own accounts have no address), else its wallet.
    for (const fills of groupBy(hourTrades, (t) => `${marketKey(t)} ${t.account_index ?? t.user_address}`).values()) {
      fills.forEach((t, i) => {
        const start = units(t, t.start_position!);
        const size = units(t, t.size);
        const signed = t.side === 'B' ? size : -size;
        if (i > 0) {
          const previous = fills[i - 1]!;
          expect(start).toBe(units(previous, previous.start_position!) + (previous.side === 'B' ? 1 : -1) * units(previous, previous.size));
        }
        const expected =
          t.family === 'spot' || t.symbol.endsWith('-USDG')
            ? signed > 0
              ? 'Buy'
              : 'Sell'
            : start !== 0 && Math.sign(start) !== Math.sign(signed)
              ? start > 0
                ? 'Close Long'
                : 'Close Short'
              : signed > 0
                ? 'Open Long'
                : 'Open Short';
        expect(t.direction).toBe(expected);
        // Never flipped in one fill; a close realizes PnL, an open none.
        if (t.direction!.startsWith('Close')) expect(size).toBeLessThanOrEqual(Math.abs(start));
        if (t.direction!.startsWith('Open')) expect(t.closed_pnl).toBe('0');
      });
    }
    expect(hourTrades.filter((t) => t.direction?.startsWith('Close') && t.closed_pnl !== '0').length).toBeGreaterThan(1_000);
  });

  it('names taker, maker, fees and venue extras on every fill', () => {
    const tokens = { perpx: 'USDC', spot: 'USDC', hip3: 'USDC', hip4: 'USDH', altx: 'USDC', 'altx-rh': 'USDG' };
    const wrong = hourTrades.filter(
      (t) =>
        t.fee_token !== tokens[t.family]
        || t.user_address !== (t.crossed ? t.taker_address : t.maker_address)
        || t.maker_address === t.taker_address
        || !/^0x[0-9a-f]{64}$/.test(t.tx_hash!)
        || !Number.isInteger(t.order_id)
        || (t.crossed && Number(t.fee) < 0),
    );
    expect(wrong).toEqual([]);
    expect(hourTrades.some((t) => !t.crossed)).toBe(true);
    expect(hourTrades.some((t) => !t.crossed && Number(t.fee) < 0)).toBe(true);
    const hip3 = hourTrades.filter((t) => t.family === 'hip3');
    expect(hip3.every((t) => t.deployer_fee !== undefined)).toBe(true);
    expect(hip3.some((t) => t.builder_address && t.builder_fee)).toBe(true);
    expect(hip3.some((t) => t.priority_gas)).toBe(true);
    expect(hourTrades.some((t) => t.twap_id !== undefined)).toBe(true);
    expect(hourTrades.some((t) => t.cloid !== undefined)).toBe(true);
  });

  it('has the spot stacker work a TWAP on spot every 4 hours from 02:30 UTC', () => {
    // Prepare
    const from = START + 2.5 * HOUR;
    const market = createDemoMarket({ startMs: from });
    const stacker = market.wallets.find((w) => w.label === 'Spot stacker')!;
    // Act
    const trades = only(market.advance(from + 10 * MINUTE), 'trades');
    // Assess
    const slices = trades.filter((t) => t.family === 'spot' && t.twap_id !== undefined);
    expect(new Set(slices.map((t) => t.twap_id)).size).toBe(1);
    expect(slices.length).toBeGreaterThan(3);
    expect(new Set(slices.map((t) => t.user_address))).toEqual(new Set([stacker.address]));
    expect(hourTrades.some((t) => t.family === 'spot' && t.twap_id !== undefined)).toBe(false);
  });

  it('has every demo wallet trade in every minute, opening and closing positions', () => {
    const market = createDemoMarket({ startMs: START });
    expect(market.wallets.length).toBeGreaterThanOrEqual(5);
    expect(market.wallets.length).toBeLessThanOrEqual(8);
    expect(market.wallets).toEqual(createDemoMarket({ startMs: START + HOUR }).wallets);
    expect(market.wallets).not.toEqual(createDemoMarket({ startMs: START, seed: 1 }).wallets);
    for (const { address, label } of market.wallets) {
      expect(address).toMatch(/^0x[0-9a-f]{40}$/);
      expect(label).not.toBe('');
      const trades = hourTrades.filter((t) => t.user_address === address);
      const minutes = new Set(trades.map((t) => Math.floor((t.ts - START) / MINUTE)));
      expect(minutes.size).toBe(60);
      expect(trades.some((t) => /^(Open|Buy)/.test(t.direction!))).toBe(true);
      expect(trades.some((t) => /^(Close|Sell)/.test(t.direction!))).toBe(true);
    }
  });

  it('cascades liquidations after a sharp move a few times a day', () => {
    const trades = longTrades;
    const liquidations = only(long, 'liquidations');
    const altxLiquidations = only(long, 'altx_liquidations');
    const fills = trades.filter((t) => t.is_liquidation);
    // Each liquidation fill has its liquidations row, for the liquidated taker; altx's names the taker's account on its side.
    expect(liquidations.map((l) => [l.trade_id, l.liquidated_user, l.side])).toEqual(
      fills.filter((t) => t.family !== 'altx').map((t) => [t.trade_id, t.user_address, t.side]),
    );
    expect(altxLiquidations.map((l) => [l.trade_id, l.is_maker_ask ? l.bid_account : l.ask_account, l.taker_position_size_before])).toEqual(
      fills.filter((t) => t.family === 'altx').map((t) => [t.trade_id, t.account_index, t.start_position]),
    );
    expect(altxLiquidations.length).toBeGreaterThan(0);
    expect(fills.every((t) => ['perpx', 'hip3', 'altx'].includes(t.family) && t.crossed && t.direction?.startsWith('Close'))).toBe(true);
    const cascades = [...groupBy(fills, (t) => `${marketKey(t)} ${Math.floor(t.ts / (10 * SECOND))}`).values()].filter((group) => {
      const wallets = new Set(group.map((t) => t.user_address));
      const first = group[0]!;
      const before = trades.findLast((t) => marketKey(t) === marketKey(first) && !t.is_liquidation && t.ts < first.ts - 5 * SECOND);
      return wallets.size >= 3 && before !== undefined && Math.abs(Number(first.price) / Number(before.price) - 1) > 0.01;
    });
    // One is scheduled every 15 minutes; some crowds are a single wallet.
    expect(cascades.length).toBeGreaterThanOrEqual(16);
  });

  it('every hour, liquidates 1M USD of one market within 5 minutes and a demo wallet', () => {
    const liquidations = only(long, 'liquidations');
    const demo = new Set(createDemoMarket({ startMs: LONG_START }).wallets.map((w) => w.address));
    for (let hourStart = LONG_START; hourStart < LONG_START + 8 * HOUR; hourStart += HOUR) {
      const inHour = liquidations.filter((l) => l.ts >= hourStart && l.ts < hourStart + HOUR);
      const largestFiveMinutes = Math.max(
        ...inHour.map((first) =>
          inHour
            .filter((l) => marketKey(l) === marketKey(first) && l.ts >= first.ts && l.ts < first.ts + 5 * MINUTE)
            .reduce((sum, l) => sum + Number(l.price) * Number(l.size), 0),
        ),
      );
      expect(largestFiveMinutes, new Date(hourStart).toISOString()).toBeGreaterThan(1_000_000);
      expect(
        inHour.some((l) => demo.has(l.liquidated_user)),
        new Date(hourStart).toISOString(),
      ).toBe(true);
    }
  });

  it('swings perpx breadth across 30% both ways every hour, through the 25% to 35% band', () => {
    // Breadth as the service computes it, from the trades: the share of markets traded in the last five
    // minutes whose last price is above their session VWAP, each minute.
    const trades = longTrades.filter((t) => t.family === 'perpx');
    const session = new Map<string, { notional: number; size: number; last: number; lastTs: number }>();
    const crosses: { at: number; direction: 'up' | 'down' }[] = [];
    let next = 0;
    let previous: number | undefined;
    let armedUp = false;
    let armedDown = false;
    for (let minute = LONG_START + MINUTE; minute <= LONG_START + 8 * HOUR; minute += MINUTE) {
      for (; next < trades.length && trades[next]!.ts < minute; next++) {
        const t = trades[next]!;
        const s = session.get(t.symbol) ?? { notional: 0, size: 0, last: 0, lastTs: 0 };
        session.set(t.symbol, { notional: s.notional + Number(t.price) * Number(t.size), size: s.size + Number(t.size), last: Number(t.price), lastTs: t.ts });
      }
      const trading = [...session.values()].filter((s) => s.lastTs >= minute - 5 * MINUTE);
      const value = (100 * trading.filter((s) => s.last > s.notional / s.size).length) / trading.length;
      if (value <= 25) armedUp = true;
      if (value >= 35) armedDown = true;
      if (previous !== undefined && previous < 30 && value >= 30 && armedUp) {
        crosses.push({ at: minute, direction: 'up' });
        armedUp = false;
      }
      if (previous !== undefined && previous > 30 && value <= 30 && armedDown) {
        crosses.push({ at: minute, direction: 'down' });
        armedDown = false;
      }
      previous = value;
    }
    for (let hourStart = LONG_START; hourStart < LONG_START + 8 * HOUR; hourStart += HOUR) {
      const inHour = crosses.filter((c) => c.at > hourStart && c.at <= hourStart + HOUR).map((c) => c.direction);
      expect(inHour, new Date(hourStart).toISOString()).toEqual(expect.arrayContaining(['up', 'down']));
    }
  });

  it('has the Forecaster holding a side of every outcome into each half-hour settlement', () => {
    const forecaster = createDemoMarket({ startMs: LONG_START }).wallets.find((w) => w.label === 'Forecaster')!.address;
    const fills = longTrades.filter((t) => t.user_address === forecaster);
    const positionAt = (symbol: string, ts: number) => {
      const last = fills.findLast((t) => t.symbol === symbol && t.ts < ts);
      return last ? Number(last.start_position) + (last.side === 'B' ? 1 : -1) * Number(last.size) : 0;
    };
    // From the second hour: the wallet starts flat.
    for (let settlement = LONG_START + HOUR + 5 * MINUTE; settlement < LONG_START + 8 * HOUR; settlement += 30 * MINUTE) {
      for (const outcome of [0, 1, 2, 3]) {
        expect(
          positionAt(`#${10 * outcome}`, settlement) + positionAt(`#${10 * outcome + 1}`, settlement),
          `${outcome} ${new Date(settlement).toISOString()}`,
        ).toBeGreaterThan(0);
      }
    }
  });

  it('publishes funding for perps and open interest once a minute', () => {
    const funding = only(hour, 'funding');
    const oi = only(hour, 'open_interest');
    const perps = only(hour, 'instruments').filter((r) => r.market_type === 'perp');
    for (const rows of [funding, oi]) {
      expect(rows.every((r) => r.ts % MINUTE === 0)).toBe(true);
      expect(new Set(rows.map(marketKey))).toEqual(
        new Set([
          ...perps.map(marketKey),
          ...(rows === oi
            ? only(hour, 'instruments')
                .filter((r) => r.family === 'hip4')
                .map(marketKey)
            : []),
        ]),
      );
      expect(rows.length).toBe(60 * new Set(rows.map(marketKey)).size);
    }
    for (const row of funding) {
      // The venue's formula: the premium plus the interest rate clamped to +-0.05%, per hour of eight.
      expect(Number(row.funding_rate)).toBeCloseTo((Number(row.premium) + Math.max(-0.0005, Math.min(0.0005, 0.0001 - Number(row.premium)))) / 8, 8);
    }
    for (const row of oi) {
      expect(Number(row.open_interest)).toBeGreaterThan(0);
      expect(row.mark_price).toBeDefined();
      expect(row.mid_price).toBeDefined();
      expect(row.oracle_price !== undefined).toBe(row.family !== 'hip4');
    }
    const longFunding = groupBy(only(long, 'funding'), marketKey);
    const signChanges = [...longFunding.values()].filter(
      (rows) => rows.some((r) => Number(r.funding_rate) > 0) && rows.some((r) => Number(r.funding_rate) < 0),
    );
    expect(signChanges.length).toBeGreaterThan(5);
    // Funding settles on the hour's mean premium: a settled rate changes sign with the market's premium
    // regime, not with a minute's noise, so a few markets an hour flip.
    const settled = [
      ...groupBy(
        only(long, 'funding').filter((r) => r.ts % HOUR === 0),
        marketKey,
      ).values(),
    ];
    const flips = settled.flatMap((rows) => rows.slice(1).filter((r, i) => Math.sign(Number(r.funding_rate)) !== Math.sign(Number(rows[i]!.funding_rate))));
    expect(flips.length).toBeGreaterThan(0);
    expect(flips.length / 8).toBeLessThan(0.15 * settled.length);
    const btcOi = oi.filter((r) => r.family === 'perpx' && r.symbol === 'BTC').map((r) => r.open_interest);
    expect(new Set(btcOi).size).toBeGreaterThan(30);
  });

  it('prices hip4 sides as probabilities, a Yes and its No summing to about 1', () => {
    const marks = groupBy(
      only(hour, 'open_interest').filter((r) => r.family === 'hip4'),
      (r) => String(r.ts),
    );
    for (const rows of marks.values()) {
      const mark = (symbol: string) => Number(rows.find((r) => r.symbol === symbol)!.mark_price);
      for (const outcome of [0, 1]) expect(Math.abs(mark(`#${10 * outcome}`) + mark(`#${10 * outcome + 1}`) - 1)).toBeLessThan(0.03);
    }
    const hip4 = hourTrades.filter((t) => t.family === 'hip4');
    expect(hip4.length).toBeGreaterThan(50);
    expect(hip4.every((t) => Number(t.price) > 0 && Number(t.price) < 1)).toBe(true);
  });

  it('snapshots every book at the L2 interval, at most 20 levels a side on the perpx families, never crossed', () => {
    const books = only(hour, 'l2_snapshots');
    const markets = only(hour, 'instruments').length;
    expect(books).toHaveLength(60 * markets);
    for (const { bids, asks, ts, family } of books) {
      // Stamped with the minute's last millisecond: the book after every change of that minute.
      expect(ts % MINUTE).toBe(MINUTE - 1);
      // altx and altx-rh publish every level.
      const cap = family === 'altx' || family === 'altx-rh' ? Infinity : 20;
      expect(bids.length).toBeLessThanOrEqual(cap);
      expect(asks.length).toBeLessThanOrEqual(cap);
      expect(Math.min(bids.length, asks.length)).toBeGreaterThan(0);
      expect(Number(bids[0]![0])).toBeLessThan(Number(asks[0]![0]));
      expect(bids.every(([px], i) => i === 0 || Number(px) < Number(bids[i - 1]![0]))).toBe(true);
      expect(asks.every(([px], i) => i === 0 || Number(px) > Number(asks[i - 1]![0]))).toBe(true);
      expect([...bids, ...asks].every(([, sz, n]) => Number(sz) > 0 && n >= 1)).toBe(true);
    }
    const fast = only(createDemoMarket({ startMs: START, l2IntervalMs: 10 * SECOND }).advance(START + MINUTE), 'l2_snapshots');
    expect(fast).toHaveLength(6 * markets);
  });

  it('emits order events, with TP/SL triggers that fire when the price crosses them', () => {
    const events = only(hour, 'order_events');
    expect(new Set(events.map((e) => e.family))).toEqual(new Set(['perpx', 'hip3', 'hip4', 'spot']));
    // Spot emits its fills' order events only: no resting placements of its traders, no trigger orders.
    const spot = events.filter((e) => e.family === 'spot');
    expect(new Set(spot.map((e) => e.event))).toEqual(new Set(['placed', 'filled']));
    expect(spot.filter((e) => e.event === 'placed').every((e) => e.tif === 'Alo' && e.status === 'open')).toBe(true);
    expect(spot.some((e) => e.is_trigger)).toBe(false);
    expect(new Set(events.map((e) => e.event))).toEqual(new Set(['placed', 'canceled', 'filled', 'triggered', 'force_canceled']));
    const statuses = new Set(events.map((e) => e.status));
    expect(['canceled', 'filled', 'liquidatedCanceled', 'marginCanceled', 'open', 'reduceOnlyCanceled', 'triggered']).toEqual(
      expect.arrayContaining([...statuses]),
    );
    expect([...statuses]).toEqual(expect.arrayContaining(['open', 'canceled', 'filled', 'triggered', 'marginCanceled']));
    for (const rows of groupBy(events, (e) => e.family).values()) expect(new Set(rows.map((e) => `${e.block_number} ${e.seq}`)).size).toBe(rows.length);
    const triggers = events.filter((e) => e.is_trigger && e.event === 'placed');
    expect(triggers.some((e) => e.is_position_tpsl)).toBe(true);
    expect(triggers.some((e) => !e.is_position_tpsl)).toBe(true);
    for (const e of triggers) {
      expect(['Stop Market', 'Stop Limit', 'Take Profit Market', 'Take Profit Limit']).toContain(e.order_type);
      expect(e.trigger_condition).toBe(`Price ${e.trigger_condition!.includes('above') ? 'above' : 'below'} ${e.trigger_price}`);
      expect(e.reduce_only).toBe(true);
    }
    const fired = events.filter((e) => e.event === 'triggered');
    expect(fired.length).toBeGreaterThan(20);
    const placedAt = new Map(triggers.map((e) => [e.oid, e.ts]));
    const fills = new Map(hourTrades.map((t) => [`${t.order_id} ${t.ts} ${t.user_address}`, t]));
    for (const e of fired) {
      expect(placedAt.get(e.oid)).toBeLessThanOrEqual(e.ts);
      const fill = fills.get(`${e.oid} ${e.ts} ${e.user_address}`);
      expect(fill).toBeDefined();
      // The mid crossed the trigger; the fill is at most a spread or a sweep away from it.
      const price = Number(fill!.price);
      const trigger = Number(e.trigger_price);
      if (e.trigger_condition!.includes('above')) expect(price).toBeGreaterThan(trigger * 0.995);
      else expect(price).toBeLessThan(trigger * 1.005);
    }
  });

  it('refuses options and times it cannot honour', () => {
    expect(() => createDemoMarket({ startMs: START + 1 })).toThrow(RangeError);
    expect(() => createDemoMarket({ startMs: START, intensity: -1 })).toThrow(RangeError);
    expect(() => createDemoMarket({ startMs: START, l2IntervalMs: 1_500 })).toThrow(RangeError);
    const market = createDemoMarket({ startMs: START });
    expect(() => market.advance(START)).toThrow(RangeError);
    expect(() => market.advance(START + 1_500)).toThrow(RangeError);
  });
});

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
      expect(
        ofFamily
          .filter((r) => r.account_kind !== 'user')
          .map(({ account_index, l1_address, account_type, account_kind }) => ({ account_index, l1_address, account_type, account_kind })),
      ).toEqual([
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
    const chunked = createDemoMarket({ seed: SEED, startMs: LONG_START, intensity: 0.25 });
    const until = LONG_START + 2 * HOUR;
    // Act
    const parts = [LONG_START + SECOND, LONG_START + 17 * MINUTE + 3 * SECOND, LONG_START + HOUR, until].flatMap((t) => chunked.advance(t));
    // Assess
    const whole = long.filter((r) => r.ts < until);
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
    expect(longTrades.filter((t) => t.user_address == null)).toEqual(systemFills);
    expect(systemFills.every((t) => t.crossed && t.taker_address == null && /^0x[0-9a-f]{40}$/.test(t.maker_address!) && !t.is_liquidation)).toBe(true);
    for (const family of ACCOUNT_FAMILIES) {
      for (const { accountIndex } of SYSTEM_ACCOUNTS) {
        expect(
          systemFills.some((t) => t.family === family && t.account_index === accountIndex),
          `${family} ${accountIndex}`,
        ).toBe(true);
      }
      const perHour = systemFills.filter((t) => t.family === family).length / LONG_HOURS;
      expect(perHour, family).toBeGreaterThanOrEqual(3);
      expect(perHour, family).toBeLessThan(12);
    }
  });

  it('chain start_position from fill to fill, from flat, so their positions reconstruct exactly', () => {
    // Prepare
    const szDecimals = new Map(only(long, 'instruments').map((r) => [marketKey(r), r.sz_decimals]));
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
    const liquidations = longTrades.filter((t) => t.family === 'altx' && t.is_liquidation);
    // Act
    const followed = liquidations.filter((l) =>
      systemFills.some((t) => t.account_index === insurance && marketKey(t) === marketKey(l) && t.side !== l.side && t.ts > l.ts && t.ts < l.ts + 11 * SECOND),
    );
    // Assess
    expect(liquidations.length).toBeGreaterThan(0);
    expect(followed.length).toBeGreaterThan(0);
  });
});

describe('accounts named on altx and altx-rh', () => {
  it('are all in the registry, a wallet under the number of its address', () => {
    // Prepare
    const registry = new Map(only(long, 'accounts').map((r) => [`${r.family} ${r.account_index}`, r]));
    const registered = (family: string, index: string) => registry.has(`${family} ${index}`);
    // Act
    const numbered = longTrades.filter((t) => t.family === 'altx' || t.family === 'altx-rh');
    // Assess
    expect(numbered.length).toBeGreaterThan(1_000);
    expect(numbered.filter((t) => t.account_index == null || !registered(t.family, t.account_index))).toEqual([]);
    const users = numbered.filter((t) => !isSystemFill(t));
    expect(users.filter((t) => registry.get(`${t.family} ${t.account_index}`)!.l1_address !== t.user_address)).toEqual([]);
    const liquidations = only(long, 'altx_liquidations');
    expect(liquidations.length).toBeGreaterThan(0);
    expect(liquidations.filter((l) => !registered('altx', l.ask_account) || !registered('altx', l.bid_account))).toEqual([]);
    // The makers' quotes in the order-level book are owned by registered accounts too.
    const owners = new Set(
      only(long, 'l4_diffs')
        .filter((d) => d.family === 'altx' || d.family === 'altx-rh')
        .map((d) => `${d.family} ${d.user_address}`),
    );
    expect(owners.size).toBeGreaterThan(0);
    expect([...owners].filter((owner) => !registry.has(owner))).toEqual([]);
  });
});
