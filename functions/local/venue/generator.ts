/**
 * A deterministic market at the venue's own rate, written in the node's own streamed formats
 * (`node_order_statuses_streaming`, `node_raw_book_diffs_streaming`, `node_fills_streaming`, one
 * event a line in the by-block envelope) and its L4 snapshot (`node_l4_snapshot`), so what it writes
 * goes through the parsers real files go through.
 *
 * Its shape is mainnet's (issue 43: May 2026, blocks 985148182-985148232, 3.4 s): for BTC 12,300
 * order statuses a second, 95% of them post-only rejects, 395 raw book diffs a second, a resting book
 * of 51,351 orders, about 14.7 blocks a second. The rest of the statuses are resting placements and
 * their cancels, takers sweeping the touch (their fills, the makers' updates and removes), and
 * trigger orders, which rest outside the book (statuses, no diffs). The placement rate is solved
 * from those figures (`rates`), so the generator holds them however the taker mix is set.
 * Order life times: most resting orders are quotes at the touch, re-quoted within seconds; a few
 * sit deep for half an hour; together they keep the book at its depth. Bursts: every few minutes
 * the whole exchange runs at three times its pace for a few seconds (the hourly mean stays on the
 * figures). `scale` is the total over BTC's: 1 is BTC alone, about 4 exchange-wide (one mainnet
 * block: 843 diffs, 221 of them BTC), spread over markets with Zipf weights, BTC the largest.
 */
import { Rng } from '../demo/random.ts';
import { TickBook, type RestingOrder, type Side } from './book.ts';

export const MAINNET_BTC = {
  orderStatusesPerS: 12_300,
  rejectShare: 0.95,
  rawBookDiffsPerS: 395,
  restingOrders: 51_351,
  blocksPerS: 50 / 3.4,
  /** Taker orders a second (an assumption: the node sample counts statuses and diffs, not trades). */
  takersPerS: 25,
} as const;

/** Makers a taker meets: 1 + geometric (mean `MAKERS_MEAN`); the last one is filled whole with `LAST_FILLED_WHOLE`. */
const MAKERS_MEAN = 1.6;
const LAST_FILLED_WHOLE = 0.35;
/** Resting order life times: quotes at the touch (most placements) and deep orders (most of the book). */
const QUOTE_SHARE = 0.85;
const QUOTE_LIFE_S = 3;
const DEEP_LIFE_S = 1_770;
const DEEP_TICKS = 800;
/** Bursts: a start probability per second, mean length and intensity; `BURST_MEAN` is their long-run multiplier. */
const BURST_START_PER_S = 1 / 300;
const BURST_LENGTH_S = 15;
const BURST_INTENSITY = 3;
const BURST_MEAN = 1 + BURST_START_PER_S * BURST_LENGTH_S * (BURST_INTENSITY - 1);

/** Each kind's rate per second for a market of weight 1 (BTC), solved from the mainnet figures. */
export function rates(figures: typeof MAINNET_BTC = MAINNET_BTC) {
  const makersPerTaker = figures.takersPerS * MAKERS_MEAN;
  const filledWhole = figures.takersPerS * (MAKERS_MEAN - 1 + LAST_FILLED_WHOLE);
  // Diffs: a new per placement, a remove per cancel (placements - filled whole, in a steady book), one per maker met.
  const placements = (figures.rawBookDiffsPerS - makersPerTaker + filledWhole) / 2;
  // Statuses besides rejects: open and canceled per placement, a taker's, a maker's filled, and trigger orders' open and canceled.
  const others = figures.orderStatusesPerS * (1 - figures.rejectShare);
  const triggers = (others - 2 * placements - figures.takersPerS) / 2;
  return { rejects: figures.orderStatusesPerS * figures.rejectShare, placements, triggers, takers: figures.takersPerS };
}

const NAMES = [
  'BTC',
  'ETH',
  'SOL',
  'HYPE',
  'XRP',
  'DOGE',
  'SUI',
  'AVAX',
  'LINK',
  'BNB',
  'ADA',
  'LTC',
  'TRX',
  'DOT',
  'NEAR',
  'APT',
  'ARB',
  'OP',
  'INJ',
  'TIA',
  'SEI',
  'WIF',
  'AAVE',
  'UNI',
  'ENA',
  'TON',
  'ATOM',
  'FIL',
  'LDO',
  'CRV',
];

