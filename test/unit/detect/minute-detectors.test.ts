import { describe, expect, it } from 'vitest';
import { matches } from '#core/detect/match.ts';
import { breadthCrosses, type BreadthPoint } from '#core/events/market.breadth_cross.ts';
import { fundingFlips } from '#core/events/market.funding_flip.ts';
import { listings } from '#core/events/market.listed.ts';
import { liquidationBursts, type BurstParams } from '#core/events/market.liquidation_burst.ts';
import { oiDeltas } from '#core/events/market.oi_delta.ts';
import { oracleJumps } from '#core/events/oracle.jump.ts';
import { paramSets } from '#core/detect/minute-run.ts';
import type { ActiveRule } from '#core/detect/dispatch.ts';
import type { MarketReference } from '#core/events/kit/relative-metrics.ts';
import type { Family } from '#core/venues.ts';
import { EVENT_TYPE_BY_NAME } from '#core/webhooks/catalog.ts';
import { normalizeConfig } from '#core/webhooks/filters.ts';
import type { FundingRecord, InstrumentRecord, LiquidationRecord, OpenInterestRecord } from '#schemas/datasets.ts';
import { T0 } from '#test/helpers/records.ts';

const MIN = 60_000;
const FROM = T0 + 60 * MIN;
const TO = FROM + 60 * MIN;
const ALICE = `0x${'a1'.repeat(20)}`;
const none = new Set<string>();
const decl = (type: string) => EVENT_TYPE_BY_NAME.get(type)!;

function funding(symbol: string, ts: number, rate: string, family: Family = 'perpx'): FundingRecord {
  return { dataset: 'funding', family, symbol, ts, funding_rate: rate, premium: null } as FundingRecord;
}

function instrument(overrides: Partial<InstrumentRecord> & { symbol: string; ts: number }): InstrumentRecord {
  return { dataset: 'instruments', family: 'perpx', market_type: 'perp', sz_decimals: 4, max_leverage: 20, ...overrides } as InstrumentRecord;
}

function oi(overrides: Partial<OpenInterestRecord> & { ts: number }): OpenInterestRecord {
  return {
    dataset: 'open_interest',
    family: 'perpx',
    symbol: 'BTC',
    open_interest: '10000',
    mark_price: '100',
    oracle_price: '100',
    ...overrides,
  } as OpenInterestRecord;
}

function liq(ts: number, usd: number, overrides: Partial<LiquidationRecord> = {}): LiquidationRecord {
  return {
    dataset: 'liquidations',
    family: 'perpx',
    symbol: 'BTC',
    ts,
    trade_id: ts,
    liquidated_user: ALICE,
    price: '1000',
    size: String(usd / 1000),
    side: 'A',
    ...overrides,
  } as LiquidationRecord;
}

const oracle = (ts: number, price: string, symbol = 'xyz:TSLA') => oi({ family: 'hip3', symbol, ts, oracle_price: price, mark_price: price });

