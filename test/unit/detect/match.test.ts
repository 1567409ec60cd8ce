import { describe, expect, it } from 'vitest';
import { holds, matches } from '#core/detect/match.ts';
import type { Candidate, MetricValue } from '#core/events/kit/candidate.ts';
import { EVENT_TYPE_BY_NAME } from '#core/webhooks/catalog.ts';
import type { Venue } from '#core/events/declare.ts';
import { normalizeConfig, type Condition } from '#core/webhooks/filters.ts';

const decl = (type: string) => EVENT_TYPE_BY_NAME.get(type)!;
const none = new Set<string>();
const ALICE = `0x${'a1'.repeat(20)}`;
const BOB = `0x${'b2'.repeat(20)}`;
const T = Date.UTC(2026, 10, 18, 12, 0, 0);

/** The configuration exactly as the management API stores it. */
const stored = (type: string, filters: unknown, watched: ReadonlySet<string> = none) => normalizeConfig(decl(type), filters, watched);

function candidate(overrides: Partial<Candidate> & { type: string }): Candidate {
  return {
    key: `k:${overrides.type}`,
    occurredAt: T,
    venue: 'perpx',
    symbol: 'BTC',
    address: null,
    metrics: {},
    data: {},
    ...overrides,
  };
}

const liquidation = (notional: number, extra: Partial<Candidate> = {}, metrics: Record<string, MetricValue> = {}) =>
  candidate({
    type: 'market.liquidation',
    ...extra,
    metrics: {
      venue: extra.venue ?? 'perpx',
      symbol: extra.symbol ?? 'BTC',
      timestamp: new Date(T).toISOString(),
      notional_usd: notional,
      side: 'long',
      ...metrics,
    },
  });

const fill = (address: string, extra: Partial<Candidate> = {}) =>
  candidate({
    type: 'account.fill',
    address,
    ...extra,
    metrics: { venue: extra.venue ?? 'perpx', symbol: extra.symbol ?? 'BTC', address, side: 'buy', notional_usd: 5_000, taker: true, fill_count: 1 },
  });

const settlement = (notional: number) =>
  candidate({
    type: 'hip4.settlement',
    venue: 'hip4',
    symbol: '#10',
    metrics: { venue: 'hip4', symbol: '#10', notional_usd: notional, resolution: 'yes' },
  });

const cond = (op: string, value?: unknown): Condition => ({ metric: 'm', op, ...(value !== undefined && { value }) });

describe('holds, number operators', () => {
  it('compares with greater_than and greater_than_or_equal at the boundary', () => {
    // Prepare
    const gt = cond('greater_than', 100);
    const gte = cond('greater_than_or_equal', 100);

    // Act
    const results = [holds(gt, 100), holds(gt, 100.01), holds(gte, 100), holds(gte, 99.99)];

    // Assess
    expect(results).toEqual([false, true, true, false]);
  });

  it('compares with less_than and less_than_or_equal at the boundary', () => {
    const lt = cond('less_than', 100);
    const lte = cond('less_than_or_equal', 100);

    const results = [holds(lt, 100), holds(lt, 99.99), holds(lte, 100), holds(lte, 100.01)];

    expect(results).toEqual([false, true, true, false]);
  });

  it('tells equal from not_equal', () => {
    const results = [holds(cond('equal', 5), 5), holds(cond('equal', 5), 6), holds(cond('not_equal', 5), 5), holds(cond('not_equal', 5), 6)];

    expect(results).toEqual([true, false, false, true]);
  });

  it('includes both bounds in between and excludes them from not_between', () => {
    const between = cond('between', [10, 20]);
    const outside = cond('not_between', [10, 20]);

    const inside = [9.99, 10, 15, 20, 20.01].map((v) => holds(between, v));
    const notInside = [9.99, 10, 15, 20, 20.01].map((v) => holds(outside, v));

    expect(inside).toEqual([false, true, true, true, false]);
    expect(notInside).toEqual([true, false, false, false, true]);
  });

  it('checks membership with in and not_in', () => {
    const results = [
      holds(cond('in', [1, 2, 3]), 2),
      holds(cond('in', [1, 2, 3]), 4),
      holds(cond('not_in', [1, 2, 3]), 2),
      holds(cond('not_in', [1, 2, 3]), 4),
    ];

    expect(results).toEqual([true, false, false, true]);
  });
});

