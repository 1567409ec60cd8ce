import { describe, expect, it } from 'vitest';
import { twapCandidates } from '#core/events/account.twap_lifecycle.ts';
import { upgradeCandidates } from '#core/events/chain.upgrade_detected.ts';
import { matches } from '#core/detect/match.ts';
import { PGA, type Holder, type PgaPayment } from '#core/events/kit/reads.ts';
import { pgaPayments } from '#core/events/market.pga_payment.ts';
import { settledHoldings } from '#core/events/account.hip4_settled.ts';
import { settlements } from '#core/events/hip4.settlement.ts';
import { EVENT_TYPE_BY_NAME } from '#core/webhooks/catalog.ts';
import { normalizeConfig } from '#core/webhooks/filters.ts';
import type { ChainEventRecord, SettlementRecord, TwapRecord } from '#schemas/datasets.ts';
import { T0 } from '#test/helpers/records.ts';

const MIN = 60_000;
const DAY = 86_400_000;
const FROM = T0 + 60 * MIN;
const TO = FROM + 60 * MIN;
const ALICE = `0x${'a1'.repeat(20)}`;
const BOB = `0x${'b2'.repeat(20)}`;
const COMMIT = 'abcdef1234567';
const decl = (type: string) => EVENT_TYPE_BY_NAME.get(type)!;

function twap(overrides: Partial<TwapRecord> = {}): TwapRecord {
  return {
    dataset: 'twaps',
    family: 'perpx',
    symbol: 'BTC',
    ts: FROM + MIN,
    twap_id: 42,
    user_address: ALICE,
    status: 'activated',
    side: 'B',
    size: '10',
    executed_size: '0',
    ...overrides,
  } as TwapRecord;
}

function chain(overrides: Partial<ChainEventRecord> & { ts: number; kind: ChainEventRecord['kind'] }): ChainEventRecord {
  return { dataset: 'chain_events', family: 'perpx', symbol: 'CHAIN', commit: COMMIT, ...overrides } as ChainEventRecord;
}

function settlement(overrides: Partial<SettlementRecord> = {}): SettlementRecord {
  return {
    dataset: 'settlements',
    family: 'hip4',
    symbol: '#10',
    ts: FROM + 45 * MIN,
    resolution: 'yes',
    settle_price: '1',
    open_interest: '1500',
    ...overrides,
  } as SettlementRecord;
}

function payment(ts: number, tradeId: number, amount = 2): PgaPayment {
  return { ts, trade_id: tradeId, symbol: 'BTC', payer: ALICE, amount };
}

describe('twapCandidates', () => {
  it('reads only the TWAPs of watched addresses', () => {
    // Prepare
    const rows = [twap({ twap_id: 1 }), twap({ twap_id: 2, user_address: BOB })];

    // Act
    const candidates = twapCandidates(rows, new Set([ALICE]));

    // Assess
    expect(candidates.map((c) => [c.type, c.address, c.data.twap_id])).toEqual([['account.twap_lifecycle', ALICE, 1]]);
  });

  it('reports the status and the filled share as executed over size in percent', () => {
    // Prepare
    const rows = [twap({ status: 'terminated', size: '8', executed_size: '3' })];

    // Act
    const [only] = twapCandidates(rows, new Set([ALICE]));

    // Assess
    expect(only!.metrics).toMatchObject({ status: 'terminated', fill_pct: 37.5, address: ALICE, venue: 'perpx', symbol: 'BTC' });
    expect(only!.data).toMatchObject({ size: 8, executed_size: 3, twap_id: 42, account: ALICE });
  });

  it('reports a filled share of 0 when the size is 0', () => {
    // Prepare
    const rows = [twap({ size: '0', executed_size: '0' })];

    // Act
    const [only] = twapCandidates(rows, new Set([ALICE]));

    // Assess
    expect(only!.metrics.fill_pct).toBe(0);
  });

  it('keys a TWAP per status, so activated and finished differ and a repeated status repeats its key', () => {
    // Prepare
    const rows = [
      twap({ status: 'activated' }),
      twap({ status: 'finished', ts: FROM + 5 * MIN, executed_size: '10' }),
      twap({ status: 'activated', ts: FROM + 2 * MIN }),
      twap({ twap_id: 43, status: 'activated' }),
    ];

    // Act
    const [activated, finished, again, other] = twapCandidates(rows, new Set([ALICE])).map((c) => c.key);

    // Assess
    expect(activated).not.toBe(finished);
    expect(again).toBe(activated);
    expect(other).not.toBe(activated);
  });

  it('names the side buy or sell', () => {
    // Prepare
    const rows = [twap({ twap_id: 1, side: 'B' }), twap({ twap_id: 2, side: 'A' })];

    // Act
    const sides = twapCandidates(rows, new Set([ALICE])).map((c) => c.data.side);

    // Assess
    expect(sides).toEqual(['buy', 'sell']);
  });

  it('never delivers a TWAP on a venue the type does not cover to a default rule', () => {
    // Prepare
    const type = decl('account.twap_lifecycle');
    const watched = new Set([ALICE]);
    const config = normalizeConfig(type, {}, watched);
    const [onPerpx, onAltx] = twapCandidates([twap({ twap_id: 1, family: 'perpx' }), twap({ twap_id: 2, family: 'altx', symbol: 'ETH' })], watched);

    // Act
    const results = [matches(type, config, onPerpx!, watched), matches(type, config, onAltx!, watched)];

    // Assess
    expect(results).toEqual([true, false]);
  });
});