/** Markets of a scale: Zipf weights 1, 1/2, 1/3, ... until they sum to `scale` (the last one cut to fit). */
export function marketsOf(scale: number): { symbol: string; weight: number }[] {
  if (!(scale >= 1)) throw new Error(`scale must be at least 1 (BTC alone), not ${scale}`);
  const markets: { symbol: string; weight: number }[] = [];
  let total = 0;
  for (let i = 0; total < scale - 1e-9; i++) {
    const weight = Math.min(1 / (i + 1), scale - total);
    markets.push({ symbol: NAMES[i] ?? `M${i}`, weight });
    total += weight;
  }
  return markets;
}

export interface VenueBlock {
  number: number;
  ms: number;
  statuses: string[];
  diffs: string[];
  fills: string[];
}

export interface GeneratorOptions {
  seed: number;
  scale: number;
  startMs: number;
  firstBlock?: number;
  /** Multiplies every rate and the resting book (tests run the same shape smaller). */
  intensity?: number;
  figures?: typeof MAINNET_BTC;
}

interface Market {
  symbol: string;
  weight: number;
  book: TickBook;
  ref: number;
  priceDigits: number;
  /** Trigger orders waiting outside the book. */
  triggers: Map<number, RestingOrder>;
}

const PRICE_DIGITS: Record<string, [number, number]> = { BTC: [100_000, 0], ETH: [3_500, 1], SOL: [180, 2], HYPE: [40, 3] };
const SIZE_DIGITS = 5;

/** A min-heap of (due ms, oid): the resting and trigger orders' planned cancels. */
class DueHeap {
  private readonly due: number[] = [];
  private readonly oids: number[] = [];
  get size() {
    return this.due.length;
  }
  peek() {
    return this.due[0];
  }
  push(due: number, oid: number): void {
    let i = this.due.length;
    this.due.push(due);
    this.oids.push(oid);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.due[parent]! <= due) break;
      this.swap(i, parent);
      i = parent;
    }
  }
  pop(): number {
    const oid = this.oids[0]!;
    const lastDue = this.due.pop()!;
    const lastOid = this.oids.pop()!;
    if (this.due.length > 0) {
      this.due[0] = lastDue;
      this.oids[0] = lastOid;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.due.length && this.due[l]! < this.due[m]!) m = l;
        if (r < this.due.length && this.due[r]! < this.due[m]!) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return oid;
  }
  private swap(a: number, b: number): void {
    [this.due[a], this.due[b]] = [this.due[b]!, this.due[a]!];
    [this.oids[a], this.oids[b]] = [this.oids[b]!, this.oids[a]!];
  }
}

const nodeTime = (ms: number) => new Date(ms).toISOString().slice(0, -1);

export class VenueRateGenerator {
  readonly markets: Market[];
  /** Events written so far, by status, diff type and fills (both sides). */
  readonly counts: Record<string, number> = {};
  private readonly rng: Rng;
  private readonly rate: ReturnType<typeof rates>;
  private readonly heap = new DueHeap();
  private readonly owner = new Map<number, Market>();
  private readonly makers: string[];
  private readonly traders: string[];
  private readonly intensity: number;
  private block: number;
  private ms: number;
  private nextOid = 1;
  private nextTid = 1;
  private burstUntil = -Infinity;
  private lastSecond: number;

  constructor(options: GeneratorOptions) {
    this.rng = new Rng(options.seed);
    this.intensity = options.intensity ?? 1;
    const figures = options.figures ?? MAINNET_BTC;
    this.rate = rates(figures);
    this.block = options.firstBlock ?? 985_148_182;
    this.ms = options.startMs;
    this.lastSecond = Math.floor(this.ms / 1000);
    this.blockMs = 1000 / figures.blocksPerS;
    this.makers = Array.from({ length: 60 }, () => `0x${this.rng.hex(40)}`);
    this.traders = Array.from({ length: 5_000 }, () => `0x${this.rng.hex(40)}`);
    this.markets = marketsOf(options.scale).map(({ symbol, weight }) => {
      const [price, priceDigits] = PRICE_DIGITS[symbol] ?? [10, 3];
      return { symbol, weight, book: new TickBook(), ref: Math.round(price * 10 ** priceDigits), priceDigits, triggers: new Map() };
    });
    // The resting book at the start: deep orders (most of a steady book), queued some time before.
    for (const market of this.markets) {
      const resting = Math.round(figures.restingOrders * market.weight * this.intensity);
      for (let i = 0; i < resting; i++) this.rest(market, this.rng.chance(0.5) ? 'B' : 'A', false, this.ms - this.rng.int(DEEP_LIFE_S * 1000));
    }
  }