describe('fundingFlips', () => {
  // Funding settles on the hour; the windows span several settlements.
  const HOUR = 60 * MIN;
  const UNTIL = FROM + 4 * HOUR;

  it('fires once, at the hourly rate whose sign differs from the previous hourly rate, with flipped_to and previous_rate', () => {
    // Prepare
    const rows = [
      funding('BTC', FROM, '0.0001'),
      funding('BTC', FROM + HOUR, '0.0002'),
      funding('BTC', FROM + 2 * HOUR, '-0.0001'),
      funding('BTC', FROM + 3 * HOUR, '-0.0003'),
    ];

    // Act
    const events = fundingFlips(rows, FROM, UNTIL);

    // Assess
    expect(events).toHaveLength(1);
    const [flip] = events;
    expect(flip!.type).toBe('market.funding_flip');
    expect(flip!.occurredAt).toBe(FROM + 2 * HOUR);
    expect(flip!.key).toBe(`flip:perpx:BTC:${FROM + 2 * HOUR}`);
    expect(flip!.metrics).toMatchObject({ venue: 'perpx', symbol: 'BTC', funding_rate: -0.0001, flipped_to: 'negative' });
    expect(flip!.data).toMatchObject({ previous_rate: 0.0002, flipped_to: 'negative', api_url: '/v1/perpx/instruments/BTC' });
  });

  it('reports a flip to positive as flipped_to positive', () => {
    // Prepare
    const rows = [funding('BTC', FROM + HOUR, '-0.0005'), funding('BTC', FROM + 2 * HOUR, '0.0003')];

    // Act
    const events = fundingFlips(rows, FROM, UNTIL);

    // Assess
    expect(events.map((e) => [e.metrics.flipped_to, e.data.previous_rate])).toEqual([['positive', -0.0005]]);
  });

  it('does not fire while the hourly sign stays the same', () => {
    // Prepare
    const rows = [funding('BTC', FROM, '0.0001'), funding('BTC', FROM + HOUR, '0.0009'), funding('BTC', FROM + 2 * HOUR, '0.00001')];

    // Act
    const events = fundingFlips(rows, FROM, UNTIL);

    // Assess
    expect(events).toEqual([]);
  });

  it('does not fire when either hourly rate is exactly 0', () => {
    // Prepare
    const rows = [
      funding('BTC', FROM, '0.0001'),
      funding('BTC', FROM + HOUR, '0'),
      funding('BTC', FROM + 2 * HOUR, '-0.0001'),
      funding('BTC', FROM + 3 * HOUR, '0.0'),
    ];

    // Act
    const events = fundingFlips(rows, FROM, UNTIL);

    // Assess
    expect(events).toEqual([]);
  });

  it('ignores minute predictions whose sign wobbles between two hours but fires when consecutive hourly rates change sign', () => {
    // Prepare
    const rows = [
      funding('BTC', FROM, '0.0001'),
      funding('BTC', FROM + 10 * MIN, '-0.00001'),
      funding('BTC', FROM + 20 * MIN, '0.00002'),
      funding('BTC', FROM + 59 * MIN, '-0.00003'),
      funding('BTC', FROM + HOUR, '0.0002'),
      funding('BTC', FROM + HOUR + 30 * MIN, '0.00005'),
      funding('BTC', FROM + 2 * HOUR - MIN, '0.00001'),
      funding('BTC', FROM + 2 * HOUR, '-0.0001'),
      funding('BTC', FROM + 2 * HOUR + MIN, '0.00004'),
    ];

    // Act
    const events = fundingFlips(rows, FROM, UNTIL);

    // Assess
    expect(events.map((e) => [e.occurredAt, e.metrics.flipped_to, e.data.previous_rate])).toEqual([[FROM + 2 * HOUR, 'negative', 0.0002]]);
  });

  it('ignores flips outside [from, to) but judges the first hourly rate inside against one before from', () => {
    // Prepare
    const before = [funding('BTC', FROM - 2 * HOUR, '0.0001'), funding('BTC', FROM - HOUR, '-0.0001')];
    const atTo = [funding('ETH', UNTIL - HOUR, '0.0001'), funding('ETH', UNTIL, '-0.0001')];
    const carried = [funding('SOL', FROM - HOUR, '0.0004'), funding('SOL', FROM, '-0.0002')];

    // Act
    const events = fundingFlips([...before, ...atTo, ...carried], FROM, UNTIL);

    // Assess
    expect(events.map((e) => [e.symbol, e.occurredAt, e.data.previous_rate])).toEqual([['SOL', FROM, 0.0004]]);
  });

  it('judges each symbol against its own previous hourly rate, whatever the order of the rows', () => {
    // Prepare
    const rows = [
      funding('ETH', FROM + 3 * HOUR, '-0.0002'),
      funding('BTC', FROM + 2 * HOUR, '-0.0001'),
      funding('BTC', FROM, '0.0001'),
      funding('ETH', FROM + HOUR, '-0.0001'),
    ];

    // Act
    const events = fundingFlips(rows, FROM, UNTIL);

    // Assess
    expect(events.map((e) => [e.symbol, e.occurredAt])).toEqual([['BTC', FROM + 2 * HOUR]]);
  });

  it('names the same flip with the same key on every run and over overlapping windows', () => {
    // Prepare
    const rows = [funding('xyz:TSLA', FROM + HOUR, '0.0001', 'hip3'), funding('xyz:TSLA', FROM + 2 * HOUR, '-0.0001', 'hip3')];

    // Act
    const first = fundingFlips(rows, FROM, UNTIL);
    const again = fundingFlips(rows, FROM, UNTIL);
    const wider = fundingFlips(rows, FROM - 3 * HOUR, UNTIL + 3 * HOUR);

    // Assess
    expect(first.map((e) => e.key)).toEqual([`flip:hip3:xyz:TSLA:${FROM + 2 * HOUR}`]);
    expect(again).toEqual(first);
    expect(wider.map((e) => e.key)).toEqual(first.map((e) => e.key));
  });
});