describe('upgradeCandidates', () => {
  const started = chain({ ts: T0 + 17 * MIN, kind: 'upgrade_started' });
  const completed = chain({ ts: T0 + 22 * MIN + 30_000, kind: 'upgrade_completed', started_at: T0 + 17 * MIN });

  it('gives started and completed the commit as a shared incident id and different keys', () => {
    // Prepare
    const rows = [started, completed];

    // Act
    const [a, b] = upgradeCandidates(rows);

    // Assess
    expect(a!.data.incident_id).toBe(COMMIT);
    expect(b!.data.incident_id).toBe(COMMIT);
    expect([a!.metrics.state, b!.metrics.state]).toEqual(['started', 'completed']);
    expect(a!.key).not.toBe(b!.key);
  });

  it('measures the duration on the completed record from its started_at, and none on the started one', () => {
    // Prepare
    const rows = [started, completed];

    // Act
    const [a, b] = upgradeCandidates(rows);

    // Assess
    expect(a!.metrics.duration_s).toBeNull();
    expect(b!.metrics.duration_s).toBe(330);
    expect(b!.data.started_at).toBe(new Date(T0 + 17 * MIN).toISOString());
  });

  it('has no duration for a completed record that does not say when it started', () => {
    // Prepare
    const rows = [chain({ ts: T0 + 22 * MIN, kind: 'upgrade_completed' })];

    // Act
    const [only] = upgradeCandidates(rows);

    // Assess
    expect(only!.metrics.duration_s).toBeNull();
    expect(only!.data.started_at).toBeNull();
  });

  it('names the UTC weekday of the record', () => {
    // Prepare: 2026-11-18 is a Wednesday; 23:59 UTC is still Wednesday, 00:00 the next day Thursday.
    const rows = [chain({ ts: T0 + DAY - MIN, kind: 'upgrade_started' }), chain({ ts: T0 + DAY, kind: 'upgrade_started', commit: 'fedcba7654321' })];

    // Act
    const days = upgradeCandidates(rows).map((c) => c.metrics.weekday_utc);

    // Assess
    expect(days).toEqual(['wednesday', 'thursday']);
  });

  it('delivers only the completed record to a rule asking for state completed', () => {
    // Prepare
    const type = decl('chain.upgrade_detected');
    const config = normalizeConfig(type, { conditions: [{ metric: 'state', op: 'equal', value: 'completed' }] }, new Set());
    const [a, b] = upgradeCandidates([started, completed]);

    // Act
    const results = [matches(type, config, a!), matches(type, config, b!)];

    // Assess
    expect(results).toEqual([false, true]);
  });

  it('filters on the UTC weekday', () => {
    // Prepare
    const type = decl('chain.upgrade_detected');
    const config = normalizeConfig(type, { conditions: [{ metric: 'weekday_utc', op: 'in', value: ['saturday', 'sunday'] }] }, new Set());
    const [wednesday, saturday] = upgradeCandidates([started, chain({ ts: T0 + 3 * DAY, kind: 'upgrade_started', commit: 'fedcba7654321' })]);

    // Act
    const results = [matches(type, config, wednesday!), matches(type, config, saturday!)];

    // Assess
    expect(saturday!.metrics.weekday_utc).toBe('saturday');
    expect(results).toEqual([false, true]);
  });
});

