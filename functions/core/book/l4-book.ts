/**
 * The order-level (L4) book of one market: every resting order, in price priority and, within a
 * price, in queue order. It is built from a checkpoint and moved forward by diffs (new, update,
 * remove), exactly as the venue reports them. Nothing is repaired: a crossed book stays crossed and
 * says so, and a diff that names an order the book does not hold is counted, not guessed at.
 */
import { canonicalDecimal, sumDecimals } from './decimal.ts';

export type BookSide = 'B' | 'A';

export interface BookOrder {
  oid: number;
  user: string;
  side: BookSide;
  /** Canonical decimal strings. */
  price: string;
  size: string;
  /** The size it was placed with (an update keeps it); its current size when unknown. */
  origSize: string;
  /** When the order took its place in the queue (epoch ms); null when unknown (it predates the record). */
  placedAt: number | null;
}

export interface BookDiff {
  ts: number;
  oid: number;
  user_address: string;
  side: BookSide;
  price: string;
  diff_type: 'new' | 'update' | 'remove';
  new_size: string | null;
  insert_before: number | null;
}

/** A checkpoint side as stored: [oid, owner, price, size, placed-at ms or null, original size?], best first, in queue order. */
export type CheckpointOrder = readonly [number, string, string, string, number | null] | readonly [number, string, string, string, number | null, string];

export interface Level {
  price: string;
  size: string;
  count: number;
}

export class L4Book {
  private readonly orders = new Map<number, BookOrder>();
  /** Price (canonical) -> oids in queue order, per side. */
  private readonly queues: Record<BookSide, Map<string, number[]>> = { B: new Map(), A: new Map() };
  /** Diffs that named an order the book does not hold (update, remove) or already holds (new). */
  anomalies = 0;

  static fromCheckpoint(bids: readonly CheckpointOrder[], asks: readonly CheckpointOrder[]): L4Book {
    const book = new L4Book();
    for (const [side, orders] of [
      ['B', bids],
      ['A', asks],
    ] as const) {
      for (const [oid, user, price, size, placedAt, origSize = size] of orders) {
        book.add({ oid, user, side, price: canonicalDecimal(price), size: canonicalDecimal(size), origSize: canonicalDecimal(origSize), placedAt }, null);
      }
    }
    return book;
  }

  get size(): number {
    return this.orders.size;
  }

  order(oid: number): BookOrder | undefined {
    return this.orders.get(oid);
  }

  apply(diff: BookDiff): void {
    const held = this.orders.get(diff.oid);
    if (diff.diff_type === 'new') {
      if (held) {
        this.anomalies++;
        this.remove(held);
      }
      const size = canonicalDecimal(diff.new_size ?? '0');
      if (size === '0') return;
      this.add(
        { oid: diff.oid, user: diff.user_address, side: diff.side, price: canonicalDecimal(diff.price), size, origSize: size, placedAt: diff.ts },
        diff.insert_before,
      );
      return;
    }
    if (!held) {
      this.anomalies++;
      return;
    }
    const size = diff.diff_type === 'update' ? canonicalDecimal(diff.new_size ?? '0') : '0';
    // An update keeps the order's place in its queue; one to zero leaves nothing resting.
    if (size === '0') this.remove(held);
    else held.size = size;
  }

  /** Every resting order of a side, best price first, in queue order within a price. */
  side(side: BookSide): BookOrder[] {
    return this.prices(side).flatMap((price) => this.queues[side].get(price)!.map((oid) => this.orders.get(oid)!));
  }

  /** The side aggregated by price, best first (the `limit` best only): the full-depth L2 book. */
  levels(side: BookSide, limit?: number): Level[] {
    return this.prices(side)
      .slice(0, limit)
      .map((price) => this.level(side, price));
  }

  /** How many price levels a side has. */
  levelCount(side: BookSide): number {
    return this.queues[side].size;
  }

  /** The exact sum of a side's resting sizes. */
  total(side: BookSide): string {
    return sumDecimals([...this.queues[side].values()].flatMap((queue) => queue.map((oid) => this.orders.get(oid)!.size)));
  }

  /** One price level's size and order count (zero when empty). */
  level(side: BookSide, price: string): Level {
    const queue = this.queues[side].get(price) ?? [];
    return { price, size: sumDecimals(queue.map((oid) => this.orders.get(oid)!.size)), count: queue.length };
  }

  best(side: BookSide): string | undefined {
    let best: string | undefined;
    for (const price of this.queues[side].keys()) {
      if (best === undefined || (side === 'B' ? Number(price) > Number(best) : Number(price) < Number(best))) best = price;
    }
    return best;
  }

  /** Best bid at or above best ask. */
  isCrossed(): boolean {
    const bid = this.best('B');
    const ask = this.best('A');
    return bid !== undefined && ask !== undefined && Number(bid) >= Number(ask);
  }

  private prices(side: BookSide): string[] {
    const prices = [...this.queues[side].keys()];
    return prices.sort(side === 'B' ? (a, b) => Number(b) - Number(a) : (a, b) => Number(a) - Number(b));
  }

  private add(order: BookOrder, insertBefore: number | null): void {
    this.orders.set(order.oid, order);
    const levels = this.queues[order.side];
    let queue = levels.get(order.price);
    if (!queue) levels.set(order.price, (queue = []));
    const at = insertBefore === null ? -1 : queue.indexOf(insertBefore);
    if (at < 0) queue.push(order.oid);
    else queue.splice(at, 0, order.oid);
  }

  private remove(order: BookOrder): void {
    this.orders.delete(order.oid);
    const levels = this.queues[order.side];
    const queue = levels.get(order.price)!;
    queue.splice(queue.indexOf(order.oid), 1);
    if (queue.length === 0) levels.delete(order.price);
  }
}