describe('listings', () => {
  it('fires once per instrument listed inside [from, to), keyed by family and symbol', () => {
    // Prepare
    const rows = [
      instrument({ symbol: 'BTC', ts: FROM }),
      instrument({ family: 'hip3', symbol: 'xyz:TSLA', ts: FROM + 5 * MIN, max_leverage: null }),
      instrument({ family: 'spot', symbol: 'HYPE-USDC', ts: TO - 1, market_type: 'spot' }),
    ];

    // Act
    const events = listings(rows, FROM, TO);

    // Assess
    expect(events.map((e) => [e.type, e.key, e.venue, e.symbol, e.occurredAt])).toEqual([
      ['market.listed', 'listed:perpx:BTC', 'perpx', 'BTC', FROM],
      ['market.listed', 'listed:hip3:xyz:TSLA', 'hip3', 'xyz:TSLA', FROM + 5 * MIN],
      ['market.listed', 'listed:spot:HYPE-USDC', 'spot', 'HYPE-USDC', TO - 1],
    ]);
    expect(events[0]!.data).toMatchObject({ market_type: 'perp', max_leverage: 20 });
    expect(events[1]!.data).toMatchObject({ max_leverage: null, api_url: '/v1/perpx/hip3/instruments/xyz%3ATSLA' });
  });

  it('gives a re-listed record the same key whatever its ts, so it dedupes', () => {
    // Prepare
    const first = instrument({ symbol: 'ETH', ts: FROM + MIN });
    const relisted = instrument({ symbol: 'ETH', ts: FROM + 40 * MIN });

    // Act
    const [a] = listings([first], FROM, TO);
    const [b] = listings([relisted], FROM, TO);

    // Assess
    expect(a!.key).toBe('listed:perpx:ETH');
    expect(b!.key).toBe(a!.key);
    expect(b!.occurredAt).not.toBe(a!.occurredAt);
  });

  it('skips outcome markets', () => {
    // Prepare
    const rows = [instrument({ family: 'hip4', symbol: '#10', ts: FROM + MIN, market_type: 'outcome' })];

    // Act
    const events = listings(rows, FROM, TO);

    // Assess
    expect(events).toEqual([]);
  });

  it('skips instruments listed before from or at to', () => {
    // Prepare
    const rows = [instrument({ symbol: 'OLD', ts: FROM - 1 }), instrument({ symbol: 'LATE', ts: TO })];

    // Act
    const events = listings(rows, FROM, TO);

    // Assess
    expect(events).toEqual([]);
  });
});

