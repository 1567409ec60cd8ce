import { describe, expect, it } from 'vitest';
import { fillCandidates } from '#core/events/account.fill.ts';
import { liquidationCandidates } from '#core/events/market.liquidation.ts';
import { orderRejectedCandidates } from '#core/events/account.order_rejected.ts';
import { transferCandidates } from '#core/events/account.transfer.ts';
import { batchCandidates } from '#core/detect/batch-run.ts';
import type { LiquidationRecord, NormalizedRecord, OrderEventRecord, TradeRecord, TransferRecord } from '#schemas/datasets.ts';
import { T0 } from '#test/helpers/records.ts';

const ALICE = `0x${'a1'.repeat(20)}`;
const BOB = `0x${'b2'.repeat(20)}`;
const CAROL = `0x${'c3'.repeat(20)}`;
const TS = T0 + 12_345;

function trade(overrides: Partial<TradeRecord> & { trade_id: number }): TradeRecord {
  return {
    dataset: 'trades',
    family: 'perpx',
    symbol: 'BTC',
    ts: TS,
    side: 'B',
    price: '100',
    size: '1',
    crossed: false,
    user_address: ALICE,
    ...overrides,
  } as TradeRecord;
}

function liq(overrides: Partial<LiquidationRecord> & { trade_id: number }): LiquidationRecord {
  return {
    dataset: 'liquidations',
    family: 'perpx',
    symbol: 'BTC',
    ts: TS,
    liquidated_user: ALICE,
    liquidator_user: BOB,
    price: '100',
    size: '1',
    side: 'A',
    closed_pnl: '-10',
    direction: 'Close Long',
    ...overrides,
  } as LiquidationRecord;
}