describe('holds, text operators', () => {
  it('matches substrings with contains and not_contains, case-sensitively', () => {
    const results = [
      holds(cond('contains', 'TSLA'), 'xyz:TSLA'),
      holds(cond('contains', 'tsla'), 'xyz:TSLA'),
      holds(cond('not_contains', 'TSLA'), 'xyz:TSLA'),
      holds(cond('not_contains', 'NVDA'), 'xyz:TSLA'),
    ];

    expect(results).toEqual([true, false, false, true]);
  });

  it('matches prefixes with starts_with and suffixes with ends_with', () => {
    const results = [
      holds(cond('starts_with', 'xyz:'), 'xyz:TSLA'),
      holds(cond('starts_with', 'TSLA'), 'xyz:TSLA'),
      holds(cond('ends_with', ':TSLA'), 'xyz:TSLA'),
      holds(cond('ends_with', 'xyz'), 'xyz:TSLA'),
    ];

    expect(results).toEqual([true, false, true, false]);
  });

  it('checks text membership with in, exactly', () => {
    const results = [holds(cond('in', ['BTC', 'ETH']), 'ETH'), holds(cond('in', ['BTC', 'ETH']), 'eth'), holds(cond('in', ['BTC', 'ETH']), 'SOL')];

    expect(results).toEqual([true, false, false]);
  });

  it('compares text with equal and not_equal', () => {
    const results = [holds(cond('equal', 'long'), 'long'), holds(cond('equal', 'long'), 'short'), holds(cond('not_equal', 'long'), 'short')];

    expect(results).toEqual([true, false, true]);
  });
});

describe('holds, boolean and timestamp operators', () => {
  it('compares booleans with equal', () => {
    const results = [holds(cond('equal', true), true), holds(cond('equal', true), false), holds(cond('equal', false), false)];

    expect(results).toEqual([true, false, true]);
  });

  it('orders RFC 3339 times with before and after across offsets', () => {
    const at = '2026-11-18T12:00:00.000Z';

    const results = [
      holds(cond('before', '2026-11-18T13:30:00+01:00'), at), // 12:30Z: later than the value
      holds(cond('before', '2026-11-18T12:30:00+01:00'), at), // 11:30Z: earlier
      holds(cond('after', '2026-11-18T12:30:00+01:00'), at),
      holds(cond('after', '2026-11-18T12:00:00Z'), at), // the same instant is not after
    ];

    expect(results).toEqual([true, false, true, false]);
  });

  it('treats the same instant written with different offsets as equal', () => {
    const at = '2026-11-18T12:00:00.000Z';

    const results = [
      holds(cond('equal', '2026-11-18T14:00:00+02:00'), at),
      holds(cond('equal', '2026-11-18T07:00:00-05:00'), at),
      holds(cond('equal', '2026-11-18T12:00:01Z'), at),
    ];

    expect(results).toEqual([true, true, false]);
  });
});