describe('oracleJumps', () => {
  it('fires when the move equals the threshold, with direction and change_pct', () => {
    // Prepare
    const rows = [oracle(FROM - MIN, '100'), oracle(FROM + MIN, '102')];

    // Act
    const events = oracleJumps(rows, FROM, TO, [2]);

    // Assess
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe('oracle.jump');
    expect(events[0]!.occurredAt).toBe(FROM + MIN);
    expect(events[0]!.metrics).toMatchObject({ venue: 'hip3', symbol: 'xyz:TSLA', dex: 'xyz', change_pct: 2, direction: 'up' });
    expect(events[0]!.data).toMatchObject({ prev_price: 100, price: 102, interval_s: 120, threshold_pct: 2 });
  });

  it('does not fire below the threshold', () => {
    // Prepare
    const rows = [oracle(FROM, '100'), oracle(FROM + MIN, '101.99'), oracle(FROM + 2 * MIN, '100.5')];

    // Act
    const events = oracleJumps(rows, FROM, TO, [2]);

    // Assess
    expect(events).toEqual([]);
  });

  it('fires a downward move past the threshold as direction down', () => {
    // Prepare
    const rows = [oracle(FROM, '100'), oracle(FROM + MIN, '97')];

    // Act
    const events = oracleJumps(rows, FROM, TO, [2]);

    // Assess
    expect(events.map((e) => [e.metrics.direction, e.metrics.change_pct])).toEqual([['down', -3]]);
  });

  it('gives one candidate per threshold the move reaches, each carrying its threshold_pct as params', () => {
    // Prepare
    const rows = [oracle(FROM, '100'), oracle(FROM + MIN, '106'), oracle(FROM + 2 * MIN, '109.18')];

    // Act
    const events = oracleJumps(rows, FROM, TO, [2, 5]);

    // Assess
    expect(events.map((e) => [e.occurredAt, e.params])).toEqual([
      [FROM + MIN, { threshold_pct: 2 }],
      [FROM + MIN, { threshold_pct: 5 }],
      [FROM + 2 * MIN, { threshold_pct: 2 }],
    ]);
  });

  it('delivers to a rule with threshold_pct 2 the 2% candidate and not the 5% one', () => {
    // Prepare
    const jump = decl('oracle.jump');
    const config = normalizeConfig(jump, { threshold_pct: 2 }, new Set());
    const events = oracleJumps([oracle(FROM, '100'), oracle(FROM + MIN, '106')], FROM, TO, [2, 5]);
    const at2 = events.find((e) => e.params?.threshold_pct === 2)!;
    const at5 = events.find((e) => e.params?.threshold_pct === 5)!;

    // Act
    const results = [matches(jump, config, at2), matches(jump, config, at5)];

    // Assess
    expect(results).toEqual([true, false]);
  });

  it('skips moves whose row lies outside [from, to)', () => {
    // Prepare
    const rows = [oracle(FROM - 2 * MIN, '100'), oracle(FROM - MIN, '110'), oracle(TO - MIN, '110'), oracle(TO, '120')];

    // Act
    const events = oracleJumps(rows, FROM, TO, [2]);

    // Assess
    expect(events).toEqual([]);
  });
});