describe('settlements', () => {
  it('reports the contracts outstanding at face value and the resolution', () => {
    // Prepare
    const rows = [settlement({ symbol: '#21', resolution: 'no', settle_price: '0', open_interest: '2345.678' })];

    // Act
    const [only] = settlements(rows, FROM, TO);

    // Assess
    expect(only!.type).toBe('hip4.settlement');
    expect(only!.metrics).toMatchObject({ venue: 'hip4', symbol: '#21', notional_usd: 2345.68, resolution: 'no' });
    expect(only!.data).toMatchObject({ settle_price: 0, open_interest: 2345.678 });
  });

  it('delivers 1,000 USD and up to a rule that sets no notional bound', () => {
    // Prepare
    const type = decl('hip4.settlement');
    const config = normalizeConfig(type, {}, new Set());
    const candidates = settlements(
      [
        settlement({ symbol: '#10', open_interest: '999' }),
        settlement({ symbol: '#11', open_interest: '1000' }),
        settlement({ symbol: '#20', open_interest: '5000' }),
      ],
      FROM,
      TO,
    );

    // Act
    const results = candidates.map((c) => matches(type, config, c));

    // Assess
    expect(candidates).toHaveLength(3);
    expect(results).toEqual([false, true, true]);
  });

  it('delivers from its own bound to a rule with min_notional_usd, down to the 500 USD floor', () => {
    // Prepare
    const type = decl('hip4.settlement');
    const config = normalizeConfig(type, { min_notional_usd: 600 }, new Set());
    const candidates = settlements([settlement({ symbol: '#10', open_interest: '700' }), settlement({ symbol: '#11', open_interest: '599' })], FROM, TO);

    // Act
    const results = candidates.map((c) => matches(type, config, c));

    // Assess
    expect(results).toEqual([true, false]);
  });

  it('reports nothing outside the window', () => {
    // Prepare
    const rows = [settlement({ ts: FROM - 1 }), settlement({ ts: TO }), settlement({ ts: FROM })];

    // Act
    const candidates = settlements(rows, FROM, TO);

    // Assess
    expect(candidates.map((c) => c.occurredAt)).toEqual([FROM]);
  });
});

describe('settledHoldings', () => {
  it('reports one event per holder with a position in the settled side', () => {
    // Prepare
    const rows = [settlement({ symbol: '#10', settle_price: '1' })];
    const holders: Holder[] = [
      { address: ALICE, symbol: '#10', position: 120 },
      { address: BOB, symbol: '#10', position: 0 },
      { address: BOB, symbol: '#11', position: 50 },
    ];

    // Act
    const candidates = settledHoldings(rows, holders, FROM, TO);

    // Assess
    expect(candidates.map((c) => [c.type, c.address, c.symbol])).toEqual([['account.hip4_settled', ALICE, '#10']]);
  });

  it('pays the position times the settle price and reports the absolute position as notional', () => {
    // Prepare
    const rows = [settlement({ symbol: '#10', settle_price: '1', resolution: 'yes' }), settlement({ symbol: '#11', settle_price: '0', resolution: 'no' })];
    const holders: Holder[] = [
      { address: ALICE, symbol: '#10', position: -30 },
      { address: BOB, symbol: '#11', position: 25.5 },
    ];

    // Act
    const [short, lost] = settledHoldings(rows, holders, FROM, TO);

    // Assess
    expect(short!.data).toMatchObject({ position: -30, payout: -30, notional_usd: 30, resolution: 'yes', account: ALICE });
    expect(lost!.data).toMatchObject({ position: 25.5, payout: 0, notional_usd: 25.5, resolution: 'no', account: BOB });
    expect(short!.key).not.toBe(lost!.key);
  });

  it('reports nothing for a settlement outside the window', () => {
    // Prepare
    const rows = [settlement({ ts: TO })];
    const holders: Holder[] = [{ address: ALICE, symbol: '#10', position: 5 }];

    // Act
    const candidates = settledHoldings(rows, holders, FROM, TO);

    // Assess
    expect(candidates).toEqual([]);
  });
});

