import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { L4Book, type BookDiff, type BookOrder, type CheckpointOrder } from '#core/book/l4-book.ts';
import { canonicalDecimal, difference, midpoint, sumDecimals } from '#core/book/decimal.ts';

const USER = '0x00000000000000000000000000000000000a11ce';

/** A stream of valid diffs over a small price grid, with queue jumps, partial updates and removals. */
const diffStream = fc
  .array(
    fc.record({
      kind: fc.constantFrom('new', 'new', 'new', 'update', 'remove'),
      side: fc.constantFrom('B' as const, 'A' as const),
      tick: fc.integer({ min: 1, max: 8 }),
      size: fc.integer({ min: 0, max: 500 }),
      pick: fc.nat(),
      jump: fc.boolean(),
    }),
    { maxLength: 120 },
  )
  .map((steps) => {
    const live: BookOrder[] = [];
    const diffs: BookDiff[] = [];
    let oid = 1;
    steps.forEach((step, i) => {
      const ts = 1_000 + i;
      if (step.kind === 'new' || live.length === 0) {
        // Bids below 5, asks from 5 up, so the book only crosses when a test means it to.
        const price = step.side === 'B' ? `${step.tick % 5}.${step.tick}` : `${5 + step.tick}.5`;
        const peers = live.filter((o) => o.side === step.side && o.price === canonicalDecimal(price));
        const before = step.jump && peers.length > 0 ? peers[step.pick % peers.length]!.oid : null;
        const order = {
          oid: oid++,
          user: USER,
          side: step.side,
          price: canonicalDecimal(price),
          size: String(step.size + 1),
          origSize: String(step.size + 1),
          placedAt: ts,
        };
        live.push(order);
        diffs.push({
          ts,
          oid: order.oid,
          user_address: USER,
          side: order.side,
          price,
          diff_type: 'new',
          new_size: `${step.size + 1}.0`,
          insert_before: before,
        });
        return;
      }
      const target = live[step.pick % live.length]!;
      if (step.kind === 'update' && step.size > 0) {
        target.size = String(step.size);
        diffs.push({
          ts,
          oid: target.oid,
          user_address: USER,
          side: target.side,
          price: target.price,
          diff_type: 'update',
          new_size: String(step.size),
          insert_before: null,
        });
      } else {
        live.splice(live.indexOf(target), 1);
        diffs.push({
          ts,
          oid: target.oid,
          user_address: USER,
          side: target.side,
          price: target.price,
          diff_type: 'remove',
          new_size: null,
          insert_before: null,
        });
      }
    });
    return diffs;
  });

/** The reference: one list per side in arrival order (a jump inserts before its peer), sorted by price when read. */
function referenceBook(diffs: readonly BookDiff[]) {
  const orders: BookOrder[] = [];
  for (const d of diffs) {
    const at = orders.findIndex((o) => o.oid === d.oid);
    if (d.diff_type === 'new') {
      const order = {
        oid: d.oid,
        user: d.user_address,
        side: d.side,
        price: canonicalDecimal(d.price),
        size: canonicalDecimal(d.new_size!),
        origSize: canonicalDecimal(d.new_size!),
        placedAt: d.ts,
      };
      const before = d.insert_before === null ? -1 : orders.findIndex((o) => o.oid === d.insert_before);
      if (before < 0) orders.push(order);
      else orders.splice(before, 0, order);
    } else if (d.diff_type === 'update') orders[at]!.size = canonicalDecimal(d.new_size!);
    else orders.splice(at, 1);
  }
  const side = (s: 'B' | 'A') =>
    orders
      .filter((o) => o.side === s)
      .map((o, i) => ({ o, i }))
      .sort((a, b) => (s === 'B' ? Number(b.o.price) - Number(a.o.price) : Number(a.o.price) - Number(b.o.price)) || a.i - b.i)
      .map(({ o }) => o);
  return { bids: side('B'), asks: side('A') };
}

const replay = (diffs: readonly BookDiff[], book = new L4Book()) => {
  for (const d of diffs) book.apply(d);
  return book;
};
const asCheckpoint = (orders: readonly BookOrder[]): CheckpointOrder[] => orders.map((o) => [o.oid, o.user, o.price, o.size, o.placedAt, o.origSize]);

