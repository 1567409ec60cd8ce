/**
 * The venue-rate generator's own resting book of one market: orders by side and integer price tick,
 * each level a Set of order ids (a Set keeps insertion order, so it is the level's queue, and a
 * cancel from the middle is O(1)). The best price of each side is tracked, so placing at or behind
 * the touch and sweeping it stay cheap at 51,000 resting orders. It is the simulation's truth; the
 * archive's book (core/book/l4-book.ts) is rebuilt from what the generator writes, never from this.
 */

export type Side = 'B' | 'A';

export interface RestingOrder {
  oid: number;
  user: string;
  side: Side;
  tick: number;
  /** Remaining and original size, in the market's size units (integers). */
  size: number;
  origSize: number;
  placedAt: number;
}

export class TickBook {
  readonly orders = new Map<number, RestingOrder>();
  private readonly levels: Record<Side, Map<number, Set<number>>> = { B: new Map(), A: new Map() };
  private readonly bestTick: Record<Side, number | undefined> = { B: undefined, A: undefined };

  get size(): number {
    return this.orders.size;
  }

  best(side: Side): number | undefined {
    return this.bestTick[side];
  }

  add(order: RestingOrder): void {
    const levels = this.levels[order.side];
    let level = levels.get(order.tick);
    if (!level) levels.set(order.tick, (level = new Set()));
    level.add(order.oid);
    this.orders.set(order.oid, order);
    const best = this.bestTick[order.side];
    if (best === undefined || (order.side === 'B' ? order.tick > best : order.tick < best)) this.bestTick[order.side] = order.tick;
  }

  remove(oid: number): RestingOrder | undefined {
    const order = this.orders.get(oid);
    if (!order) return undefined;
    this.orders.delete(oid);
    const levels = this.levels[order.side];
    const level = levels.get(order.tick)!;
    level.delete(oid);
    if (level.size === 0) {
      levels.delete(order.tick);
      if (this.bestTick[order.side] === order.tick) this.bestTick[order.side] = this.nextBest(order.side, order.tick);
    }
    return order;
  }

  /** The side's best tick behind `from`: a walk over ticks while levels are dense, a scan of the levels when the side thinned out. */
  private nextBest(side: Side, from: number): number | undefined {
    const levels = this.levels[side];
    if (levels.size === 0) return undefined;
    const step = side === 'B' ? -1 : 1;
    for (let tick = from + step, walked = 0; walked < 256; tick += step, walked++) if (levels.has(tick)) return tick;
    let best: number | undefined;
    for (const tick of levels.keys()) if (best === undefined || (side === 'B' ? tick > best : tick < best)) best = tick;
    return best;
  }

  /** The order at the front of the side's best level (the next a taker meets). */
  front(side: Side): RestingOrder | undefined {
    const tick = this.bestTick[side];
    if (tick === undefined) return undefined;
    const first = this.levels[side].get(tick)!.values().next();
    return first.done ? undefined : this.orders.get(first.value);
  }

  /** A side's orders best first and in queue order within a level. */
  sideOrders(side: Side): RestingOrder[] {
    const ticks = [...this.levels[side].keys()].sort((a, b) => (side === 'B' ? b - a : a - b));
    return ticks.flatMap((tick) => [...this.levels[side].get(tick)!].map((oid) => this.orders.get(oid)!));
  }
}
