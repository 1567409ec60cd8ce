/**
 * The level maps' pure parts (core/market/levels.ts, trigger-levels.ts, liquidation-levels.ts):
 * every point in range lands in exactly one bucket whose edges hold it, the totals are the sums of
 * the levels, a resting trigger is one whose newest event is its placement, and a projected
 * liquidation price is where equity meets the maintenance margin.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bucketIndex, bucketPoints, levelGrid, type LevelPoint } from '#core/market/levels.ts';
import { quarterHours, restingAt, triggerMap, type TriggerEvent } from '#core/market/trigger-levels.ts';
import { liquidationMap, liquidationPrice } from '#core/market/liquidation-levels.ts';

const point = fc.record({
  price: fc.double({ min: 1, max: 200, noNaN: true }),
  side: fc.constantFrom<'B' | 'A'>('B', 'A'),
  weight: fc.double({ min: 0.001, max: 1000, noNaN: true }),
});

describe('bucketPoints', () => {
  it('puts each point within range_pct of the mid in the one bucket whose edges hold it, and none outside', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 50, max: 150, noNaN: true }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 10, max: 200 }),
        fc.array(point, { maxLength: 80 }),
        (mid, rangePct, buckets, points) => {
          const grid = levelGrid(mid, rangePct, buckets);
          const sums = bucketPoints(grid, points);
          expect(sums).toHaveLength(buckets);
          const low = mid * (1 - rangePct / 100);
          const high = mid * (1 + rangePct / 100);
          const inRange = points.filter((p) => p.price >= low && p.price <= high * (1 - 1e-12));
          expect(sums.reduce((n, s) => n + s.bidCount + s.askCount, 0)).toBeGreaterThanOrEqual(inRange.length);
          expect(sums.reduce((n, s) => n + s.bidCount + s.askCount, 0)).toBeLessThanOrEqual(
            points.filter((p) => p.price >= low && p.price <= high * (1 + 1e-12)).length,
          );
          for (const p of inRange) {
            const i = bucketIndex(grid, p.price)!;
            expect(p.price).toBeGreaterThanOrEqual(grid.low + i * grid.width - 1e-9);
            expect(p.price).toBeLessThanOrEqual(grid.low + (i + 1) * grid.width + 1e-9);
          }
          for (const s of sums) expect(s.centre).toBeGreaterThan(low - 1e-9);
          expect(sums.map((s) => s.centre)).toEqual([...sums.map((s) => s.centre)].sort((a, b) => a - b));
        },
      ),
    );
  });

  it('zeroes the side a filter drops, whatever it is called', () => {
    const points: LevelPoint[] = [
      { price: 100, side: 'B', weight: 2 },
      { price: 101, side: 'A', weight: 3 },
    ];
    const grid = levelGrid(100, 10, 10);
    for (const side of ['bid', 'buy', 'B'] as const) {
      const sums = bucketPoints(grid, points, side);
      expect(sums.reduce((n, s) => n + s.askCount + s.askWeight, 0)).toBe(0);
      expect(sums.reduce((n, s) => n + s.bidWeight, 0)).toBe(2);
    }
    for (const side of ['ask', 'sell', 'A'] as const) {
      const sums = bucketPoints(grid, points, side);
      expect(sums.reduce((n, s) => n + s.bidCount + s.bidWeight, 0)).toBe(0);
      expect(sums.reduce((n, s) => n + s.askWeight, 0)).toBe(3);
    }
  });
});

describe('trigger levels', () => {
  const event = fc.record({
    dt: fc.integer({ min: 0, max: 600_000 }),
    oid: fc.integer({ min: 1, max: 12 }),
    event: fc.constantFrom('placed', 'placed', 'triggered', 'canceled', 'filled', 'force_canceled'),
    side: fc.constantFrom<'B' | 'A'>('B', 'A'),
    size: fc.integer({ min: 1, max: 100 }),
    trigger_price: fc.integer({ min: 90, max: 110 }),
  });

  it('rests an order from its placement until its next event, at every instant', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), fc.uniqueArray(fc.integer({ min: 0, max: 700_000 }), { maxLength: 8 }), (raw, rawInstants) => {
        const events: TriggerEvent[] = raw.map((e) => ({ ...e, ts: e.dt })).sort((a, b) => a.ts - b.ts);
        const instants = [...rawInstants].sort((a, b) => a - b);
        const resting = restingAt(events, instants);
        for (const t of instants) {
          // Model: an oid rests when its newest event at or before t is a placement.
          const newest = new Map<number, TriggerEvent>();
          for (const e of events) if (e.ts <= t) newest.set(e.oid, e);
          const model = [...newest.values()]
            .filter((e) => e.event === 'placed')
            .map((e) => `${e.side}${e.trigger_price}x${e.size}`)
            .sort();
          expect(
            resting
              .get(t)!
              .map((p) => `${p.side}${p.price}x${p.weight}`)
              .sort(),
          ).toEqual(model);
        }
      }),
    );
  });

  it('makes the totals the sums of the levels served', () => {
    fc.assert(
      fc.property(fc.array(point, { maxLength: 60 }), fc.integer({ min: 1, max: 50 }), (points, rangePct) => {
        const map = triggerMap(100, points, { range_pct: rangePct, buckets: 20 });
        expect(map.total_bid_size).toBeCloseTo(
          map.levels.reduce((n, l) => n + l.bid_size, 0),
          6,
        );
        expect(map.total_ask_size).toBeCloseTo(
          map.levels.reduce((n, l) => n + l.ask_size, 0),
          6,
        );
      }),
    );
  });

  it('snapshots on the quarter hours of the window, ends included', () => {
    const h = Date.UTC(2026, 8, 1, 10);
    expect(quarterHours(h, h + 30 * 60_000)).toEqual([h, h + 900_000, h + 1_800_000]);
    expect(quarterHours(h + 1, h + 899_999)).toEqual([]);
  });
});

describe('liquidation levels', () => {
  it('projects the price where equity (isolated at max leverage) meets the maintenance margin (half the initial margin at max leverage)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 1000, noNaN: true }),
        fc.boolean(),
        fc.double({ min: 1, max: 100_000, noNaN: true }),
        fc.integer({ min: 1, max: 50 }),
        (abs, long, entry, maxLeverage) => {
          const size = long ? abs : -abs;
          const liq = liquidationPrice(size, entry, maxLeverage)!;
          const margin = (abs * entry) / maxLeverage;
          const equity = margin + size * (liq - entry);
          const maintenance = (abs * liq) / (2 * maxLeverage);
          expect(Math.abs(equity - maintenance)).toBeLessThanOrEqual(1e-9 * abs * entry);
          // A long is liquidated below its entry, a short above.
          expect(long ? liq < entry : liq > entry).toBe(true);
        },
      ),
    );
  });

  it('gives 40x longs 1/79 below entry and shorts 1/81 above (worked example)', () => {
    expect(liquidationPrice(1, 79_000, 40)).toBeCloseTo(78_000, 6);
    expect(liquidationPrice(-2, 81_000, 40)).toBeCloseTo(82_000, 6);
  });

  it('has no price without an entry price or max leverage; such notional is flagged and out of the buckets and totals', () => {
    expect(liquidationPrice(1, null, 40)).toBeUndefined();
    expect(liquidationPrice(1, 100, null)).toBeUndefined();
    // A 1x long is never liquidated: not at risk, not flagged.
    expect(liquidationPrice(1, 100, 1)).toBe(0);
    expect(liquidationMap(100, [{ size: 1, entry_price: 100, max_leverage: 1 }], { range_pct: 10, buckets: 10 })).toMatchObject({
      total_long: 0,
      flagged_notional: 0,
    });
    const map = liquidationMap(
      100,
      [
        { size: 2, entry_price: null, max_leverage: 10 },
        { size: -1, entry_price: 100, max_leverage: 10 },
      ],
      { range_pct: 10, buckets: 10 },
    );
    expect(map).toMatchObject({ flagged_notional: 200, total_long: 0, total_short: 100 });
    expect(map.levels.reduce((n, l) => n + l.long_count + l.short_count, 0)).toBe(1);
  });

  it('counts every position with a liquidation price in the totals, and the levels never exceed them', () => {
    const position = fc.record({
      size: fc.double({ min: -50, max: 50, noNaN: true }).filter((x) => Math.abs(x) > 1e-6),
      entry_price: fc.double({ min: 50, max: 150, noNaN: true }),
      max_leverage: fc.integer({ min: 2, max: 50 }),
    });
    fc.assert(
      fc.property(fc.array(position, { maxLength: 50 }), fc.integer({ min: 1, max: 50 }), (positions, rangePct) => {
        const map = liquidationMap(100, positions, { range_pct: rangePct, buckets: 25 });
        const longs = positions.filter((p) => p.size > 0).reduce((n, p) => n + Math.abs(p.size) * 100, 0);
        const shorts = positions.filter((p) => p.size < 0).reduce((n, p) => n + Math.abs(p.size) * 100, 0);
        expect(map.total_long).toBeCloseTo(longs, 4);
        expect(map.total_short).toBeCloseTo(shorts, 4);
        expect(map.levels.reduce((n, l) => n + l.long_notional, 0)).toBeLessThanOrEqual(map.total_long + 1e-6);
        expect(map.levels.reduce((n, l) => n + l.short_notional, 0)).toBeLessThanOrEqual(map.total_short + 1e-6);
        expect(map.levels.reduce((n, l) => n + l.long_count + l.short_count, 0)).toBeLessThanOrEqual(positions.length);
      }),
    );
  });
});