describe('the order-level book', () => {
  it('holds every resting order in price priority and queue order, as a reference list does', () => {
    fc.assert(
      fc.property(diffStream, (diffs) => {
        const book = replay(diffs);
        const reference = referenceBook(diffs);
        expect(book.side('B')).toEqual(reference.bids);
        expect(book.side('A')).toEqual(reference.asks);
        expect(book.anomalies).toBe(0);
        // No order appears twice.
        const oids = [...book.side('B'), ...book.side('A')].map((o) => o.oid);
        expect(new Set(oids).size).toBe(oids.length);
      }),
    );
  });

  it('rebuilt from a checkpoint at any point plus the diffs after it equals the book replayed from the start', () => {
    fc.assert(
      fc.property(diffStream, fc.nat(), (diffs, at) => {
        const split = diffs.length === 0 ? 0 : at % (diffs.length + 1);
        const early = replay(diffs.slice(0, split));
        const rebuilt = replay(diffs.slice(split), L4Book.fromCheckpoint(asCheckpoint(early.side('B')), asCheckpoint(early.side('A'))));
        const full = replay(diffs);
        expect(rebuilt.side('B')).toEqual(full.side('B'));
        expect(rebuilt.side('A')).toEqual(full.side('A'));
      }),
    );
  });

  it('aggregates to L2 levels that are exactly its orders summed by price, best first', () => {
    fc.assert(
      fc.property(diffStream, (diffs) => {
        const book = replay(diffs);
        for (const side of ['B', 'A'] as const) {
          const orders = book.side(side);
          const prices = [...new Set(orders.map((o) => o.price))];
          expect(book.levels(side)).toEqual(
            prices.map((price) => {
              const at = orders.filter((o) => o.price === price);
              return { price, size: sumDecimals(at.map((o) => o.size)), count: at.length };
            }),
          );
        }
      }),
    );
  });

  it('flags a crossed book instead of repairing it, and counts diffs naming orders it does not hold', () => {
    const book = new L4Book();
    const diff = (oid: number, side: 'B' | 'A', price: string, type: BookDiff['diff_type'] = 'new'): BookDiff => ({
      ts: 1,
      oid,
      user_address: USER,
      side,
      price,
      diff_type: type,
      new_size: type === 'remove' ? null : '1',
      insert_before: null,
    });
    book.apply(diff(1, 'B', '101'));
    book.apply(diff(2, 'A', '100'));
    expect(book.isCrossed()).toBe(true);
    expect(book.side('B').map((o) => o.oid)).toEqual([1]);
    book.apply(diff(9, 'A', '100', 'remove'));
    book.apply(diff(9, 'A', '100', 'update'));
    expect(book.anomalies).toBe(2);
    // An update to zero leaves nothing resting.
    book.apply({ ...diff(2, 'A', '100', 'update'), new_size: '0' });
    expect(book.isCrossed()).toBe(false);
    expect(book.size).toBe(1);
  });
});

describe('exact decimals', () => {
  const decimal = fc.tuple(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), fc.integer({ min: 0, max: 8 })).map(([units, scale]) => ({
    units,
    scale,
    text:
      scale === 0
        ? units.toString()
        : (() => {
            const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
            return `${units < 0n ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
          })(),
  }));

  it('sums without rounding, in canonical form', () => {
    fc.assert(
      fc.property(fc.array(decimal, { maxLength: 20 }), (values) => {
        const scale = 8;
        const total = values.reduce((sum, v) => sum + v.units * 10n ** BigInt(scale - v.scale), 0n);
        const digits = (total < 0n ? -total : total).toString().padStart(scale + 1, '0');
        const expected = canonicalDecimal(`${total < 0n ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`);
        expect(sumDecimals(values.map((v) => v.text))).toBe(expected === '-0' ? '0' : expected);
        expect(sumDecimals(values.map((v) => v.text))).toMatch(/^-?\d+(\.\d*[1-9])?$/);
        expect(canonicalDecimal(sumDecimals(values.map((v) => v.text)))).toBe(sumDecimals(values.map((v) => v.text)));
      }),
    );
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3');
    expect(sumDecimals([])).toBe('0');
    expect(midpoint('100', '101')).toBe('100.5');
    expect(difference('0.3', '0.1')).toBe('0.2');
    expect(difference('1', '-1')).toBe('2');
  });
});
