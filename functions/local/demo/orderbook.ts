/**
 * Each market's order book in the simulation, order by order: market makers' quotes on a ladder
 * around the mid and traders' resting orders, in price-time priority. Takers sweep it (exchange.ts),
 * makers requote it before a taker arrives and every few seconds, and the native 20-level snapshot
 * is its top. Every change is published as an order-level diff (L4 on the perpx families, L3 on
 * altx; altx-rh's serve its tick history), and the whole book as a checkpoint at the checkpoint
 * interval, so a book rebuilt from a checkpoint and the diffs after it is the book the simulation held.
 */
import type { L4CheckpointRecord, L4DiffRecord } from '#schemas/datasets.ts';
import { levelUnits, quoteOf } from './book.ts';
import { formatUnits } from './decimal.ts';
import type { Rng } from './random.ts';
import { ACCOUNT_NUMBERED, accountIndexOf } from './wallets.ts';
import { type MarketState, type RestingOrder, type Side, type SimBook, type SimOrder, type SimState, type Tick, midOf } from './state.ts';

/** Levels a side the makers keep quoted, and how far the mid may drift before a far quote is pulled. */
const LADDER_LEVELS = 20;
/**
 * Makers requote each market every this many seconds (and whenever a side of its book is empty),
 * and space their rungs by about half the move the price makes in that time: the ladder moves about
 * one rung a requote, so a market publishes a few diffs a minute between its trades.
 */
export const REQUOTE_EVERY_SEC = 60;
const KEEP_LEVELS = 26;
/** A venue block every 100 ms, as for order events; L4 diffs are numbered within it per family. */
const BLOCK_MS = 100;
/** Chance per requote that one maker trims a quote in place (an `update` that keeps its priority). */
const TRIM_CHANCE = 0.1;

/** The owner as the venue names it: a wallet address, or an account number where accounts are numbered. */
const ownerOf = (market: MarketState, address: string) => (ACCOUNT_NUMBERED.has(market.spec.family) ? accountIndexOf(address) : address);

const better = (side: Side, a: number, b: number) => (side === 'B' ? a > b : a < b);

/** The best price level of a side: its price text and queue, or undefined when the side is empty. */
export function bestLevel(book: SimBook, side: Side): SimOrder[] | undefined {
  let best: SimOrder[] | undefined;
  for (const queue of book.levels[side].values()) if (!best || better(side, queue[0]!.price, best[0]!.price)) best = queue;
  return best;
}

/**
 * True when a side has no quote, or its best maker quote is one the price has run through (a bid at
 * or above the quote's ask, an ask at or below its bid): makers requote before a taker meets it.
 */
export function needsRequote(market: MarketState, side: Side): boolean {
  const front = bestLevel(market.book, side)?.[0];
  if (!front) return true;
  if (front.resting) return false;
  const quote = quoteOf(market);
  return side === 'B' ? front.price * quote.scale >= quote.ask : front.price * quote.scale <= quote.bid;
}

/** Levels of a side best first, each as [price, size, orders], `limit` at most. */
export function topLevels(market: MarketState, side: Side, limit: number): [string, string, number][] {
  const queues = [...market.book.levels[side].values()].sort((a, b) => (side === 'B' ? b[0]!.price - a[0]!.price : a[0]!.price - b[0]!.price));
  return queues.slice(0, limit).map((queue) => [
    queue[0]!.priceText,
    formatUnits(
      queue.reduce((sum, o) => sum + o.units, 0),
      market.spec.szDecimals,
    ),
    queue.length,
  ]);
}

function emitDiff(state: SimState, tick: Tick, market: MarketState, ts: number, order: SimOrder, type: L4DiffRecord['diff_type'], units: number): void {
  const { family, symbol, szDecimals } = market.spec;
  const block = Math.floor(ts / BLOCK_MS);
  let cursor = tick.bookBlocks.get(family);
  if (cursor?.block !== block) tick.bookBlocks.set(family, (cursor = { block, seq: 0 }));
  if (tick.orderLevel) {
    tick.out.push({
      dataset: 'l4_diffs',
      family,
      symbol,
      ts,
      block_number: block,
      seq: cursor.seq,
      oid: order.oid,
      user_address: ownerOf(market, order.owner),
      side: order.side,
      price: order.priceText,
      diff_type: type,
      new_size: type === 'remove' ? null : formatUnits(units, szDecimals),
    } satisfies L4DiffRecord);
  }
  state.lastBookDiff.set(family, [block, cursor.seq++]);
}