describe('oiDeltas', () => {
  const params = [{ window_s: 300, threshold_pct: 10 }];
  /** One BTC row a minute from FROM - 10 min, open interest given by minute offset from FROM. */
  const series = (oiAt: (minute: number) => number, mark = '100') =>
    Array.from({ length: 31 }, (_, i) => i - 10).map((m) => oi({ ts: FROM + m * MIN, open_interest: String(oiAt(m)), mark_price: mark, oracle_price: '1' }));

  it('fires up once at the row that crosses the threshold and not again while it stays past it', () => {
    // Prepare
    const rows = series((m) => (m < 1 ? 10_000 : m === 1 ? 10_500 : 11_000));

    // Act
    const events = oiDeltas(rows, FROM, TO, params);

    // Assess
    expect(events.map((e) => [e.occurredAt, e.metrics.direction])).toEqual([[FROM + 2 * MIN, 'up']]);
    expect(events[0]!.key).toBe(`oid:perpx:BTC:${FROM + 2 * MIN}:300:10`);
    expect(events[0]!.params).toEqual({ window_s: 300, threshold_pct: 10 });
  });

  it('reports delta_pct, delta_usd and open_interest_usd from open_interest times mark_price', () => {
    // Prepare
    const rows = series((m) => (m < 2 ? 5_000 : 5_500), '200');

    // Act
    const [event] = oiDeltas(rows, FROM, TO, params);

    // Assess
    expect(event!.metrics).toMatchObject({ delta_pct: 10, delta_usd: 100_000, open_interest_usd: 1_100_000, direction: 'up' });
  });

  it('fires again only after going back under the threshold and crossing it anew', () => {
    // Prepare
    const oiAt = (m: number) => (m < 1 ? 10_000 : m === 1 ? 10_500 : m === 2 ? 11_000 : m < 8 ? 11_500 : 13_000);
    const rows = series(oiAt);

    // Act
    const events = oiDeltas(rows, FROM, TO, params);

    // Assess
    // Minutes 3-5 are still >= 10% over their base; 6 and 7 fall under; 8 re-crosses (13,000 against 11,500).
    expect(events.map((e) => [e.occurredAt, e.metrics.direction])).toEqual([
      [FROM + 2 * MIN, 'up'],
      [FROM + 8 * MIN, 'up'],
    ]);
  });

  it('fires down on a fall past the threshold', () => {
    // Prepare
    const rows = series((m) => (m < 3 ? 10_000 : 8_500));

    // Act
    const events = oiDeltas(rows, FROM, TO, params);

    // Assess
    expect(events).toHaveLength(1);
    expect(events[0]!.metrics).toMatchObject({ direction: 'down', delta_pct: -15, delta_usd: -150_000, open_interest_usd: 850_000 });
  });

  it('leaves the 100,000 USD open-interest floor to matches', () => {
    // Prepare
    const oiDecl = decl('market.oi_delta');
    const config = normalizeConfig(oiDecl, {}, none);
    const defaults = [{ window_s: 900, threshold_pct: 10 }];
    const small = oiDeltas([oi({ ts: FROM - 15 * MIN, open_interest: '400' }), oi({ ts: FROM, open_interest: '500' })], FROM, TO, defaults);
    const large = oiDeltas([oi({ ts: FROM - 15 * MIN, open_interest: '1600' }), oi({ ts: FROM, open_interest: '2000' })], FROM, TO, defaults);

    // Act
    const results = [matches(oiDecl, config, small[0]!), matches(oiDecl, config, large[0]!)];

    // Assess
    expect(small[0]!.metrics.open_interest_usd).toBe(50_000);
    expect(large[0]!.metrics.open_interest_usd).toBe(200_000);
    expect(results).toEqual([false, true]);
  });
});