  private readonly blockMs: number;

  private price(market: Market, tick: number): string {
    return market.priceDigits === 0 ? String(tick) : (tick / 10 ** market.priceDigits).toFixed(market.priceDigits);
  }

  private static size(units: number): string {
    return (units / 10 ** SIZE_DIGITS).toFixed(SIZE_DIGITS);
  }

  private count(kind: string, n = 1): void {
    this.counts[kind] = (this.counts[kind] ?? 0) + n;
  }

  /** A new resting order's tick: a quote at the touch, or deep behind it; never crossing the other side. */
  private tickFor(market: Market, side: Side, quote: boolean): number {
    const { book } = market;
    const own = book.best(side) ?? market.ref + (side === 'B' ? -1 : 1);
    const depth = quote ? Math.floor(this.rng.exponential(2)) - 1 : 1 + Math.floor(this.rng.exponential(DEEP_TICKS));
    const other = book.best(side === 'B' ? 'A' : 'B');
    return side === 'B' ? Math.min(own - depth, (other ?? Infinity) - 1) : Math.max(own + depth, (other ?? -Infinity) + 1);
  }

  /** Places a resting order (its life time drawn now); returns it. */
  private rest(market: Market, side: Side, quote: boolean, placedAt: number): RestingOrder {
    const size = Math.max(1, Math.round(this.rng.logNormal(2_000, 1.2)));
    const order: RestingOrder = {
      oid: this.nextOid++,
      user: this.rng.chance(0.9) ? this.rng.pick(this.makers) : this.rng.pick(this.traders),
      side,
      tick: this.tickFor(market, side, quote),
      size,
      origSize: size,
      placedAt,
    };
    market.book.add(order);
    this.owner.set(order.oid, market);
    // Life times are memoryless, so an order of the starting book has its whole life still ahead.
    this.heap.push(this.ms + this.rng.exponential(quote ? QUOTE_LIFE_S : DEEP_LIFE_S) * 1000, order.oid);
    return order;
  }

