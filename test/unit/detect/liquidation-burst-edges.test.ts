/**
 * market.liquidation_burst judges only the minute ends that can be an edge (so the estimate can run
 * it over 30 days): the same events as judging every minute end of the window, the rule as the
 * spec words it, on generated fills, windows, thresholds and references.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { liquidationBursts, type BurstParams, type BurstRow } from '#core/events/market.liquidation_burst.ts';
import { MIN_DENOMINATOR_USD, type MarketReference } from '#core/events/kit/relative-metrics.ts';
import type { Family } from '#core/venues.ts';

const MINUTE = 60_000;
const FROM = Date.parse('2026-09-01T10:00:00Z');
const TO = FROM + 3 * 60 * MINUTE;

/** Every minute end of [from, to): over the threshold there and not at the minute end before. */
function everyMinuteEnd(
  rows: readonly BurstRow[],
  from: number,
  to: number,
  params: BurstParams,
  reference: (family: Family, symbol: string, at: number) => MarketReference | undefined,
) {
  const found: { key: string; usd: number; count: number }[] = [];
  for (const symbol of [...new Set(rows.map((r) => r.symbol))].sort()) {
    const series = rows.filter((r) => r.symbol === symbol).sort((a, b) => a.ts - b.ts);
    const over = (end: number) => {
      const inside = series.filter((r) => r.ts > end - params.window_s * 1000 && r.ts <= end);
      const usd = inside.reduce((sum, r) => sum + Number(r.price) * Number(r.size), 0);
      const ref = reference('perpx', symbol, end);
      const denominator = params.threshold_mode === 'pct_oi' ? ref?.openInterestUsd : ref?.volume1hUsd;
      const value = params.threshold_mode === 'usd' ? usd : denominator == null || denominator < MIN_DENOMINATOR_USD ? null : (usd / denominator) * 100;
      return { usd, count: inside.length, over: value !== null && value >= (params.threshold_mode === 'usd' ? params.threshold_usd : params.threshold_pct) };
    };
    for (let end = Math.ceil(from / MINUTE) * MINUTE; end < to; end += MINUTE) {
      const now = over(end);
      if (now.over && !over(end - MINUTE).over) found.push({ key: `${symbol}@${end}`, usd: Math.round(now.usd * 100) / 100, count: now.count });
    }
  }
  return found;
}

const rowsArb = fc.array(
  fc.record({
    // Fills crowd into a few clusters, so windows fill and empty again.
    at: fc.oneof(
      fc.integer({ min: -65 * 60, max: 185 * 60 }),
      fc.integer({ min: 0, max: 40 }).map((s) => 45 * 60 + s * 7),
      fc.constantFrom(0, 60, 120, 3_600),
    ),
    dollars: fc.integer({ min: 1, max: 400 }).map((d) => d * 1_000),
    symbol: fc.constantFrom('BTC', 'ETH'),
  }),
  { maxLength: 60 },
);
const paramsArb = fc.record({
  window_s: fc.constantFrom(60, 300, 900, 3600),
  threshold_mode: fc.constantFrom('usd', 'pct_oi', 'pct_volume_1h'),
  threshold_usd: fc.integer({ min: 1, max: 1_500 }).map((k) => k * 1_000),
  threshold_pct: fc.constantFrom(0.01, 0.5, 1, 5, 50),
});
// References that change from minute to minute (and sometimes fall under the 10,000 USD floor).
const reference = (_family: Family, symbol: string, at: number): MarketReference | undefined => {
  const k = (at / MINUTE + symbol.length) % 13;
  return k === 0 ? undefined : { volume1hUsd: k * 400_000, volume24hUsd: 0, openInterestUsd: k === 5 ? 5_000 : k * 1_000_000, at };
};

describe('liquidationBursts', () => {
  it('finds the events judging every minute end would, judging only the ends that can be an edge', () => {
    fc.assert(
      fc.property(rowsArb, paramsArb, (fills, params) => {
        const rows: BurstRow[] = fills.map((f) => ({ family: 'perpx', symbol: f.symbol, ts: FROM + f.at * 1_000, price: String(f.dollars), size: '1' }));
        const events = liquidationBursts(rows, FROM, TO, [params], reference).map((e) => ({
          key: `${e.symbol}@${e.occurredAt}`,
          usd: e.metrics.notional_usd,
          count: e.metrics.liquidation_count,
        }));
        expect(events.sort((a, b) => a.key.localeCompare(b.key))).toEqual(
          everyMinuteEnd(rows, FROM, TO, params, reference).sort((a, b) => a.key.localeCompare(b.key)),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('counts the fills a folded row stands for', () => {
    const rows: BurstRow[] = [{ family: 'perpx', symbol: 'BTC', ts: FROM + 10_000, price: 1_500_000, size: 1, fills: 7 }];
    const [event] = liquidationBursts(rows, FROM, TO, [{ window_s: 300, threshold_mode: 'usd', threshold_usd: 1_000_000, threshold_pct: 1 }], () => undefined);
    expect(event!.metrics).toMatchObject({ notional_usd: 1_500_000, liquidation_count: 7 });
  });
});
