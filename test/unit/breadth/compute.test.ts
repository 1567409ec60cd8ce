import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { computeBreadth, STALE_AFTER_MS, type SessionStats } from '#core/breadth/compute.ts';

const MIN = 60_000;
const CUTOFF = Date.UTC(2026, 10, 21, 15, 30);

const market = fc.record({
  dex: fc.constantFrom('xyz', 'km', 'flx'),
  hasVolume: fc.boolean(),
  base: fc.double({ min: 0.001, max: 1e6, noNaN: true }),
  vwap: fc.double({ min: 0.0001, max: 1e5, noNaN: true }),
  closeVsVwap: fc.constantFrom(-1, 0, 1),
  minutesSinceClose: fc.integer({ min: 0, max: 30 }),
});

function build(markets: ReturnType<typeof market.generate>['value'][]) {
  const candidates: string[] = [];
  const stats = new Map<string, SessionStats>();
  markets.forEach((m, i) => {
    const symbol = `${m.dex}:C${i}`;
    candidates.push(symbol);
    if (!m.hasVolume) return;
    const lastClose = m.closeVsVwap === 0 ? m.vwap : m.vwap * (1 + m.closeVsVwap * 0.01);
    stats.set(symbol, { quoteVolume: m.vwap * m.base, baseVolume: m.base, lastClose, lastCandleTs: CUTOFF - MIN - m.minutesSinceClose * MIN });
  });
  return { candidates, stats };
}

describe('computeBreadth invariants (property-based)', () => {
  it('classifies every candidate exactly once, for any market', () => {
    fc.assert(
      fc.property(fc.array(market, { maxLength: 300 }), fc.constantFrom('perpx' as const, 'hip3' as const), (markets, family) => {
        const { candidates, stats } = build(markets);
        const s = computeBreadth(family, CUTOFF, candidates, stats);
        const c = s.counts;
        expect(c.above + c.at + c.below).toBe(c.eligible);
        expect(c.eligible + c.excluded_no_session_volume + c.excluded_stale_price).toBe(c.candidates);
        expect(s.value_pct === null).toBe(c.eligible === 0);
        if (s.value_pct !== null) expect(s.value_pct).toBeCloseTo((100 * c.above) / c.eligible, 4);
        expect(s.coverage_ratio).toBeGreaterThanOrEqual(0);
        expect(s.coverage_ratio).toBeLessThanOrEqual(1);
        const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
        if (family === 'hip3') {
          expect(sum(s.namespaces.eligible)).toBe(c.eligible);
          expect(sum(s.namespaces.above) + sum(s.namespaces.at) + sum(s.namespaces.below)).toBe(c.eligible);
          for (const map of Object.values(s.namespaces)) expect(Object.values(map).every((n) => n > 0)).toBe(true);
        } else {
          expect(s.namespaces).toEqual({ eligible: {}, above: {}, at: {}, below: {} });
        }
      }),
    );
  });
});

describe('computeBreadth edges', () => {
  const one = (stats: Partial<SessionStats>, cutoff = CUTOFF) =>
    computeBreadth(
      'perpx',
      cutoff,
      ['BTC'],
      new Map([
        [
          'BTC',
          {
            quoteVolume: 100,
            baseVolume: 1,
            lastClose: 100,
            lastCandleTs: cutoff - MIN,
            ...stats,
          },
        ],
      ]),
    );

  it('counts a close exactly at VWAP as at, and keeps it in the denominator', () => {
    const s = one({ lastClose: 100 });
    expect(s.counts).toMatchObject({ eligible: 1, at: 1, above: 0, below: 0 });
    expect(s.value_pct).toBe(0);
  });

  it('keeps a price whose last candle closed exactly 5 minutes ago and drops one a minute older', () => {
    expect(one({ lastCandleTs: CUTOFF - MIN - STALE_AFTER_MS }).counts.eligible).toBe(1);
    expect(one({ lastCandleTs: CUTOFF - 2 * MIN - STALE_AFTER_MS }).counts).toMatchObject({ eligible: 0, excluded_stale_price: 1 });
  });

  it('has eligible 0 and value_pct null at the 00:00 UTC reset', () => {
    const midnight = Date.UTC(2026, 10, 21);
    const s = computeBreadth('perpx', midnight, ['BTC', 'ETH'], new Map());
    expect(s).toMatchObject({
      session_date: '2026-11-21',
      value_pct: null,
      coverage_ratio: 0,
      counts: { candidates: 2, eligible: 0, excluded_no_session_volume: 2 },
    });
  });

  it('rounds value_pct to 4 decimals', () => {
    const stats = new Map<string, SessionStats>();
    const candidates = ['A', 'B', 'C'];
    candidates.forEach((sym, i) => {
      stats.set(sym, { quoteVolume: 100, baseVolume: 1, lastClose: i === 0 ? 101 : 99, lastCandleTs: CUTOFF - MIN });
    });
    expect(computeBreadth('perpx', CUTOFF, candidates, stats).value_pct).toBe(33.3333);
  });
});