  /** The next block: its statuses, diffs and fills, one event a line each. */
  next(): VenueBlock {
    this.block += 1;
    this.ms += Math.max(1, Math.round(this.blockMs * (0.7 + 0.6 * this.rng.next())));
    const envelope = `{"local_time":"${nodeTime(this.ms + 180)}","block_time":"${nodeTime(this.ms)}","block_number":${this.block},"events":[`;
    const out: VenueBlock = { number: this.block, ms: this.ms, statuses: [], diffs: [], fills: [] };
    const line = (to: string[], event: string) => to.push(`${envelope}${event}]}`);
    const status = (
      market: Market,
      user: string,
      name: string,
      o: { oid: number; side: Side; tick: number; size: number; origSize: number; placedAt: number },
      kind: { tif: string; trigger?: boolean; type?: string },
    ) => {
      this.count(name);
      line(
        out.statuses,
        JSON.stringify({
          time: nodeTime(this.ms),
          user,
          status: name,
          order: {
            coin: market.symbol,
            side: o.side,
            limitPx: this.price(market, o.tick),
            sz: VenueRateGenerator.size(o.size),
            oid: o.oid,
            timestamp: o.placedAt,
            triggerCondition: kind.trigger ? 'Price below' : 'N/A',
            isTrigger: kind.trigger ?? false,
            triggerPx: kind.trigger ? this.price(market, o.tick) : '0.0',
            children: [],
            isPositionTpsl: false,
            reduceOnly: kind.trigger ?? false,
            orderType: kind.type ?? 'Limit',
            origSz: VenueRateGenerator.size(o.origSize),
            tif: kind.tif,
            cloid: null,
          },
        }),
      );
    };
    const diff = (market: Market, o: RestingOrder, body: string) => {
      this.count(body === '"remove"' ? 'remove' : body.slice(2, body.indexOf('"', 2)));
      line(
        out.diffs,
        `{"user":"${o.user}","oid":${o.oid},"coin":"${market.symbol}","side":"${o.side}","px":"${this.price(market, o.tick)}","raw_book_diff":${body}}`,
      );
    };

    // Planned cancels that fell due (an order filled meanwhile is gone from both maps).
    while (this.heap.size > 0 && this.heap.peek()! <= this.ms) {
      const oid = this.heap.pop();
      const market = this.owner.get(oid);
      if (!market) continue;
      this.owner.delete(oid);
      const order = market.book.remove(oid);
      if (order) {
        diff(market, order, '"remove"');
        status(market, order.user, 'canceled', order, { tif: 'Alo' });
        continue;
      }
      const trigger = market.triggers.get(oid)!;
      market.triggers.delete(oid);
      status(market, trigger.user, 'canceled', trigger, { tif: 'Gtc', trigger: true, type: 'Stop Market' });
    }

    // Bursts start on whole seconds, for every market at once.
    for (let second = this.lastSecond + 1; second <= Math.floor(this.ms / 1000); second++) {
      if (this.ms >= this.burstUntil && this.rng.chance(BURST_START_PER_S)) this.burstUntil = second * 1000 + this.rng.exponential(BURST_LENGTH_S) * 1000;
    }
    this.lastSecond = Math.floor(this.ms / 1000);
    const pace = ((this.ms < this.burstUntil ? BURST_INTENSITY : 1) / BURST_MEAN) * this.intensity * (this.blockMs / 1000);

    for (const market of this.markets) {
      const mean = pace * market.weight;
      const actions = [
        ...Array<number>(this.rng.poisson(mean * this.rate.placements)).fill(0),
        ...Array<number>(this.rng.poisson(mean * this.rate.takers)).fill(1),
        ...Array<number>(this.rng.poisson(mean * this.rate.triggers)).fill(2),
        ...Array<number>(this.rng.poisson(mean * this.rate.rejects)).fill(3),
      ];
      for (let i = actions.length - 1; i > 0; i--) {
        const j = this.rng.int(i + 1);
        [actions[i], actions[j]] = [actions[j]!, actions[i]!];
      }
      for (const action of actions) {
        const side: Side = this.rng.chance(0.5) ? 'B' : 'A';
        if (action === 0) {
          const order = this.rest(market, side, this.rng.chance(QUOTE_SHARE), this.ms);
          diff(market, order, `{"new":{"sz":"${VenueRateGenerator.size(order.size)}"}}`);
          status(market, order.user, 'open', order, { tif: 'Alo' });
        } else if (action === 1) {
          this.take(market, side, out, diff, status);
        } else if (action === 2) {
          const size = Math.max(1, Math.round(this.rng.logNormal(5_000, 1)));
          const trigger: RestingOrder = {
            oid: this.nextOid++,
            user: this.rng.pick(this.traders),
            side,
            tick: this.tickFor(market, side, false),
            size,
            origSize: size,
            placedAt: this.ms,
          };
          market.triggers.set(trigger.oid, trigger);
          this.owner.set(trigger.oid, market);
          this.heap.push(this.ms + this.rng.exponential(120) * 1000, trigger.oid);
          status(market, trigger.user, 'open', trigger, { tif: 'Gtc', trigger: true, type: 'Stop Market' });
        } else {
          // A post-only quote that would have crossed (or, rarely, a margin or IOC refusal): never in the book.
          const other = market.book.best(side === 'B' ? 'A' : 'B') ?? market.ref;
          const size = Math.max(1, Math.round(this.rng.logNormal(2_000, 1.2)));
          const o = { oid: this.nextOid++, side, tick: other + (side === 'B' ? 1 : -1) * this.rng.int(3), size, origSize: size, placedAt: this.ms };
          const roll = this.rng.next();
          const name = roll < 0.95 ? 'badAloPxRejected' : roll < 0.98 ? 'perpMarginRejected' : 'iocCancelRejected';
          status(market, this.rng.chance(0.98) ? this.rng.pick(this.makers) : this.rng.pick(this.traders), name, o, {
            tif: name === 'iocCancelRejected' ? 'Ioc' : 'Alo',
          });
        }
      }
    }
    return out;
  }