describe('liquidationBursts', () => {
  const usd = (window_s: number, threshold_usd = 1_000_000): BurstParams => ({ window_s, threshold_mode: 'usd', threshold_usd, threshold_pct: 1 });
  const pct = (mode: string, threshold_pct = 1): BurstParams => ({ window_s: 300, threshold_mode: mode, threshold_usd: 1_000_000, threshold_pct });
  const noReference = () => undefined;
  const TO10 = FROM + 10 * MIN;

  it('fires at the first minute end whose trailing sum reaches threshold_usd, not at the next while still above', () => {
    // Prepare
    const rows = [liq(FROM + 30_000, 600_000), liq(FROM + 90_000, 500_000)];

    // Act
    const events = liquidationBursts(rows, FROM, TO10, [usd(300)], noReference);

    // Assess
    expect(events.map((e) => e.occurredAt)).toEqual([FROM + 2 * MIN]);
    const [burst] = events;
    expect(burst!.type).toBe('market.liquidation_burst');
    expect(burst!.key).toBe(`burst:perpx:BTC:${FROM + 2 * MIN}:300:usd:1000000`);
    expect(burst!.metrics).toMatchObject({ notional_usd: 1_100_000, liquidation_count: 2 });
    expect(burst!.data).toMatchObject({ value: 1_100_000, threshold: 1_000_000, window_s: 300 });
    expect(burst!.params).toEqual(usd(300));
  });

  it('fires at exactly threshold_usd', () => {
    // Prepare
    const rows = [liq(FROM + 30_000, 1_000_000)];

    // Act
    const events = liquidationBursts(rows, FROM, TO10, [usd(300)], noReference);

    // Assess
    expect(events.map((e) => e.occurredAt)).toEqual([FROM + MIN]);
  });

  it('fires again after the trailing sum has dropped below the threshold', () => {
    // Prepare
    // The first two leave the 5-minute window at the ends FROM+6m and FROM+7m; the last two re-cross at FROM+9m.
    const rows = [liq(FROM + 30_000, 600_000), liq(FROM + 90_000, 500_000), liq(FROM + 8 * MIN + 10_000, 700_000), liq(FROM + 8 * MIN + 20_000, 400_000)];

    // Act
    const events = liquidationBursts(rows, FROM, TO10, [usd(300)], noReference);

    // Assess
    expect(events.map((e) => e.occurredAt)).toEqual([FROM + 2 * MIN, FROM + 9 * MIN]);
  });

  it('counts only the rows inside window_s', () => {
    // Prepare
    const rows = [liq(FROM - 6 * MIN, 900_000), liq(FROM + 30_000, 200_000)];

    // Act
    const fiveMinutes = liquidationBursts(rows, FROM, TO10, [usd(300)], noReference);
    const anHour = liquidationBursts(rows, FROM, TO10, [usd(3600)], noReference);

    // Assess
    expect(fiveMinutes).toEqual([]);
    expect(anHour.map((e) => [e.occurredAt, e.metrics.notional_usd])).toEqual([[FROM + MIN, 1_100_000]]);
  });

  it('in pct_oi mode compares with the reference open interest in USD', () => {
    // Prepare
    const rows = [liq(FROM + 30_000, 150_000)];
    const asked: [Family, string, number][] = [];
    const reference = (family: Family, symbol: string, at: number): MarketReference => {
      asked.push([family, symbol, at]);
      return { volume1hUsd: 1e12, volume24hUsd: 1e12, openInterestUsd: 10_000_000, at };
    };

    // Act
    const events = liquidationBursts(rows, FROM, TO10, [pct('pct_oi')], reference);

    // Assess
    expect(events.map((e) => [e.occurredAt, e.data.value, e.data.threshold])).toEqual([[FROM + MIN, 1.5, 1]]);
    expect(asked).toContainEqual(['perpx', 'BTC', FROM + MIN]);
  });

  it('in pct_oi mode never fires while open interest is under 10,000 USD or unknown', () => {
    // Prepare
    const rows = [liq(FROM + 30_000, 5_000_000)];
    const at =
      (openInterestUsd: number | null) =>
      (_f: Family, _s: string, t: number): MarketReference => ({ volume1hUsd: 1e9, volume24hUsd: 1e9, openInterestUsd, at: t });

    // Act
    const under = liquidationBursts(rows, FROM, TO10, [pct('pct_oi')], at(9_999));
    const unknown = liquidationBursts(rows, FROM, TO10, [pct('pct_oi')], at(null));
    const missing = liquidationBursts(rows, FROM, TO10, [pct('pct_oi')], noReference);
    const atFloor = liquidationBursts(rows, FROM, TO10, [pct('pct_oi')], at(10_000));

    // Assess
    expect([under, unknown, missing]).toEqual([[], [], []]);
    expect(atFloor).toHaveLength(1);
  });

  it('in pct_volume_1h mode compares with the last-hour volume, not open interest', () => {
    // Prepare
    const rows = [liq(FROM + 30_000, 100_000)];
    const reference = (_f: Family, _s: string, at: number): MarketReference => ({ volume1hUsd: 5_000_000, volume24hUsd: 1e12, openInterestUsd: 1e9, at });

    // Act
    const byVolume = liquidationBursts(rows, FROM, TO10, [pct('pct_volume_1h')], reference);
    const byOi = liquidationBursts(rows, FROM, TO10, [pct('pct_oi')], reference);

    // Assess
    expect(byVolume.map((e) => [e.occurredAt, e.data.value])).toEqual([[FROM + MIN, 2]]);
    expect(byOi).toEqual([]);
  });
});