describe('holds, emptiness and null values', () => {
  it('sees null, undefined and the empty string as empty', () => {
    const empty = [null, undefined, '', 'x', 0, false].map((v) => holds(cond('is_empty'), v));
    const notEmpty = [null, undefined, '', 'x', 0, false].map((v) => holds(cond('is_not_empty'), v));

    expect(empty).toEqual([true, true, true, false, false, false]);
    expect(notEmpty).toEqual([false, false, false, true, true, true]);
  });

  it('never holds on a null value, not even for negated operators', () => {
    const conditions = [
      cond('greater_than', -1),
      cond('greater_than_or_equal', 0),
      cond('less_than', 1),
      cond('less_than_or_equal', 0),
      cond('equal', 0),
      cond('not_equal', 0),
      cond('between', [-1, 1]),
      cond('not_between', [1, 2]),
      cond('in', [0]),
      cond('not_in', [1]),
      cond('contains', ''),
      cond('not_contains', 'x'),
      cond('starts_with', ''),
      cond('ends_with', ''),
      cond('before', '2100-01-01T00:00:00Z'),
      cond('after', '2000-01-01T00:00:00Z'),
      cond('is_not_empty'),
    ];

    const results = conditions.map((c) => holds(c, null));

    expect(results.every((r) => r === false)).toBe(true);
    expect(holds(cond('is_empty'), null)).toBe(true);
  });
});

describe('matches, venue and symbol scope', () => {
  it('delivers every venue when venue is absent, and only the listed venues when present', () => {
    // Prepare
    const anyVenue = stored('market.liquidation', {});
    const hip3Only = stored('market.liquidation', { venue: 'HIP3' });
    const onPerpx = liquidation(5_000);
    const onHip3 = liquidation(5_000, { venue: 'hip3' as Venue, symbol: 'xyz:TSLA' });

    // Act
    const results = [
      matches(decl('market.liquidation'), anyVenue, onPerpx),
      matches(decl('market.liquidation'), anyVenue, onHip3),
      matches(decl('market.liquidation'), hip3Only, onPerpx),
      matches(decl('market.liquidation'), hip3Only, onHip3),
    ];

    // Assess
    expect(results).toEqual([true, true, false, true]);
  });

  it('matches symbols exactly in their venue-native form', () => {
    const tsla = stored('market.liquidation', { symbols: ['xyz:TSLA'] });
    const bare = stored('market.liquidation', { symbols: ['TSLA'] });
    const onTsla = liquidation(5_000, { venue: 'hip3', symbol: 'xyz:TSLA' });
    const onBtc = liquidation(5_000);

    expect(matches(decl('market.liquidation'), tsla, onTsla)).toBe(true);
    expect(matches(decl('market.liquidation'), tsla, onBtc)).toBe(false);
    expect(matches(decl('market.liquidation'), bare, onTsla)).toBe(false);
  });

  it('does not match a candidate without a symbol when the rule names symbols', () => {
    const config = stored('market.liquidation', { symbols: ['BTC'] });

    const result = matches(decl('market.liquidation'), config, liquidation(5_000, { symbol: null }));

    expect(result).toBe(false);
  });
});

describe('matches, addresses scope of account.fill', () => {
  const watched = new Set([ALICE, BOB]);

  it('delivers fills of any watched address when the rule names none', () => {
    const config = stored('account.fill', {}, watched);

    const results = [matches(decl('account.fill'), config, fill(ALICE), watched), matches(decl('account.fill'), config, fill(BOB), watched)];

    expect(results).toEqual([true, true]);
  });

  it('delivers only the named addresses when the rule names some', () => {
    const config = stored('account.fill', { addresses: [ALICE.toUpperCase().replace('0X', '0x')] }, watched);

    const results = [matches(decl('account.fill'), config, fill(ALICE), watched), matches(decl('account.fill'), config, fill(BOB), watched)];

    expect(results).toEqual([true, false]);
  });

  it('does not deliver for an address that is no longer watched, even one the rule names', () => {
    const config = stored('account.fill', { addresses: [ALICE] }, watched);
    const nowWatched = new Set([BOB]);

    const result = matches(decl('account.fill'), config, fill(ALICE), nowWatched);

    expect(result).toBe(false);
  });

  it('does not deliver an account event without a watched set or without an address', () => {
    const config = stored('account.fill', {}, watched);

    expect(matches(decl('account.fill'), config, fill(ALICE))).toBe(false);
    expect(matches(decl('account.fill'), config, { ...fill(ALICE), address: null }, watched)).toBe(false);
  });
});