export function addOrder(state: SimState, tick: Tick, market: MarketState, order: SimOrder): void {
  const { levels, orders } = market.book;
  let queue = levels[order.side].get(order.priceText);
  if (!queue) levels[order.side].set(order.priceText, (queue = []));
  queue.push(order);
  orders.set(order.oid, order);
  emitDiff(state, tick, market, order.placedAt, order, 'new', order.units);
}

/** Takes `units` off an order (a fill, or a trim that keeps its place); at zero it leaves the book. */
export function reduceOrder(state: SimState, tick: Tick, market: MarketState, order: SimOrder, units: number, ts: number): void {
  order.units -= units;
  if (order.units > 0) emitDiff(state, tick, market, ts, order, 'update', order.units);
  else removeOrder(state, tick, market, order, ts);
}

export function removeOrder(state: SimState, tick: Tick, market: MarketState, order: SimOrder, ts: number): void {
  const { levels, orders } = market.book;
  if (!orders.delete(order.oid)) return;
  const queue = levels[order.side].get(order.priceText)!;
  queue.splice(queue.indexOf(order), 1);
  if (queue.length === 0) levels[order.side].delete(order.priceText);
  emitDiff(state, tick, market, ts, order, 'remove', 0);
}

/** A trader's resting order joins the book at the back of its price. */
export function restInBook(state: SimState, tick: Tick, market: MarketState, resting: RestingOrder, owner: string, ts: number): void {
  addOrder(state, tick, market, {
    oid: resting.oid,
    owner,
    side: resting.side,
    price: resting.price,
    priceText: resting.priceText,
    units: resting.units,
    origUnits: resting.units,
    placedAt: ts,
    resting,
  });
}

/**
 * The makers bring their ladder in line with the mid: quotes that the touch moved through, or that
 * drifted far from it, are pulled; empty rungs of the 20 nearest are quoted, one to a few orders
 * each, never at or through a trader's resting order on the other side (the book never crosses);
 * now and then a quote is trimmed in place.
 */
export function requote(state: SimState, tick: Tick, market: MarketState, ts: number): void {
  const { book } = market;
  const quote = quoteOf(market);
  const makerQuotes = () => [...book.orders.values()].filter((o) => !o.resting);
  const mid = midOf(market);
  // The grid is kept while the price stays within a factor of 2 of where it was set (a coin near a
  // power of ten would otherwise flip its tick size, and the whole ladder, back and forth).
  if (book.decimals < 0 || mid > book.gridMid * 2 || mid < book.gridMid / 2) {
    for (const order of makerQuotes()) removeOrder(state, tick, market, order, ts);
    book.decimals = quote.decimals;
    book.gridMid = mid;
    book.gap = rungGap(market, quote.spreadTicks, quote.scale);
  }
  const { gap, decimals } = book;
  const scale = 10 ** decimals;
  let traderBid = -Infinity;
  let traderAsk = Infinity;
  for (const order of book.orders.values()) {
    if (!order.resting) continue;
    if (order.side === 'B') traderBid = Math.max(traderBid, order.price);
    else traderAsk = Math.min(traderAsk, order.price);
  }
  // The quote's touch in the grid's ticks (the quote may price in other decimals than the grid).
  const inTicks = (quoteTicks: number) => (quoteTicks / quote.scale) * scale;
  const top = { B: Math.floor(inTicks(quote.bid) / gap + 1e-9) * gap, A: Math.ceil(inTicks(quote.ask) / gap - 1e-9) * gap };
  const maxTick = Math.floor(inTicks(quote.maxTick) + 1e-9);
  const inLadder = (side: Side, tickIndex: number, levels: number) => {
    const steps = side === 'B' ? (top.B - tickIndex) / gap : (tickIndex - top.A) / gap;
    const price = tickIndex / scale;
    return steps >= 0 && steps < levels && tickIndex >= 1 && tickIndex <= maxTick && (side === 'B' ? price < traderAsk : price > traderBid);
  };
  for (const order of makerQuotes()) {
    if (!inLadder(order.side, Math.round(order.price * scale), KEEP_LEVELS)) removeOrder(state, tick, market, order, ts);
  }
  const { bookRng: rng } = tick;
  const typical = levelUnits(market);
  const kept = makerQuotes();
  for (const side of ['B', 'A'] as const) {
    // A one-rung hole at the touch is left open: a price that swings by a rung does not requote both ways.
    const bestQuote = kept
      .filter((o) => o.side === side)
      .reduce((best, o) => Math.min(best, Math.round((side === 'B' ? top.B - o.price * scale : o.price * scale - top.A) / gap)), Infinity);
    for (let level = bestQuote === 1 ? 1 : 0; level < LADDER_LEVELS; level++) {
      const tickIndex = side === 'B' ? top.B - level * gap : top.A + level * gap;
      if (!inLadder(side, tickIndex, LADDER_LEVELS)) continue;
      const priceText = formatUnits(tickIndex, decimals);
      if (book.levels[side].get(priceText)?.some((o) => !o.resting)) continue;
      quoteRung(state, tick, market, rng, {
        side,
        price: tickIndex / scale,
        priceText,
        ts,
        units: Math.max(1, Math.round(typical * (0.8 + 0.2 * level) * (0.3 + 1.4 * rng.next()))),
        orders: 1 + rng.int(1 + (level >> 2)),
      });
    }
  }
  if (rng.chance(TRIM_CHANCE)) {
    const quotes = makerQuotes().filter((o) => o.units > 1);
    if (quotes.length > 0) {
      const order = rng.pick(quotes);
      reduceOrder(state, tick, market, order, Math.max(1, Math.floor(order.units * rng.uniform(0.1, 0.5))), ts);
    }
  }
}

