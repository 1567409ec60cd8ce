/** The position engine and its shapes, pure: continuity, entry accounting, funding, snapshots that round-trip, summaries. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyFill, bookFromSnapshot, chargeFunding, snapshotRows, type Book, type Fill, type SnapshotContext } from '#core/positions/engine.ts';
import { fixed, roundedText, text } from '#core/positions/fixed.ts';
import { accountSummaryOf, marketSummaryOf } from '#core/positions/shape.ts';

const ALICE = '0x00000000000000000000000000000000000000a1';
const BOB = '0x00000000000000000000000000000000000000b2';
let tradeId = 0;
const fill = (account: string, symbol: string, signed: string, price: string, start: string | null, ts = 1_000 + tradeId): Fill => ({
  ts,
  trade_id: tradeId++,
  symbol,
  account,
  side: signed.startsWith('-') ? 'A' : 'B',
  price,
  size: signed.replace('-', ''),
  start_position: start,
});
const ctx: SnapshotContext = { markAt: () => ({ price: '110', time: 5_000 }), maxLeverageOf: () => 40, funding: true };

describe('the position engine', () => {
  it('averages the entry over increases, keeps it over reductions and restarts it on a flip', () => {
    // Prepare
    const book: Book = new Map();
    // Act
    const legs = [
      applyFill(book, fill(ALICE, 'BTC', '1', '100', '0')),
      applyFill(book, fill(ALICE, 'BTC', '3', '200', '1')),
      applyFill(book, fill(ALICE, 'BTC', '-2', '300', '4')),
      applyFill(book, fill(ALICE, 'BTC', '-5', '250', '2')),
      applyFill(book, fill(ALICE, 'BTC', '3', '240', '-3')),
    ];
    // Assess
    expect(legs.map((l) => [l.event_type, l.start_position, l.end_position, l.entry_price_after, l.continuity])).toEqual([
      ['open', '0', '1', '100', 'ok'],
      ['increase', '1', '4', '175', 'ok'],
      ['reduce', '4', '2', '175', 'ok'],
      ['flip', '2', '-3', '250', 'ok'],
      ['close', '-3', '0', null, 'ok'],
    ]);
    expect(book.size).toBe(0);
  });

  it('quarantines a leg whose size before contradicts the book: re-anchored, entry unknown, partial until a flip', () => {
    const book: Book = new Map();
    applyFill(book, fill(BOB, 'ETH', '2', '10', '0'));
    // A fill of +1 never reached the archive: the venue now reports 3 before this one.
    const quarantined = applyFill(book, fill(BOB, 'ETH', '1', '11', '3'));
    const [, row] = snapshotRows(book, 9_000, ctx);
    const flipped = applyFill(book, fill(BOB, 'ETH', '-6', '12', '4'));
    expect(quarantined).toMatchObject({ continuity: 'quarantined', start_position: '3', end_position: '4', entry_price_after: null });
    expect(row).toMatchObject({ size: '4', entry_price: null, unrealized_pnl: null, quality: 'partial', position_value: '440' });
    expect(flipped).toMatchObject({ continuity: 'ok', event_type: 'flip', entry_price_after: '12' });
    expect(snapshotRows(book, 9_500, ctx)[1]).toMatchObject({ size: '-2', quality: 'complete', opened_at: flipped.ts });
  });

  it("takes a first leg's size before as it is (the position predates the archive) and infers a missing one", () => {
    const book: Book = new Map();
    const first = applyFill(book, fill(ALICE, 'SOL', '-1', '20', '5'));
    const inferred = applyFill(book, fill(ALICE, 'SOL', '-1', '21', null));
    expect(first).toMatchObject({ continuity: 'first_seen', event_type: 'reduce', end_position: '4', opened_at: null, entry_price_after: null });
    expect(inferred).toMatchObject({ continuity: 'inferred', start_position: '4', end_position: '3' });
    expect(snapshotRows(book, 9_000, ctx)[1]).toMatchObject({ quality: 'partial', funding_all_time: null, funding_since_open: null });
  });

  it('charges funding on the size held, longs paying a positive rate, and restarts since_change on every leg', () => {
    const book: Book = new Map();
    applyFill(book, fill(ALICE, 'BTC', '2', '100', '0'));
    applyFill(book, fill(BOB, 'BTC', '-1', '100', '0'));
    chargeFunding(
      book,
      () => '0.001',
      () => ({ price: '100', time: 0 }),
    );
    applyFill(book, fill(ALICE, 'BTC', '1', '100', '2'));
    chargeFunding(
      book,
      () => '0.001',
      () => ({ price: '100', time: 0 }),
    );
    const rows = snapshotRows(book, 9_000, ctx);
    expect(rows.find((r) => r.account === ALICE)).toMatchObject({ funding_since_change: '0.3', funding_since_open: '0.5', funding_all_time: '0.5' });
    expect(rows.find((r) => r.account === BOB)).toMatchObject({ funding_since_change: '-0.2', funding_since_open: '-0.2' });
    expect(rows[0]).toMatchObject({ account: '', symbol: '', size: '2' });
  });

  it('rebuilds, from any snapshot it wrote, the book it would have gone on to hold (property)', () => {
    const legs = fc.array(
      fc.record({
        account: fc.constantFrom(ALICE, BOB),
        symbol: fc.constantFrom('BTC', 'ETH'),
        units: fc.integer({ min: -9, max: 9 }).filter((u) => u !== 0),
        price: fc.integer({ min: 1, max: 99_999 }),
        missing: fc.integer({ min: 0, max: 15 }),
      }),
      { minLength: 1, maxLength: 60 },
    );
    fc.assert(
      fc.property(legs, fc.nat(), (list, cut) => {
        const venue = new Map<string, bigint>();
        const lastDropped = new Map<string, boolean>();
        const fills = list.flatMap((l, i) => {
          const key = `${l.account}${l.symbol}`;
          const start = venue.get(key) ?? 0n;
          venue.set(key, start + BigInt(l.units));
          // Now and then a fill never reaches the archive; the venue's next size before still counts it.
          lastDropped.set(key, l.missing === 0);
          if (l.missing === 0) return [];
          return [fill(l.account, l.symbol, text(fixed(String(l.units)) / 1000n), `${l.price}.25`, text(fixed(String(start)) / 1000n), 10_000 + i)];
        });
        const at = cut % (fills.length + 1);
        const whole: Book = new Map();
        for (const f of fills) applyFill(whole, f);
        const first: Book = new Map();
        for (const f of fills.slice(0, at)) applyFill(first, f);
        const resumed = bookFromSnapshot(snapshotRows(first, 50_000, ctx));
        for (const f of fills.slice(at)) applyFill(resumed, f);
        expect(snapshotRows(resumed, 60_000, ctx)).toEqual(snapshotRows(whole, 60_000, ctx));
        // Sizes are exact: each market's size is the venue's (quarantine re-anchors to it), unless its last fill is the one missing.
        for (const row of snapshotRows(whole, 60_000, ctx).slice(1)) {
          const key = `${row.account}${row.symbol}`;
          if (!lastDropped.get(key)) expect(fixed(row.size)).toBe(venue.get(key)! * 10n ** 15n);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('fixed-point decimals', () => {
  it('round shown values half away from zero, the fast path agreeing with the exact one (property)', () => {
    const decimal = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 18 }))
      .map(([negative, units, scale]) => text((negative ? -units : units) * 10n ** BigInt(18 - scale)));
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 18 }), (value, places) => {
        expect(roundedText(value, places)).toBe(text(fixed(value), places));
      }),
    );
    expect([text(fixed('0.125'), 2), text(fixed('-0.125'), 2), text(fixed('2.5'), 0)]).toEqual(['0.13', '-0.13', '3']);
  });
});

describe('summaries', () => {
  const row = (account: string, size: string, entry: string | null, value: string | null) => ({
    symbol: 'BTC',
    ts: 0,
    account,
    size,
    entry_price: entry,
    position_value: value,
    unrealized_pnl: value === null ? null : '1',
    quality: 'complete' as const,
  });

  it('sum what is priced and answer null for a total over an unpriced position, never a partial sum', () => {
    const priced = [row(ALICE, '2', '100', '220'), row(BOB, '-1', '120', '110')];
    const summary = marketSummaryOf('perpx', 'BTC', priced, 0);
    expect(summary).toMatchObject({
      long_count: 1,
      short_count: 1,
      long_size: '2',
      short_size: '1',
      long_value: '220',
      short_value: '110',
      top10_value_share: '1',
    });
    const withUnpriced = marketSummaryOf('perpx', 'BTC', [...priced, row('0x00000000000000000000000000000000000000c3', '1', null, null)], 0);
    expect(withUnpriced).toMatchObject({ long_value: null, long_top10_value_share: null, long_positions_with_entry: 1, long_avg_entry_price: '100' });
    expect(accountSummaryOf('perpx', ALICE, [row(ALICE, '2', '100', '220'), row(ALICE, '1', null, null)], 0)).toMatchObject({
      total_position_value: null,
      n_positions: 2,
    });
  });

  it('weight average entries by size and share the ten largest values', () => {
    const rows = Array.from({ length: 12 }, (_, i) => row(`0x${String(i).padStart(40, '0')}`, String(i + 1), String(100 + i), String(10 * (i + 1))));
    const summary = marketSummaryOf('perpx', 'BTC', rows, 0);
    const sizes = rows.map((r) => Number(r.size));
    const average = rows.reduce((s, r) => s + Number(r.size) * Number(r.entry_price), 0) / sizes.reduce((a, b) => a + b, 0);
    expect(Number(summary.long_avg_entry_price)).toBeCloseTo(average, 6);
    expect(Number(summary.long_top10_value_share)).toBeCloseTo((780 - 10 - 20) / 780, 8);
  });
});
