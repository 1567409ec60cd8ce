import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createUpstream, STALLED_BOOK } from '../../../functions/local/demo/upstream.ts';
import { NormalizedRecord, type TradeRecord } from '../../../schemas/datasets.ts';
import { T0 } from '../../helpers/records.ts';

type RecordOf<D extends NormalizedRecord['dataset']> = Extract<NormalizedRecord, { dataset: D }>;

const SECOND = 1_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SEED = 7;
const ALICE = '0x' + 'a1'.repeat(20);

const only = <D extends NormalizedRecord['dataset']>(records: readonly NormalizedRecord[], dataset: D) =>
  records.filter((r): r is RecordOf<D> => r.dataset === dataset);

function trade(overrides: Partial<TradeRecord> & { ts: number; trade_id: number }): TradeRecord {
  return { dataset: 'trades', family: 'perpx', symbol: 'BTC', side: 'B', price: '100', size: '1', crossed: true, user_address: ALICE, ...overrides } as TradeRecord;
}

function book(symbol: string, ts: number): RecordOf<'l2_snapshots'> {
  return { dataset: 'l2_snapshots', family: 'hip3', symbol, ts, bids: [['10', '1', 1]], asks: [['11', '1', 1]] };
}

describe('createUpstream: scheduled records', () => {
  it('starts a node upgrade every 8 hours and completes it 3 to 9 minutes later, carrying when it started', () => {
    // Prepare
    const upstream = createUpstream(SEED);

    // Act
    const chain = only(upstream.apply([], T0, T0 + DAY), 'chain_events');

    // Assess
    const started = chain.filter((r) => r.kind === 'upgrade_started');
    const completed = chain.filter((r) => r.kind === 'upgrade_completed');
    expect(started.map((r) => r.ts - T0)).toEqual([17 * MINUTE, 8 * HOUR + 17 * MINUTE, 16 * HOUR + 17 * MINUTE]);
    expect(completed).toHaveLength(3);
    for (const [i, done] of completed.entries()) {
      expect(done.commit).toBe(started[i]!.commit);
      expect(done.started_at).toBe(started[i]!.ts);
      expect(done.ts - done.started_at!).toBeGreaterThanOrEqual(3 * MINUTE);
      expect(done.ts - done.started_at!).toBeLessThanOrEqual(9 * MINUTE);
      expect((done.ts - done.started_at!) % MINUTE).toBe(0);
    }
    expect(new Set(started.map((r) => r.commit)).size).toBe(3);
  });

  it('settles both sides of one outcome every 6 hours at :45, one yes and one no', () => {
    // Prepare
    const upstream = createUpstream(SEED);

    // Act
    const settled = only(upstream.apply([], T0, T0 + DAY), 'settlements');

    // Assess
    expect(settled).toHaveLength(8);
    const byTime = new Map<number, RecordOf<'settlements'>[]>();
    for (const r of settled) byTime.set(r.ts, [...(byTime.get(r.ts) ?? []), r]);
    expect([...byTime.keys()].map((ts) => ts - T0)).toEqual([0, 6, 12, 18].map((h) => h * HOUR + 45 * MINUTE));
    for (const pair of byTime.values()) {
      const ids = pair.map((r) => Number(r.symbol.slice(1))).sort((a, b) => a - b);
      expect(pair.every((r) => r.family === 'hip4')).toBe(true);
      expect(ids[1]).toBe(ids[0]! + 1);
      expect(ids[0]! % 10).toBe(0);
      expect(pair.map((r) => r.resolution).sort()).toEqual(['no', 'yes']);
      expect(pair.map((r) => [r.resolution, r.settle_price]).sort()).toEqual([['no', '0'], ['yes', '1']]);
    }
    expect(new Set(settled.map((r) => r.symbol)).size).toBe(8);
  });

  it('returns valid records sorted by time, all inside the window', () => {
    // Prepare
    const upstream = createUpstream(SEED);
    const from = T0 + 30 * MINUTE;
    const until = T0 + DAY - 30 * MINUTE;

    // Act
    const records = upstream.apply([], from, until);

    // Assess
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => r.ts >= from && r.ts < until)).toBe(true);
    expect(records.map((r) => r.ts)).toEqual(records.map((r) => r.ts).sort((a, b) => a - b));
    expect(records.filter((r) => !v.safeParse(NormalizedRecord, r).success)).toEqual([]);
    // The window leaves out the first upgrade's start (00:17) but keeps the 00:45 settlement.
    expect(only(records, 'chain_events').some((r) => r.ts === T0 + 17 * MINUTE)).toBe(false);
    expect(only(records, 'settlements').some((r) => r.ts === T0 + 45 * MINUTE)).toBe(true);
  });

  it('gives the same records for the same seed and other commits for another seed', () => {
    // Prepare
    const [a, b, c] = [createUpstream(SEED), createUpstream(SEED), createUpstream(SEED + 1)];

    // Act
    const [first, again, other] = [a, b, c].map((u) => u.apply([], T0, T0 + DAY));

    // Assess
    expect(again).toEqual(first);
    const commits = (records: NormalizedRecord[]) => only(records, 'chain_events').map((r) => r.commit);
    expect(commits(other!).filter((commit) => commits(first!).includes(commit))).toEqual([]);
  });

  it.each([
    ['in two halves', T0 + 12 * HOUR],
    ['split between an upgrade\'s start and completion', T0 + 8 * HOUR + 18 * MINUTE],
  ])('gives the same scheduled records when the day is applied %s', (_, split) => {
    // Prepare
    const whole = createUpstream(SEED);
    const parts = createUpstream(SEED);

    // Act
    const once = whole.apply([], T0, T0 + DAY);
    const twice = [...parts.apply([], T0, split), ...parts.apply([], split, T0 + DAY)];

    // Assess
    expect(twice).toEqual(once);
  });
});