describe('pgaPayments', () => {
  it('reports only payments of 1.5 tokens and up', () => {
    // Prepare
    const payments = [payment(FROM + MIN, 1, 1.49), payment(FROM + 2 * MIN, 2, 1.5), payment(FROM + 3 * MIN, 3, 4)];

    // Act
    const candidates = pgaPayments(payments, FROM, TO, 20);

    // Assess
    expect(candidates.map((c) => c.metrics.amount)).toEqual([1.5, 4]);
  });

  it('reports the first 50 payments of a UTC day in time order and not the rest', () => {
    // Prepare: 55 payments of one day, handed over in reverse.
    const payments = Array.from({ length: 55 }, (_, i) => payment(T0 + i * MIN, 1000 + i)).reverse();

    // Act
    const candidates = pgaPayments(payments, T0, T0 + DAY, 20);

    // Assess
    expect(candidates).toHaveLength(50);
    expect(candidates.map((c) => c.key)).toEqual(Array.from({ length: 50 }, (_, i) => `pga:${1000 + i}`));
  });

  it('counts payments earlier in the day towards the 50 when the window covers only the end of the day', () => {
    // Prepare: 48 payments in the morning, 5 in the evening window.
    const morning = Array.from({ length: 48 }, (_, i) => payment(T0 + i * MIN, 1000 + i));
    const evening = Array.from({ length: 5 }, (_, i) => payment(T0 + 20 * 60 * MIN + i * MIN, 2000 + i));

    // Act
    const candidates = pgaPayments([...morning, ...evening], T0 + 20 * 60 * MIN, T0 + DAY, 20);

    // Assess
    expect(candidates.map((c) => c.key)).toEqual(['pga:2000', 'pga:2001']);
    expect(candidates.map((c) => c.data.payment_of_day)).toEqual([49, 50]);
  });

  it('starts a new count on a new UTC day', () => {
    // Prepare
    const payments = [...Array.from({ length: 52 }, (_, i) => payment(T0 + i * MIN, 1000 + i)), payment(T0 + DAY, 3000), payment(T0 + DAY + MIN, 3001)];

    // Act
    const candidates = pgaPayments(payments, T0, T0 + 2 * DAY, 20);

    // Assess
    expect(candidates).toHaveLength(52);
    expect(candidates.slice(-2).map((c) => [c.key, c.data.payment_of_day])).toEqual([
      ['pga:3000', 1],
      ['pga:3001', 2],
    ]);
  });

  it('values a payment at the token price, and not at all without one', () => {
    // Prepare
    const payments = [payment(FROM + MIN, 7, 2.5)];

    // Act
    const [priced] = pgaPayments(payments, FROM, TO, 31.2);
    const [unpriced] = pgaPayments(payments, FROM, TO, null);

    // Assess
    expect(priced!.metrics.notional_usd).toBe(78);
    expect(unpriced!.metrics.notional_usd).toBeNull();
  });

  it('keys each payment by its trade id and names the HYPE token as symbol', () => {
    // Prepare
    const payments = [payment(FROM + MIN, 7), payment(FROM + MIN, 8)];

    // Act
    const candidates = pgaPayments(payments, FROM, TO, 20);

    // Assess
    expect(candidates.map((c) => c.key)).toEqual(['pga:7', 'pga:8']);
    expect(candidates.map((c) => [c.type, c.symbol, c.metrics.token, c.data.market])).toEqual([
      ['market.pga_payment', 'HYPE', 'HYPE', 'BTC'],
      ['market.pga_payment', 'HYPE', 'HYPE', 'BTC'],
    ]);
    expect(PGA.token).toBe('HYPE');
  });

  it('is delivered to a default rule for the HYPE symbol', () => {
    // Prepare
    const type = decl('market.pga_payment');
    const config = normalizeConfig(type, { symbols: ['HYPE'] }, new Set());
    const [only] = pgaPayments([payment(FROM + MIN, 7)], FROM, TO, 20);

    // Act
    const result = matches(type, config, only!);

    // Assess
    expect(result).toBe(true);
  });
});