/**
 * Ticks between rungs: the spread, or half the typical move between requotes when that is wider:
 * the asset's move over the interval and the market's own basis noise around it (probability units
 * for an outcome, whose price moves p(1-p) per unit of log-odds).
 */
function rungGap(market: MarketState, spreadTicks: number, scale: number): number {
  const mid = midOf(market);
  const outcome = market.spec.marketType === 'outcome';
  const assetMove = market.asset.sigma * Math.sqrt(REQUOTE_EVERY_SEC) * (outcome ? mid * (1 - mid) : mid);
  const basisMove = market.basisSd * (outcome ? 1 : mid);
  return Math.max(spreadTicks, Math.round((Math.hypot(assetMove, basisMove) * scale) / 2));
}

function quoteRung(
  state: SimState,
  tick: Tick,
  market: MarketState,
  rng: Rng,
  rung: { side: Side; price: number; priceText: string; ts: number; units: number; orders: number },
): void {
  const count = Math.min(rung.orders, rung.units);
  for (let i = 0; i < count; i++) {
    const units = i === count - 1 ? rung.units - Math.floor(rung.units / count) * (count - 1) : Math.floor(rung.units / count);
    addOrder(state, tick, market, {
      oid: state.nextOid++,
      owner: rng.pick(state.wallets.makers),
      side: rung.side,
      price: rung.price,
      priceText: rung.priceText,
      units,
      origUnits: units,
      placedAt: rung.ts,
    });
  }
}

/**
 * Diffs that empty every book at `ts`, numbered after the last diff of each family (in its block):
 * where one simulation's span ends and another's books begin afresh, so a book replayed across the
 * seam from the last checkpoint before it is the new simulation's. The books are left as they were.
 */
export function closingDiffs(state: SimState, ts: number): L4DiffRecord[] {
  const out: L4DiffRecord[] = [];
  const next = new Map<string, [number, number]>();
  for (const market of state.markets) {
    const { family, symbol } = market.spec;
    const [block, seq] = next.get(family) ?? state.lastBookDiff.get(family) ?? [Math.floor((ts - 1) / BLOCK_MS), -1];
    let last = seq;
    for (const side of ['B', 'A'] as const) {
      for (const queue of market.book.levels[side].values()) {
        for (const order of queue) {
          out.push({
            dataset: 'l4_diffs',
            family,
            symbol,
            ts,
            block_number: block,
            seq: ++last,
            oid: order.oid,
            user_address: ownerOf(market, order.owner),
            side,
            price: order.priceText,
            diff_type: 'remove',
            new_size: null,
          });
        }
      }
    }
    next.set(family, [block, last]);
  }
  return out;
}

/** The whole book of a market, as the venue's periodic order-level snapshot. */
export function checkpointRecord(state: SimState, market: MarketState, ts: number): L4CheckpointRecord {
  const { family, symbol, szDecimals } = market.spec;
  const [block_number, seq] = state.lastBookDiff.get(family) ?? [0, -1];
  const side = (s: Side) =>
    [...market.book.levels[s].values()]
      .sort((a, b) => (s === 'B' ? b[0]!.price - a[0]!.price : a[0]!.price - b[0]!.price))
      .flatMap((queue) =>
        queue.map((o): [number, string, string, string, number, string] => [
          o.oid,
          ownerOf(market, o.owner),
          o.priceText,
          formatUnits(o.units, szDecimals),
          o.placedAt,
          formatUnits(o.origUnits, szDecimals),
        ]),
      );
  return { dataset: 'l4_checkpoints', family, symbol, ts, block_number, seq, bids: side('B'), asks: side('A') };
}