describe('createUpstream: trades and books', () => {
  it('adds a priority gas payment of 1.5 tokens and up to the first perpx trade at or after each :07, :27 and :47', () => {
    // Prepare
    const records = [
      trade({ ts: T0 + 7 * MINUTE, trade_id: 1 }),
      trade({ ts: T0 + 7 * MINUTE + 30 * SECOND, trade_id: 2 }),
      trade({ ts: T0 + 26 * MINUTE + 59 * SECOND, trade_id: 3 }),
      trade({ ts: T0 + 27 * MINUTE + 5 * SECOND, trade_id: 4 }),
      trade({ ts: T0 + 27 * MINUTE + 10 * SECOND, trade_id: 5 }),
      trade({ ts: T0 + 47 * MINUTE, trade_id: 6, family: 'hip3', symbol: 'xyz:TSLA' }),
      trade({ ts: T0 + 48 * MINUTE, trade_id: 7 }),
      trade({ ts: T0 + 49 * MINUTE, trade_id: 8 }),
    ];
    const upstream = createUpstream(SEED);

    // Act
    const out = only(upstream.apply(records, T0, T0 + HOUR), 'trades');

    // Assess
    const paid = out.filter((t) => t.priority_gas != null);
    expect(paid.map((t) => t.trade_id)).toEqual([1, 4, 7]);
    for (const t of paid) {
      expect(Number(t.priority_gas)).toBeGreaterThanOrEqual(1.5);
      expect(Number(t.priority_gas)).toBeLessThanOrEqual(6);
    }
    const unpaid = out.filter((t) => t.priority_gas == null);
    expect(unpaid).toEqual(records.filter((r) => ![1, 4, 7].includes(r.trade_id)));
    expect(out.map((t) => t.trade_id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('leaves a trade that already carries a payment as it is and pays the next one', () => {
    // Prepare
    const records = [trade({ ts: T0 + 7 * MINUTE, trade_id: 1, priority_gas: '2.5' }), trade({ ts: T0 + 8 * MINUTE, trade_id: 2 })];
    const upstream = createUpstream(SEED);

    // Act
    const out = only(upstream.apply(records, T0, T0 + HOUR), 'trades');

    // Assess
    expect(out[0]).toEqual(records[0]);
    expect(Number(out[1]!.priority_gas)).toBeGreaterThanOrEqual(1.5);
  });

  it('drops altx trades 20 to 26 minutes past each 4-hour boundary and keeps the others', () => {
    // Prepare
    const altx = (ts: number, id: number) => trade({ ts, trade_id: id, family: 'altx', symbol: 'ETH', user_address: null });
    const records = [
      altx(T0 + 19 * MINUTE + 59 * SECOND, 1), altx(T0 + 20 * MINUTE, 2), altx(T0 + 26 * MINUTE - 1, 3), altx(T0 + 26 * MINUTE, 4),
      trade({ ts: T0 + 21 * MINUTE, trade_id: 5, family: 'hip3', symbol: 'xyz:TSLA' }),
      altx(T0 + 4 * HOUR + 21 * MINUTE, 6), altx(T0 + 2 * HOUR + 21 * MINUTE, 7),
    ];
    const upstream = createUpstream(SEED);

    // Act
    const out = only(upstream.apply(records, T0, T0 + DAY), 'trades');

    // Assess
    expect(out.map((t) => t.trade_id)).toEqual([1, 5, 4, 7]);
  });

  it('drops the stalled hip3 book 100 to 140 minutes past each 6-hour boundary and keeps other books', () => {
    // Prepare
    const { symbol } = STALLED_BOOK;
    const records = [
      book(symbol, T0 + 99 * MINUTE), book(symbol, T0 + 100 * MINUTE), book(symbol, T0 + 140 * MINUTE - 1), book(symbol, T0 + 140 * MINUTE),
      book('xyz:NVDA', T0 + 110 * MINUTE), book(symbol, T0 + 6 * HOUR + 120 * MINUTE), book(symbol, T0 + 3 * HOUR + 120 * MINUTE),
    ];
    const upstream = createUpstream(SEED);

    // Act
    const out = only(upstream.apply(records, T0, T0 + DAY), 'l2_snapshots');

    // Assess
    expect(symbol).toBe('xyz:TSLA');
    expect(out.map((r) => [r.symbol, r.ts - T0])).toEqual([
      [symbol, 99 * MINUTE], ['xyz:NVDA', 110 * MINUTE], [symbol, 140 * MINUTE], [symbol, 5 * HOUR],
    ]);
  });
});

describe('createUpstream: TWAPs', () => {
  const START = T0 + HOUR + 10 * MINUTE;
  const slices = [
    trade({ ts: START, trade_id: 1, twap_id: 5, size: '1' }),
    trade({ ts: START + 30 * SECOND, trade_id: 2, twap_id: 5, size: '2' }),
    trade({ ts: START + 60 * SECOND, trade_id: 3, twap_id: 5, size: '0.5' }),
  ];

  it('reports a TWAP activated at its first slice', () => {
    // Prepare
    const upstream = createUpstream(SEED);

    // Act
    const twaps = only(upstream.apply(slices, T0 + HOUR, T0 + 2 * HOUR), 'twaps');

    // Assess
    expect(twaps[0]).toMatchObject({ family: 'perpx', symbol: 'BTC', ts: START, twap_id: 5, user_address: ALICE, status: 'activated', side: 'B' });
    expect(twaps.filter((r) => r.status === 'activated')).toHaveLength(1);
  });

  it('reports it finished 90 s after its last slice with the slices\' sizes summed, and not before', () => {
    // Prepare
    const upstream = createUpstream(SEED);
    const done = START + 60 * SECOND + 90 * SECOND;

    // Act
    const early = only(upstream.apply(slices, T0 + HOUR, done), 'twaps');
    const late = only(upstream.apply([], done, T0 + 2 * HOUR), 'twaps');

    // Assess
    expect(early.map((r) => r.status)).toEqual(['activated']);
    expect(late).toHaveLength(1);
    expect(late[0]).toMatchObject({ ts: done, twap_id: 5, status: 'finished', user_address: ALICE });
    expect(Number(late[0]!.executed_size)).toBe(3.5);
  });

  it('reports nothing for a TWAP on altx, whose venue does not report TWAPs', () => {
    // Prepare
    const upstream = createUpstream(SEED);
    const records = [
      trade({ ts: START, trade_id: 1, twap_id: 6, family: 'altx', symbol: 'ETH' }),
      trade({ ts: START + 30 * SECOND, trade_id: 2, twap_id: 6, family: 'altx', symbol: 'ETH' }),
    ];

    // Act
    const out = upstream.apply(records, T0 + HOUR, T0 + 2 * HOUR);

    // Assess
    expect(only(out, 'twaps')).toEqual([]);
    expect(only(out, 'trades').map((t) => t.trade_id)).toEqual([1, 2]);
  });
});