  /** A taker on `side` meets makers at the other side's touch: each filled whole but perhaps the last. */
  private take(
    market: Market,
    side: Side,
    out: VenueBlock,
    diff: (m: Market, o: RestingOrder, body: string) => void,
    status: (m: Market, user: string, name: string, o: RestingOrder, kind: { tif: string }) => void,
  ): void {
    const makerSide: Side = side === 'B' ? 'A' : 'B';
    const user = this.rng.pick(this.traders);
    const taker: RestingOrder = { oid: this.nextOid++, user, side, tick: 0, size: 0, origSize: 0, placedAt: this.ms };
    const makers = 1 + Math.floor(this.rng.exponential(MAKERS_MEAN - 1));
    for (let m = 0; m < makers; m++) {
      const maker = market.book.front(makerSide);
      if (!maker) break;
      const whole = m < makers - 1 || maker.size === 1 || this.rng.chance(LAST_FILLED_WHOLE);
      const filled = whole ? maker.size : 1 + this.rng.int(maker.size - 1);
      taker.tick = maker.tick;
      taker.origSize += filled;
      const tid = this.nextTid++;
      const hash = `0x${this.rng.hex(64)}`;
      const px = this.price(market, maker.tick);
      const sz = VenueRateGenerator.size(filled);
      const fee = (((Number(px) * filled) / 10 ** SIZE_DIGITS) * 0.00035).toFixed(6);
      for (const [who, oid, fillSide, crossed] of [
        [user, taker.oid, side, true],
        [maker.user, maker.oid, makerSide, false],
      ] as const) {
        this.count('fill');
        out.fills.push(
          `{"local_time":"${nodeTime(this.ms + 180)}","block_time":"${nodeTime(this.ms)}","block_number":${this.block},"events":[["${who}",${JSON.stringify({
            coin: market.symbol,
            px,
            sz,
            side: fillSide,
            time: this.ms,
            startPosition: '0.0',
            dir: fillSide === 'B' ? 'Open Long' : 'Open Short',
            closedPnl: '0.0',
            hash,
            oid,
            crossed,
            fee: crossed ? fee : '0.0',
            tid,
            feeToken: 'USDC',
          })}]]}`,
        );
      }
      if (whole) {
        market.book.remove(maker.oid);
        this.owner.delete(maker.oid);
        diff(market, maker, '"remove"');
        maker.size = 0;
        status(market, maker.user, 'filled', maker, { tif: 'Alo' });
      } else {
        const before = maker.size;
        maker.size -= filled;
        diff(market, maker, `{"update":{"origSz":"${VenueRateGenerator.size(before)}","newSz":"${VenueRateGenerator.size(maker.size)}"}}`);
      }
    }
    if (taker.origSize > 0) status(market, user, 'filled', taker, { tif: 'Ioc' });
  }

  /** Resting orders across markets. */
  get resting(): number {
    return this.markets.reduce((n, m) => n + m.book.size, 0);
  }

  /** The info server's L4 snapshot after the last block (`node_l4_snapshot`: `[height, [[coin, [bids, asks]], ...]]`). */
  snapshot(): { height: number; at: number; text: string } {
    const coins = this.markets.map((market) => {
      const side = (s: Side) =>
        `[${market.book
          .sideOrders(s)
          .map(
            (o) =>
              `["${o.user}",{"coin":"${market.symbol}","side":"${s}","limitPx":"${this.price(market, o.tick)}","sz":"${VenueRateGenerator.size(o.size)}","oid":${o.oid},"timestamp":${o.placedAt},"origSz":"${VenueRateGenerator.size(o.origSize)}"}]`,
          )
          .join(',')}]`;
      return `["${market.symbol}",[${side('B')},${side('A')}]]`;
    });
    return { height: this.block, at: this.ms, text: `[${this.block},[${coins.join(',')}]]` };
  }
}