describe('breadthCrosses', () => {
  const band = [{ threshold: 30, hysteresis_pct: 5 }];
  const pts = (values: (number | null)[], start = FROM, family: Family = 'perpx'): BreadthPoint[] =>
    values.map((value, i) => ({ family, at: start + i * MIN, value }));
  const crosses = (values: (number | null)[]) => breadthCrosses(pts(values), FROM, TO, band).map((e) => [e.occurredAt, e.metrics.direction]);

  it('fires up once when the value crosses from 20 to 31, carrying its params', () => {
    // Prepare
    const points = pts([20, 31]);

    // Act
    const events = breadthCrosses(points, FROM, TO, band);

    // Assess
    expect(events).toHaveLength(1);
    expect(events[0]!).toMatchObject({
      type: 'market.breadth_cross',
      occurredAt: FROM + MIN,
      venue: 'perpx',
      symbol: null,
      key: `breadth:perpx:${FROM + MIN}:30:5`,
      params: { threshold: 30, hysteresis_pct: 5 },
    });
    expect(events[0]!.metrics).toMatchObject({ value_pct: 31, direction: 'up' });
  });

  it('does not fire up again for a dip that stays above threshold minus the band', () => {
    // Act
    const events = crosses([20, 31, 29, 31]);

    // Assess
    expect(events).toEqual([[FROM + MIN, 'up']]);
  });

  it('fires up again after the value has gone below threshold minus the band', () => {
    // Act
    const events = crosses([20, 31, 29, 24, 31]);

    // Assess
    expect(events).toEqual([
      [FROM + MIN, 'up'],
      [FROM + 4 * MIN, 'up'],
    ]);
  });

  it('fires down only after the value has been at threshold plus the band', () => {
    // Act
    const unarmed = crosses([31, 34, 29]);
    const armed = crosses([36, 29]);

    // Assess
    expect(unarmed).toEqual([]);
    expect(armed).toEqual([[FROM + MIN, 'down']]);
  });

  it('does not fire down again until the value has been back at threshold plus the band', () => {
    // Act
    const hovering = crosses([40, 29, 31, 29]);
    const rearmed = crosses([40, 29, 31, 35, 29]);

    // Assess
    expect(hovering).toEqual([[FROM + MIN, 'down']]);
    expect(rearmed).toEqual([
      [FROM + MIN, 'down'],
      [FROM + 4 * MIN, 'down'],
    ]);
  });

  it('skips null values and judges the next value against the last known one', () => {
    // Act
    const events = crosses([20, null, 31, null]);

    // Assess
    expect(events).toEqual([[FROM + 2 * MIN, 'up']]);
  });

  it('fires only for points in [from, to) while earlier points set the arming state', () => {
    // Prepare
    const armedBefore = pts([20, 31], FROM - MIN);
    const firedBefore = pts([20, 31, 29, 31], FROM - 2 * MIN);
    const atTo = pts([20, 31], TO - MIN);

    // Act
    const fromArming = breadthCrosses(armedBefore, FROM, TO, band);
    const consumedBefore = breadthCrosses(firedBefore, FROM, TO, band);
    const excludedAtTo = breadthCrosses(atTo, FROM, TO, band);

    // Assess
    expect(fromArming.map((e) => e.occurredAt)).toEqual([FROM]);
    expect(consumedBefore).toEqual([]);
    expect(excludedAtTo).toEqual([]);
  });

  it('judges each param set and each family separately', () => {
    // Prepare
    const points = [...pts([20, 31]), ...pts([50, 20], FROM, 'hip3')];
    const sets = [
      { threshold: 30, hysteresis_pct: 5 },
      { threshold: 40, hysteresis_pct: 5 },
    ];

    // Act
    const events = breadthCrosses(points, FROM, TO, sets);

    // Assess
    expect(events.map((e) => [e.venue, e.params, e.metrics.direction])).toEqual([
      ['perpx', { threshold: 30, hysteresis_pct: 5 }, 'up'],
      ['hip3', { threshold: 30, hysteresis_pct: 5 }, 'down'],
      ['hip3', { threshold: 40, hysteresis_pct: 5 }, 'down'],
    ]);
  });
});

