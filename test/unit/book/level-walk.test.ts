/**
 * The level walk behind L2 diffs and tick history, over generated books: the levels it starts from,
 * moved by its changes (size 0 removes a level), are the book's levels after every block, at full
 * depth and truncated to any depth (levels entering and leaving the top included).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { L4Book, type CheckpointOrder, type Level } from '#core/book/l4-book.ts';
import { LevelWalk, type SequencedDiff } from '#core/book/level-walk.ts';

const OWNER = '42';

/** Blocks of diffs over a grid of 8 prices a side: placements, resizes, removals, orders placed and taken in one block. */
const blocks = fc
  .array(
    fc.array(
      fc.record({
        kind: fc.constantFrom('new', 'new', 'update', 'remove', 'flash'),
        side: fc.constantFrom<'B' | 'A'>('B', 'A'),
        level: fc.integer({ min: 1, max: 8 }),
        size: fc.integer({ min: 1, max: 50 }),
        pick: fc.nat(),
      }),
      { minLength: 1, maxLength: 6 },
    ),
    { minLength: 1, maxLength: 60 },
  )
  .map((steps) => {
    const live: { oid: number; side: 'B' | 'A'; price: string }[] = [];
    let oid = 1;
    return steps.map((block, b) => {
      const diffs: SequencedDiff[] = [];
      const emit = (diff: Omit<SequencedDiff, 'ts' | 'block_number' | 'seq' | 'user_address' | 'insert_before'>) =>
        diffs.push({ ...diff, ts: 1_000 + b, block_number: b, seq: diffs.length, user_address: OWNER, insert_before: null });
      for (const step of block) {
        const price = String(step.side === 'B' ? 100 - step.level : 100 + step.level);
        if (step.kind === 'new' || step.kind === 'flash' || live.length === 0) {
          const order = { oid: oid++, side: step.side, price };
          emit({ oid: order.oid, side: step.side, price, diff_type: 'new', new_size: String(step.size) });
          if (step.kind === 'flash') emit({ oid: order.oid, side: step.side, price, diff_type: 'remove', new_size: null });
          else live.push(order);
          continue;
        }
        const target = live[step.pick % live.length]!;
        if (step.kind === 'update') emit({ oid: target.oid, side: target.side, price: target.price, diff_type: 'update', new_size: String(step.size) });
        else {
          live.splice(live.indexOf(target), 1);
          emit({ oid: target.oid, side: target.side, price: target.price, diff_type: 'remove', new_size: null });
        }
      }
      return diffs;
    });
  });

const checkpointOf = (book: L4Book, side: 'B' | 'A'): CheckpointOrder[] => book.side(side).map((o) => [o.oid, o.user, o.price, o.size, o.placedAt]);
const asPairs = (levels: readonly Level[]) => levels.map((l) => [l.price, l.size, l.count]);

describe('the level walk', () => {
  it("replays from the levels it starts at into the book's levels after every block, at any depth", () => {
    fc.assert(
      fc.property(blocks, fc.nat(), fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }), (all, cut, depth) => {
        // Prepare: the walk starts from a checkpoint some blocks in; a reference book takes every diff.
        const start = cut % all.length;
        const reference = new L4Book();
        for (const block of all.slice(0, start)) for (const diff of block) reference.apply(diff);
        const walk = new LevelWalk(L4Book.fromCheckpoint(checkpointOf(reference, 'B'), checkpointOf(reference, 'A')), depth);
        const replayed = { B: new Map(walk.levels('B').map((l) => [l.price, l])), A: new Map(walk.levels('A').map((l) => [l.price, l])) };
        for (const block of all.slice(start)) {
          // Act
          const changes = walk.block(block);
          for (const diff of block) reference.apply(diff);
          for (const c of changes) {
            if (c.count === 0) replayed[c.side].delete(c.price);
            else replayed[c.side].set(c.price, { price: c.price, size: c.size, count: c.count });
          }
          // Assess
          expect(changes.every((c, i) => i === 0 || c.seq >= changes[i - 1]!.seq)).toBe(true);
          expect(changes.every((c) => (c.size === '0') === (c.count === 0))).toBe(true);
          for (const side of ['B', 'A'] as const) {
            const shown = [...replayed[side].values()].sort((a, b) => (side === 'B' ? Number(b.price) - Number(a.price) : Number(a.price) - Number(b.price)));
            expect(asPairs(shown)).toEqual(asPairs(reference.levels(side, depth)));
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('names a level that rises into the top, and one pushed out of it, though no diff touched them', () => {
    // Prepare: bids at 99 and 98, shown one deep.
    const book = L4Book.fromCheckpoint(
      [
        [1, OWNER, '99', '1', null],
        [2, OWNER, '98', '2', null],
      ],
      [],
    );
    const walk = new LevelWalk(book, 1);
    const diff = (seq: number, d: Partial<SequencedDiff>): SequencedDiff => ({
      ts: 5,
      block_number: 7,
      seq,
      oid: 1,
      user_address: OWNER,
      side: 'B',
      price: '99',
      diff_type: 'remove',
      new_size: null,
      insert_before: null,
      ...d,
    });
    // Act, assess: 99 leaves, 98 rises into view; then a better bid pushes 98 out again.
    expect(walk.block([diff(0, {})]).map((c) => [c.price, c.size, c.seq])).toEqual([
      ['98', '2', 0],
      ['99', '0', 0],
    ]);
    expect(walk.block([diff(0, { oid: 3, price: '99.5', diff_type: 'new', new_size: '4' })]).map((c) => [c.price, c.size])).toEqual([
      ['99.5', '4'],
      ['98', '0'],
    ]);
  });
});
