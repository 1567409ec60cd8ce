/**
 * An order-level book walked block by block, seen as price levels: after each block, every level
 * the block changed, with its size and order count after it (size 0, count 0: the level is gone).
 * L2 diffs and altx tick history are this walk. Applied in order to the levels the walk started
 * from, the changes give the book's levels after every block, so a replay lands on every later
 * checkpoint of the same book.
 *
 * With a `depth`, the walk shows only the `depth` best levels a side, as a depth-truncated book
 * does: a level that enters the top (a better one emptied) is a change with its whole size, and one
 * pushed out of it (a better one placed) is a change to 0, though no diff named either. Without
 * this a replay from a truncated book would gain every level deltas touched below the depth and
 * miss every level that rose into it.
 */
import { canonicalDecimal } from './decimal.ts';
import type { BookDiff, BookSide, L4Book, Level } from './l4-book.ts';

/** A diff with its place in the venue's order: (block_number, seq). */
export interface SequencedDiff extends BookDiff {
  block_number: number;
  seq: number;
}

/** A price level a block changed, as the block left it (size 0 and count 0: the level is gone). */
export interface LevelChange {
  ts: number;
  block: number;
  seq: number;
  side: BookSide;
  price: string;
  size: string;
  count: number;
}

const GONE = { size: '0', count: 0 } as const;

export class LevelWalk {
  /** With a depth: the levels shown after the last block, per side, by price. */
  private readonly shown?: Record<BookSide, Map<string, Level>>;

  constructor(
    readonly book: L4Book,
    private readonly depth?: number,
  ) {
    if (depth !== undefined) this.shown = { B: byPrice(book.levels('B', depth)), A: byPrice(book.levels('A', depth)) };
  }

  /** The levels of a side the walk shows now, best first. */
  levels(side: BookSide): Level[] {
    return this.book.levels(side, this.depth);
  }

  /**
   * Applies one block's diffs (all of the same block, in seq order) to the book and returns the
   * levels it changed, in the order of the last diff that changed each. A level the block touched
   * and left as it was (an order placed and taken at once) is no change.
   */
  block(diffs: readonly SequencedDiff[]): LevelChange[] {
    const block = diffs[0]?.block_number ?? 0;
    // The touched levels as they were before the block, each with the seq of the last diff on it.
    const before = new Map<string, Level & { side: BookSide; seq: number }>();
    const lastSeq = new Map<BookSide, number>();
    let ts = 0;
    for (const diff of diffs) {
      const held = this.book.order(diff.oid);
      // The levels the diff acts on: the held order's (an update or remove names it) and a new order's.
      const touched: [BookSide, string][] = held ? [[held.side, held.price]] : [];
      if (diff.diff_type === 'new') touched.push([diff.side, canonicalDecimal(diff.price)]);
      for (const [side, price] of touched) {
        const level = before.get(`${side}${price}`);
        if (level) level.seq = diff.seq;
        else before.set(`${side}${price}`, { side, seq: diff.seq, ...this.book.level(side, price) });
        lastSeq.set(side, diff.seq);
      }
      this.book.apply(diff);
      ts = Math.max(ts, diff.ts);
    }
    const changes: LevelChange[] = [];
    const change = (side: BookSide, price: string, now: { size: string; count: number }, seq: number) =>
      changes.push({ ts, block, seq, side, price, size: now.size, count: now.count });
    if (!this.shown) {
      for (const level of before.values()) {
        const now = this.book.level(level.side, level.price);
        if (now.size !== level.size || now.count !== level.count) change(level.side, level.price, now, level.seq);
      }
    } else {
      // Only a side a diff touched can change what is shown of it. A level that entered or left the
      // top without a diff of its own carries the seq of the side's last diff: the change it follows.
      for (const [side, last] of lastSeq) {
        const was = this.shown[side];
        const now = byPrice(this.book.levels(side, this.depth));
        const seqOf = (price: string) => before.get(`${side}${price}`)?.seq ?? last;
        for (const [price, level] of now) {
          const old = was.get(price);
          if (!old || old.size !== level.size || old.count !== level.count) change(side, price, level, seqOf(price));
        }
        for (const price of was.keys()) if (!now.has(price)) change(side, price, GONE, seqOf(price));
        this.shown[side] = now;
      }
    }
    // A level's change carries the sequence of its last diff in the block, so a level touched again
    // after another would be listed out of order by first touch: order the block's changes by it.
    return changes.sort((a, b) => a.seq - b.seq);
  }
}

const byPrice = (levels: readonly Level[]) => new Map(levels.map((level) => [level.price, level]));