describe('paramSets', () => {
  const rule = (params: Record<string, unknown>): Pick<ActiveRule, 'subscription'> => ({
    subscription: {
      id: 'sub',
      accountId: 'acct',
      endpointId: 'ep',
      eventType: 'market.oi_delta',
      filters: { conditions: [], params },
      enabled: true,
      pause: null,
      lastPause: null,
      triggerId: 'trigger',
      createdAt: new Date(T0).toISOString(),
    },
  });

  it('lists each distinct combination of the given params once, with only those keys', () => {
    // Prepare
    const rules = [
      rule({ window_s: 300, threshold_pct: 10, max_age_s: 60 }),
      rule({ window_s: 300, threshold_pct: 10, max_age_s: 3600 }),
      rule({ window_s: 900, threshold_pct: 10 }),
      rule({ window_s: 300, threshold_pct: 5 }),
    ];

    // Act
    const sets = paramSets(rules, ['window_s', 'threshold_pct']);

    // Assess
    expect(sets).toEqual([
      { window_s: 300, threshold_pct: 10 },
      { window_s: 900, threshold_pct: 10 },
      { window_s: 300, threshold_pct: 5 },
    ]);
  });

  it('gives one empty set for any rules when no params are asked for, and none without rules', () => {
    // Prepare
    const rules = [rule({ a: 1 }), rule({ a: 2 })];

    // Act
    const withRules = paramSets(rules, []);
    const withoutRules = paramSets([], ['window_s']);

    // Assess
    expect(withRules).toEqual([{}]);
    expect(withoutRules).toEqual([]);
  });
});

describe('found in review', () => {
  it('keeps venues apart when they list the same symbol', () => {
    const T = Date.UTC(2026, 10, 18, 12, 0, 0);
    const row = (family: 'perpx' | 'altx', ts: number) =>
      ({
        dataset: 'liquidations',
        family,
        symbol: 'BTC',
        ts,
        trade_id: ts,
        liquidated_user: `0x${'1'.repeat(40)}`,
        price: '60000',
        size: '10',
        side: 'A',
      }) as LiquidationRecord;
    const bursts = liquidationBursts(
      [row('altx', T + 10_000), row('perpx', T + 20_000)],
      T,
      T + 120_000,
      [{ window_s: 300, threshold_mode: 'usd', threshold_usd: 1_000_000, threshold_pct: 1 }],
      () => undefined,
    );
    expect(bursts).toEqual([]);
  });

  it('fires on a move of exactly the threshold despite floating point', () => {
    const T = Date.UTC(2026, 10, 18, 12, 0, 0);
    const oi = (ts: number, oracle: string) =>
      ({ dataset: 'open_interest', family: 'hip3', symbol: 'xyz:TSLA', ts, open_interest: '1', oracle_price: oracle }) as OpenInterestRecord;
    expect(oracleJumps([oi(T, '3'), oi(T + 60_000, '2.97')], T, T + 120_000, [1])).toHaveLength(1);
    expect(oracleJumps([oi(T, '0'), oi(T + 60_000, '2.97')], T, T + 120_000, [1])).toEqual([]);
  });
});