describe('fillCandidates', () => {
  it('reads only the fills of watched addresses', () => {
    // Prepare
    const trades = [trade({ trade_id: 1 }), trade({ trade_id: 2, user_address: BOB }), trade({ trade_id: 3, user_address: null })];

    // Act
    const candidates = fillCandidates(trades, new Set([ALICE]));

    // Assess
    expect(candidates).toHaveLength(1);
    expect(candidates[0]!.address).toBe(ALICE);
    expect(candidates[0]!.type).toBe('account.fill');
  });

  it('collapses the fills of one sweep into one fill with summed size, vwap, notional and distinct order ids', () => {
    const trades = [
      trade({ trade_id: 11, price: '100', size: '1', order_id: 7, crossed: false }),
      trade({ trade_id: 12, price: '104', size: '3', order_id: 7, crossed: true }),
      trade({ trade_id: 13, price: '101', size: '1', order_id: 8, crossed: null }),
    ];

    const [only, ...rest] = fillCandidates(trades, new Set([ALICE]));

    expect(rest).toEqual([]);
    expect(only!.data).toMatchObject({
      venue: 'perpx',
      symbol: 'BTC',
      account: ALICE,
      side: 'buy',
      size: 5,
      vwap: 102.6,
      notional_usd: 513,
      buy_notional_usd: 513,
      fill_count: 3,
      order_ids: ['7', '8'],
      taker: true,
      timestamp: new Date(TS).toISOString(),
    });
    expect(only!.metrics).toMatchObject({ side: 'buy', size: 5, price: 102.6, notional_usd: 513, taker: true, fill_count: 3, address: ALICE });
    expect(only!.occurredAt).toBe(TS);
  });

  it('marks a sweep as maker when no fill crossed, and a sell as sell with no buy notional', () => {
    const trades = [trade({ trade_id: 1, side: 'A', crossed: false }), trade({ trade_id: 2, side: 'A', crossed: null })];

    const [only] = fillCandidates(trades, new Set([ALICE]));

    expect(only!.data).toMatchObject({ side: 'sell', taker: false, buy_notional_usd: 0, order_ids: [] });
  });

  it('gives another fill for another side or another instant', () => {
    const trades = [trade({ trade_id: 1 }), trade({ trade_id: 2, side: 'A' }), trade({ trade_id: 3, ts: TS + 1 })];

    const candidates = fillCandidates(trades, new Set([ALICE]));

    expect(candidates).toHaveLength(3);
    expect(new Set(candidates.map((c) => c.key)).size).toBe(3);
  });

  it('keys a sweep the same whatever the order of its fills, and differently for other trade ids', () => {
    const watched = new Set([ALICE]);
    const a = fillCandidates([trade({ trade_id: 2 }), trade({ trade_id: 10 })], watched)[0]!.key;
    const b = fillCandidates([trade({ trade_id: 10 }), trade({ trade_id: 2 })], watched)[0]!.key;
    const c = fillCandidates([trade({ trade_id: 2 }), trade({ trade_id: 11 })], watched)[0]!.key;

    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it('points api_url at the trades of the instant', () => {
    const [only] = fillCandidates([trade({ trade_id: 1 })], new Set([ALICE]));

    expect(only!.data.api_url).toBe(`/v1/perpx/trades/BTC?start=${TS}&end=${TS + 1}`);
  });

  it('URL-encodes hip3 and hip4 symbols in api_url', () => {
    const watched = new Set([ALICE]);

    const [hip3] = fillCandidates([trade({ trade_id: 1, family: 'hip3', symbol: 'xyz:TSLA' })], watched);
    const [hip4] = fillCandidates([trade({ trade_id: 2, family: 'hip4', symbol: '#10' })], watched);

    expect(hip3!.data.api_url).toBe(`/v1/perpx/hip3/trades/xyz%3ATSLA?start=${TS}&end=${TS + 1}`);
    expect(hip3!.venue).toBe('hip3');
    expect(hip3!.symbol).toBe('xyz:TSLA');
    expect(hip4!.data.api_url).toBe(`/v1/perpx/hip4/trades/%2310?start=${TS}&end=${TS + 1}`);
  });
});

describe('liquidationCandidates', () => {
  it('collapses a cascade into one market.liquidation with summed notional and closed pnl', () => {
    // Prepare
    const rows = [
      liq({ trade_id: 1, price: '100', size: '2', closed_pnl: '-10.5' }),
      liq({ trade_id: 2, price: '99', size: '1', closed_pnl: '-4.25' }),
      liq({ trade_id: 3, price: '98', size: '0.5', closed_pnl: null }),
    ];

    // Act
    const candidates = liquidationCandidates(rows, new Set());

    // Assess
    expect(candidates).toHaveLength(1);
    const [only] = candidates;
    expect(only!.type).toBe('market.liquidation');
    expect(only!.address).toBeNull();
    expect(only!.metrics).toMatchObject({ notional_usd: 348, side: 'long', liquidated_user: ALICE, direction: 'Close Long' });
    expect(only!.data).toMatchObject({
      notional_usd: 348,
      closed_pnl: -14.75,
      fill_count: 3,
      liquidated_user: ALICE,
      api_url: `/v1/perpx/trades/BTC?start=${TS}&end=${TS + 1}`,
    });
  });

  it('reads side A as a long liquidated and B as a short', () => {
    const [long] = liquidationCandidates([liq({ trade_id: 1, side: 'A' })], new Set());
    const [short] = liquidationCandidates([liq({ trade_id: 2, side: 'B' })], new Set());

    expect(long!.metrics.side).toBe('long');
    expect(short!.metrics.side).toBe('short');
  });

  it('adds account.liquidated with the same key only when the liquidated user is watched', () => {
    const rows = [liq({ trade_id: 1 }), liq({ trade_id: 2 })];

    const unwatched = liquidationCandidates(rows, new Set([BOB]));
    const watched = liquidationCandidates(rows, new Set([ALICE]));

    expect(unwatched.map((c) => c.type)).toEqual(['market.liquidation']);
    expect(watched.map((c) => c.type)).toEqual(['market.liquidation', 'account.liquidated']);
    const [market, account] = watched;
    expect(account!.key).toBe(market!.key);
    expect(account!.address).toBe(ALICE);
    expect(account!.metrics).toMatchObject({ address: ALICE, notional_usd: 200 });
    expect(account!.data).toMatchObject({ account: ALICE, notional_usd: 200 });
  });

  it('gives one event per user liquidated at the same instant', () => {
    const rows = [liq({ trade_id: 1, liquidated_user: ALICE }), liq({ trade_id: 2, liquidated_user: CAROL })];

    const candidates = liquidationCandidates(rows, new Set());

    expect(candidates.map((c) => c.metrics.liquidated_user).sort()).toEqual([ALICE, CAROL].sort());
    expect(new Set(candidates.map((c) => c.key)).size).toBe(2);
  });
});

describe('notionals', () => {
  it("round to cents as the rollups' SQL does, and sum a sweep's fills in trade id order whatever order they came in", () => {
    // Prepare: 0.10 x 13.35 is 1.33499... in binary (toFixed gave 1.33; DuckDB's round gives 1.34);
    // 0.011 + 0.011 + 0.013 is 0.034999999999999996 (0.03) in that order, 0.035 (0.04) in the reverse one.
    const tie = liq({ trade_id: 1, price: '13.35', size: '0.10' });
    const sweep = [
      liq({ trade_id: 3, price: '1', size: '0.013' }),
      liq({ trade_id: 2, price: '1', size: '0.011' }),
      liq({ trade_id: 1, price: '1', size: '0.011' }),
    ];
    // Act
    const [single] = liquidationCandidates([tie], new Set());
    const [summed] = liquidationCandidates(sweep, new Set());
    const [fill] = fillCandidates([trade({ trade_id: 1, price: '13.35', size: '0.10' })], new Set([ALICE]));
    // Assess
    expect(single!.metrics.notional_usd).toBe(1.34);
    expect(fill!.metrics.notional_usd).toBe(1.34);
    expect(summed!.metrics.notional_usd).toBe(0.03);
  });
});

describe('batchCandidates', () => {
  it('sends trades to fills and liquidations to liquidations, and ignores other datasets', () => {
    // Prepare
    const records: NormalizedRecord[] = [
      trade({ trade_id: 1 }),
      liq({ trade_id: 2, liquidated_user: ALICE }),
      { dataset: 'funding', family: 'perpx', symbol: 'BTC', ts: TS, funding_rate: '0.0001' } as NormalizedRecord,
      { dataset: 'open_interest', family: 'perpx', symbol: 'BTC', ts: TS, open_interest: '10' } as NormalizedRecord,
    ];

    // Act
    const candidates = batchCandidates(records, new Set([ALICE]));

    // Assess
    expect(candidates.map((c) => c.type).sort()).toEqual(['account.fill', 'account.liquidated', 'market.liquidation']);
  });

  it('gives nothing for a batch without trades or liquidations', () => {
    const records = [{ dataset: 'funding', family: 'perpx', symbol: 'BTC', ts: TS, funding_rate: '0.0001' } as NormalizedRecord];

    expect(batchCandidates(records, new Set([ALICE]))).toEqual([]);
  });
});

describe('transferCandidates', () => {
  const row = (overrides: Partial<TransferRecord>): TransferRecord => ({
    dataset: 'transfers',
    family: 'perpx',
    symbol: 'USDC',
    ts: TS,
    user_address: ALICE,
    kind: 'send',
    role: 'source',
    amount: '2500',
    usdc_value: '2500',
    counterparty: BOB,
    tx_hash: '0xabc',
    ...overrides,
  });

  it('gives one event per ledger row of a watched address, keyed by transaction, address and role, with the token as symbol', () => {
    const out = transferCandidates([row({}), row({ user_address: BOB, role: 'destination', counterparty: ALICE })], new Set([ALICE, BOB]));

    expect(out.map((c) => [c.address, c.metrics.role, c.symbol])).toEqual([
      [ALICE, 'source', 'USDC'],
      [BOB, 'destination', 'USDC'],
    ]);
    expect(new Set(out.map((c) => c.key)).size).toBe(2);
    expect(out[0]!.metrics).toMatchObject({ usdc_value: 2500, amount: 2500, kind: 'send', token: 'USDC' });
    expect(transferCandidates([row({})], new Set([BOB]))).toEqual([]);
  });
});

describe('orderRejectedCandidates', () => {
  const event = (status: string, user = ALICE): OrderEventRecord =>
    ({
      dataset: 'order_events',
      family: 'perpx',
      symbol: 'BTC',
      ts: TS,
      event: 'canceled',
      block_number: 1,
      seq: 1,
      oid: 42,
      user_address: user,
      side: 'B',
      status,
      order_type: 'Stop Market',
      reduce_only: true,
      is_trigger: true,
      is_position_tpsl: true,
      orig_size: '0.5',
    }) as OrderEventRecord;

  it("reports engine cancels of watched addresses only, with the reason, and ignores the owner's own cancels", () => {
    const out = orderRejectedCandidates([event('liquidatedCanceled'), event('canceled'), event('marginCanceled', BOB)], new Set([ALICE]));

    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ type: 'account.order_rejected', address: ALICE, metrics: { reason: 'liquidatedCanceled' }, data: { oid: 42, size: '0.5' } });
    expect(out[0]!.data.api_url).toBe(`/v1/perpx/orders/BTC/flow?start=${TS}&end=${TS + 1}`);
  });
});
