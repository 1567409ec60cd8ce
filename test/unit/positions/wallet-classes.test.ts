/**
 * Wallet classification's rule (core/market/wallet-classes.ts, CLASS_RULE): a wallet built to meet
 * a class's condition, and none of the classes tried before it, is classified so; sorting is total
 * (absent metrics last) and the filters keep exactly the wallets that meet them.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { classOf, dayOf, matches, metricsOf, sortWallets, type ClassifyRequest } from '#core/positions/wallet-classes.ts';
import { CLASS_THRESHOLDS as T, WALLET_SORTS, type ClassifiedWallet, type WalletClass, type WalletSort } from '#schemas/wallet-classes.ts';

/** Fills and holding times that meet each class's condition and fail every earlier one. */
const built: Record<WalletClass, fc.Arbitrary<{ fills: number; makerFills: number; volume: number; hold?: number }>> = {
  market_maker: fc
    .record({
      fills: fc.integer({ min: T.activeFills, max: 100_000 }),
      volume: fc.double({ min: 0, max: 1e9, noNaN: true }),
      hold: fc.option(fc.integer({ min: 0, max: 30 * 86_400_000 }), { nil: undefined }),
    })
    .chain((w) => fc.integer({ min: Math.ceil(w.fills * T.makerRatio), max: w.fills }).map((makerFills) => ({ ...w, makerFills }))),
  high_frequency: fc
    .record({
      fills: fc.integer({ min: T.activeFills, max: 100_000 }),
      volume: fc.double({ min: 0, max: 1e9, noNaN: true }),
      hold: fc.integer({ min: 0, max: T.fastHoldMs - 1 }),
    })
    .chain((w) => fc.integer({ min: 0, max: Math.ceil(w.fills * T.makerRatio) - 1 }).map((makerFills) => ({ ...w, makerFills }))),
  whale: fc
    .record({
      fills: fc.integer({ min: 1, max: 100_000 }),
      volume: fc.double({ min: T.whaleVolumeUsd, max: 1e12, noNaN: true }),
      hold: fc.option(fc.integer({ min: T.fastHoldMs, max: 30 * 86_400_000 }), { nil: undefined }),
    })
    .chain((w) => fc.integer({ min: 0, max: Math.max(0, Math.ceil(w.fills * T.makerRatio) - 1) }).map((makerFills) => ({ ...w, makerFills }))),
  position_trader: fc
    .record({
      fills: fc.integer({ min: 1, max: T.activeFills - 1 }),
      volume: fc.double({ min: 0, max: T.whaleVolumeUsd - 1, noNaN: true }),
      hold: fc.integer({ min: T.slowHoldMs, max: 30 * 86_400_000 }),
    })
    .chain((w) => fc.integer({ min: 0, max: w.fills }).map((makerFills) => ({ ...w, makerFills }))),
  retail: fc
    .record({
      fills: fc.integer({ min: 0, max: T.activeFills - 1 }),
      volume: fc.double({ min: 0, max: T.whaleVolumeUsd - 1, noNaN: true }),
      hold: fc.option(fc.integer({ min: 0, max: T.slowHoldMs - 1 }), { nil: undefined }),
    })
    .chain((w) => fc.integer({ min: 0, max: w.fills }).map((makerFills) => ({ ...w, makerFills }))),
};

/** The aggregate rows the archive's SQL gives for such a wallet (buys and sells split the volume). */
const rowsOf = (w: { fills: number; makerFills: number; volume: number; hold?: number }) =>
  [
    w.fills > 0
      ? {
          fills: w.fills,
          maker_fills: w.makerFills,
          known_side_fills: w.fills,
          buy_volume: w.volume / 2,
          sell_volume: w.volume / 2,
          symbols: 'BTC',
          avg_hold: w.hold ?? null,
        }
      : undefined,
    { orders: w.fills + 3, canceled: 3, filled: w.fills, symbols: 'BTC ETH' },
    undefined,
  ] as const;

