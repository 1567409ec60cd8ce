import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createUpstream, STALLED_BOOK } from '#local/demo/upstream.ts';
import { NormalizedRecord, type TradeRecord } from '#schemas/datasets.ts';
import { T0 } from '#test/helpers/records.ts';

type RecordOf<D extends NormalizedRecord['dataset']> = Extract<NormalizedRecord, { dataset: D }>;

const SECOND = 1_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SEED = 7;
const ALICE = `0x${'a1'.repeat(20)}`;

const only = <D extends NormalizedRecord['dataset']>(records: readonly NormalizedRecord[], dataset: D) =>
  records.filter((r): r is RecordOf<D> => r.dataset === dataset);

function trade(overrides: Partial<TradeRecord> & { ts: number; trade_id: number }): TradeRecord {
  return {
    dataset: 'trades',
    family: 'perpx',
    symbol: 'BTC',
    side: 'B',
    price: '100',
    size: '1',
    crossed: true,
    user_address: ALICE,
    ...overrides,
  } as TradeRecord;
}

function book(symbol: string, ts: number): RecordOf<'l2_snapshots'> {
  return { dataset: 'l2_snapshots', family: 'hip3', symbol, ts, bids: [['10', '1', 1]], asks: [['11', '1', 1]] };
}

describe('createUpstream: scheduled records', () => {
  it('starts a node upgrade every 30 minutes, at :17 and :47, and completes it 3 to 9 minutes later, carrying when it started', () => {
    // Prepare
    const upstream = createUpstream(SEED);

    // Act
    const chain = only(upstream.apply([], T0, T0 + DAY), 'chain_events');

    // Assess
    const started = chain.filter((r) => r.kind === 'upgrade_started');
    const completed = chain.filter((r) => r.kind === 'upgrade_completed');
    expect(started.map((r) => r.ts - T0)).toEqual(Array.from({ length: 48 }, (_, i) => i * 30 * MINUTE + 17 * MINUTE));
    expect(started.slice(0, 4).map((r) => (r.ts % HOUR) / MINUTE)).toEqual([17, 47, 17, 47]);
    expect(completed).toHaveLength(48);
    for (const [i, done] of completed.entries()) {
      expect(done.commit).toBe(started[i]!.commit);
      expect(done.started_at).toBe(started[i]!.ts);
      expect(done.ts - done.started_at!).toBeGreaterThanOrEqual(3 * MINUTE);
      expect(done.ts - done.started_at!).toBeLessThanOrEqual(9 * MINUTE);
      expect((done.ts - done.started_at!) % MINUTE).toBe(0);
    }
    expect(new Set(started.map((r) => r.commit)).size).toBe(48);
  });

  it('settles both sides of one outcome every 30 minutes at :05 and :35, the four outcomes in turn, one yes and one no', () => {
    // Prepare
    const upstream = createUpstream(SEED);

    // Act
    const settled = only(upstream.apply([], T0, T0 + DAY), 'settlements');

    // Assess
    expect(settled).toHaveLength(96);
    const byTime = new Map<number, RecordOf<'settlements'>[]>();
    for (const r of settled) byTime.set(r.ts, [...(byTime.get(r.ts) ?? []), r]);
    expect([...byTime.keys()].map((ts) => ts - T0)).toEqual(Array.from({ length: 48 }, (_, i) => i * 30 * MINUTE + 5 * MINUTE));
    const outcomes = [...byTime.values()].map((pair) => Math.min(...pair.map((r) => Number(r.symbol.slice(1)))) / 10);
    expect(outcomes).toEqual(Array.from({ length: 48 }, (_, i) => i % 4));
    for (const pair of byTime.values()) {
      const ids = pair.map((r) => Number(r.symbol.slice(1))).sort((a, b) => a - b);
      expect(pair.every((r) => r.family === 'hip4')).toBe(true);
      expect(ids[1]).toBe(ids[0]! + 1);
      expect(ids[0]! % 10).toBe(0);
      expect(pair.map((r) => r.resolution).sort()).toEqual(['no', 'yes']);
      expect(pair.map((r) => [r.resolution, r.settle_price]).sort()).toEqual([
        ['no', '0'],
        ['yes', '1'],
      ]);
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
    // The window leaves out the 00:05 settlement and the first upgrade's start (00:17), and those of 23:35 and 23:47,
    // but keeps the 00:35 settlement and the 00:47 upgrade.
    expect(only(records, 'settlements').some((r) => r.ts === T0 + 5 * MINUTE)).toBe(false);
    expect(only(records, 'chain_events').some((r) => r.ts === T0 + 17 * MINUTE)).toBe(false);
    expect(only(records, 'settlements').some((r) => r.ts === T0 + DAY - 25 * MINUTE)).toBe(false);
    expect(only(records, 'chain_events').some((r) => r.ts === T0 + DAY - 13 * MINUTE)).toBe(false);
    expect(only(records, 'settlements').some((r) => r.ts === T0 + 35 * MINUTE)).toBe(true);
    expect(only(records, 'chain_events').some((r) => r.ts === T0 + 47 * MINUTE && r.kind === 'upgrade_started')).toBe(true);
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
    ['in two halves', T0 + 12 * HOUR, false],
    ['split between the start and completion of an upgrade started at :17', T0 + 8 * HOUR + 18 * MINUTE, true],
    ['split between the start and completion of an upgrade started at :47', T0 + 13 * HOUR + 48 * MINUTE, true],
  ])('gives the same scheduled records when the day is applied %s', (_, split, straddled) => {
    // Prepare
    const whole = createUpstream(SEED);
    const parts = createUpstream(SEED);

    // Act
    const once = whole.apply([], T0, T0 + DAY);
    const twice = [...parts.apply([], T0, split), ...parts.apply([], split, T0 + DAY)];

    // Assess
    const upgrades = only(once, 'chain_events').filter((r) => r.kind === 'upgrade_completed');
    expect(upgrades.some((r) => r.started_at! < split && r.ts >= split)).toBe(straddled);
    expect(twice).toEqual(once);
  });
});

describe('createUpstream: trades and books', () => {
  it('adds a priority gas payment of 1.5 tokens and up to the first perpx trade at or after each :07 and :37', () => {
    // Prepare
    const records = [
      trade({ ts: T0 + 7 * MINUTE, trade_id: 1 }),
      trade({ ts: T0 + 7 * MINUTE + 30 * SECOND, trade_id: 2 }),
      trade({ ts: T0 + 36 * MINUTE + 59 * SECOND, trade_id: 3 }),
      trade({ ts: T0 + 37 * MINUTE, trade_id: 4, family: 'hip3', symbol: 'xyz:TSLA' }),
      trade({ ts: T0 + 37 * MINUTE + 5 * SECOND, trade_id: 5 }),
      trade({ ts: T0 + 37 * MINUTE + 10 * SECOND, trade_id: 6 }),
      trade({ ts: T0 + HOUR + 8 * MINUTE, trade_id: 7 }),
      trade({ ts: T0 + HOUR + 9 * MINUTE, trade_id: 8 }),
    ];
    const upstream = createUpstream(SEED);

    // Act
    const out = only(upstream.apply(records, T0, T0 + 2 * HOUR), 'trades');

    // Assess
    const paid = out.filter((t) => t.priority_gas != null);
    expect(paid.map((t) => t.trade_id)).toEqual([1, 5, 7]);
    for (const t of paid) {
      expect(Number(t.priority_gas)).toBeGreaterThanOrEqual(1.5);
      expect(Number(t.priority_gas)).toBeLessThanOrEqual(6);
    }
    const unpaid = out.filter((t) => t.priority_gas == null);
    expect(unpaid).toEqual(records.filter((r) => ![1, 5, 7].includes(r.trade_id)));
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

  it('drops altx trades 20 to 26 minutes past every hour and keeps the others', () => {
    // Prepare
    const altx = (ts: number, id: number) => trade({ ts, trade_id: id, family: 'altx', symbol: 'ETH', user_address: null });
    const records = [
      altx(T0 + 19 * MINUTE + 59 * SECOND, 1),
      altx(T0 + 20 * MINUTE, 2),
      altx(T0 + 26 * MINUTE - 1, 3),
      altx(T0 + 26 * MINUTE, 4),
      trade({ ts: T0 + 21 * MINUTE, trade_id: 5, family: 'hip3', symbol: 'xyz:TSLA' }),
      altx(T0 + HOUR + 21 * MINUTE, 6),
      altx(T0 + HOUR + 30 * MINUTE, 7),
      altx(T0 + 7 * HOUR + 25 * MINUTE, 8),
      altx(T0 + 7 * HOUR + 19 * MINUTE, 9),
      altx(T0 + 23 * HOUR + 20 * MINUTE, 10),
    ];
    const upstream = createUpstream(SEED);

    // Act
    const out = only(upstream.apply(records, T0, T0 + DAY), 'trades');

    // Assess
    expect(out.map((t) => t.trade_id)).toEqual([1, 5, 4, 7, 9]);
  });

  it('drops the stalled hip3 book 38 to 50 minutes past every hour and keeps other books', () => {
    // Prepare
    const { symbol } = STALLED_BOOK;
    const records = [
      book(symbol, T0 + 37 * MINUTE),
      book(symbol, T0 + 38 * MINUTE),
      book(symbol, T0 + 50 * MINUTE - 1),
      book(symbol, T0 + 50 * MINUTE),
      book('xyz:NVDA', T0 + 44 * MINUTE),
      book(symbol, T0 + HOUR + 44 * MINUTE),
      book(symbol, T0 + HOUR + 55 * MINUTE),
      book(symbol, T0 + 9 * HOUR + 38 * MINUTE),
      book(symbol, T0 + 9 * HOUR + 20 * MINUTE),
    ];
    const upstream = createUpstream(SEED);

    // Act
    const out = only(upstream.apply(records, T0, T0 + DAY), 'l2_snapshots');

    // Assess
    expect(symbol).toBe('xyz:TSLA');
    expect(out.map((r) => [r.symbol, r.ts - T0])).toEqual([
      [symbol, 37 * MINUTE],
      ['xyz:NVDA', 44 * MINUTE],
      [symbol, 50 * MINUTE],
      [symbol, HOUR + 55 * MINUTE],
      [symbol, 9 * HOUR + 20 * MINUTE],
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

  it("reports it finished 90 s after its last slice with the slices' sizes summed, and not before", () => {
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