describe('matches, cost floors', () => {
  it('never delivers a liquidation under 100 USD, even to a rule without conditions', () => {
    const config = stored('market.liquidation', {});

    expect(matches(decl('market.liquidation'), config, liquidation(99.99))).toBe(false);
    expect(matches(decl('market.liquidation'), config, liquidation(100))).toBe(true);
  });

  it('does not let a lower min_notional_usd go under the liquidation floor', () => {
    const config = stored('market.liquidation', { min_notional_usd: 10 });

    expect(matches(decl('market.liquidation'), config, liquidation(50))).toBe(false);
  });

  it('gives a hip4.settlement rule without a notional bound 1,000 USD and up', () => {
    const config = stored('hip4.settlement', {});

    expect(matches(decl('hip4.settlement'), config, settlement(999))).toBe(false);
    expect(matches(decl('hip4.settlement'), config, settlement(1_000))).toBe(true);
  });

  it('lets a hip4.settlement rule with min_notional_usd go under 1,000 USD but not under its own bound', () => {
    const config = stored('hip4.settlement', { min_notional_usd: 600 });

    expect(matches(decl('hip4.settlement'), config, settlement(700))).toBe(true);
    expect(matches(decl('hip4.settlement'), config, settlement(550))).toBe(false);
  });

  it('keeps the 500 USD scan floor of hip4.settlement under a looser min_notional_usd', () => {
    const config = stored('hip4.settlement', { min_notional_usd: 100 });

    expect(matches(decl('hip4.settlement'), config, settlement(499))).toBe(false);
    expect(matches(decl('hip4.settlement'), config, settlement(500))).toBe(true);
  });

  it('never passes a floor whose metric is missing or not a number', () => {
    const config = stored('market.liquidation', {});
    const missing = candidate({ type: 'market.liquidation', metrics: {} });
    const text = candidate({ type: 'market.liquidation', metrics: { notional_usd: '5000' } });

    expect(matches(decl('market.liquidation'), config, missing)).toBe(false);
    expect(matches(decl('market.liquidation'), config, text)).toBe(false);
  });
});

describe('matches, conditions', () => {
  it('applies the min_notional_usd shorthand as a lower bound on the notional metric', () => {
    const config = stored('market.liquidation', { min_notional_usd: 50_000 });

    expect(matches(decl('market.liquidation'), config, liquidation(49_999.99))).toBe(false);
    expect(matches(decl('market.liquidation'), config, liquidation(50_000))).toBe(true);
  });

  it('never fires a condition on a relative metric that is null', () => {
    const config = stored('market.liquidation', { conditions: [{ metric: 'notional_pct_oi', op: '<', value: 100 }] });
    const withoutReference = liquidation(5_000, {}, { notional_pct_oi: null });
    const withReference = liquidation(5_000, {}, { notional_pct_oi: 0.5 });

    expect(matches(decl('market.liquidation'), config, withoutReference)).toBe(false);
    expect(matches(decl('market.liquidation'), config, withReference)).toBe(true);
  });

  it('requires every condition to hold', () => {
    const config = stored('market.liquidation', {
      conditions: [
        { metric: 'notional_usd', op: '>=', value: 1_000 },
        { metric: 'side', op: '==', value: 'short' },
      ],
    });

    expect(matches(decl('market.liquidation'), config, liquidation(5_000, {}, { side: 'short' }))).toBe(true);
    expect(matches(decl('market.liquidation'), config, liquidation(5_000, {}, { side: 'long' }))).toBe(false);
    expect(matches(decl('market.liquidation'), config, liquidation(500, {}, { side: 'short' }))).toBe(false);
  });

  it('does not match a candidate of another type', () => {
    const config = stored('market.liquidation', {});
    const liquidated = { ...liquidation(5_000), type: 'account.liquidated', address: ALICE };

    const result = matches(decl('market.liquidation'), config, liquidated, new Set([ALICE]));

    expect(result).toBe(false);
  });
});