describe('classOf', () => {
  for (const [expected, wallets] of Object.entries(built)) {
    it(`classifies a wallet built to meet the ${expected} rule (and no earlier one) as ${expected}`, () => {
      fc.assert(
        fc.property(wallets, (w) => {
          const metrics = metricsOf(...rowsOf(w));
          expect(metrics.total_fills).toBe(w.fills);
          expect(classOf(metrics)).toBe(expected);
        }),
      );
    });
  }

  it('reads metrics that have nothing to measure as absent, not zero', () => {
    const metrics = metricsOf(undefined, undefined, undefined);
    expect(metrics).not.toHaveProperty('cancel_rate');
    expect(metrics).not.toHaveProperty('maker_ratio');
    expect(metrics).not.toHaveProperty('avg_holding_ms');
    expect(metrics).toMatchObject({ total_orders: 0, total_fills: 0, uses_twap: false, unique_coins_traded: 0 });
    expect(metricsOf(...rowsOf({ fills: 5, makerFills: 1, volume: 10 })).unique_coins_traded).toBe(2);
  });
});

const wallet = fc
  .record({
    address: fc.stringMatching(/^0x[0-9a-f]{4}$/),
    fills: fc.integer({ min: 0, max: 500 }),
    orders: fc.integer({ min: 0, max: 500 }),
    canceled: fc.nat(),
    volume: fc.double({ min: 0, max: 1e7, noNaN: true }),
    twap: fc.boolean(),
    gas: fc.boolean(),
  })
  .map(({ address, fills, orders, canceled, volume, twap, gas }): ClassifiedWallet => {
    const metrics = metricsOf(
      fills ? { fills, buy_volume: volume, sell_volume: 0 } : undefined,
      orders ? { orders, canceled: Math.min(canceled, orders) } : undefined,
      twap || gas ? { twap_fills: twap ? 1 : 0, priority_gas: gas ? 0.1 : 0 } : undefined,
    );
    return { address, class: classOf(metrics), metrics, period: '24h' };
  });
const request = fc.record({
  min_orders: fc.integer({ min: 0, max: 300 }),
  min_volume_usd: fc.double({ min: 0, max: 1e7, noNaN: true }),
  uses_twap: fc.option(fc.boolean(), { nil: undefined }),
  uses_priority_gas: fc.option(fc.boolean(), { nil: undefined }),
  min_cancel_rate: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  max_cancel_rate: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
});

describe('filters and sort', () => {
  it('keeps exactly the wallets meeting every filter given', () => {
    fc.assert(
      fc.property(fc.array(wallet, { maxLength: 30 }), request, (wallets, filters) => {
        const req = { family: 'perpx', sort: 'total_orders', order: 'desc', limit: 100, offset: 0, ...filters } as ClassifyRequest;
        for (const w of wallets) {
          const m = w.metrics;
          const rate = m.cancel_rate;
          const expected =
            m.total_orders >= req.min_orders
            && m.total_volume_usd >= req.min_volume_usd
            && (req.uses_twap === undefined || m.uses_twap === req.uses_twap)
            && (req.uses_priority_gas === undefined || m.uses_priority_gas === req.uses_priority_gas)
            && (req.min_cancel_rate === undefined || (rate !== undefined && rate >= req.min_cancel_rate))
            && (req.max_cancel_rate === undefined || (rate !== undefined && rate <= req.max_cancel_rate));
          expect(matches(w, req)).toBe(expected);
        }
      }),
    );
  });

  it('orders by the metric, absent values last, ties by address, in either direction', () => {
    const sorts = Object.keys(WALLET_SORTS) as WalletSort[];
    fc.assert(
      fc.property(fc.array(wallet, { maxLength: 30 }), fc.constantFrom(...sorts), fc.constantFrom('asc' as const, 'desc' as const), (wallets, sort, order) => {
        const sorted = sortWallets([...wallets], sort, order);
        const key = WALLET_SORTS[sort];
        for (const [a, b] of sorted.slice(1).map((w, i) => [sorted[i]!, w] as const)) {
          const [x, y] = [a.metrics[key], b.metrics[key]];
          if (x === undefined) expect(y).toBeUndefined();
          else if (y !== undefined && x !== y) expect(order === 'asc' ? x < y : x > y).toBe(true);
          else if (x === y) expect(a.address <= b.address).toBe(true);
        }
      }),
    );
  });

  it('reads the day: yesterday by default, a calendar date as given, and refuses a date that is not one', () => {
    const now = Date.UTC(2026, 10, 29, 15);
    expect(dayOf(undefined, now)).toEqual({ from: Date.UTC(2026, 10, 28), to: Date.UTC(2026, 10, 29) - 1, date: '2026-11-28' });
    expect(dayOf('2026-02-28', now).from).toBe(Date.UTC(2026, 1, 28));
    expect(() => dayOf('2026-02-30', now)).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
  });
});
