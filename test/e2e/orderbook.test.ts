/**
 * Order books over HTTP against the demo market: books rebuilt independently from a checkpoint and
 * the L4 diffs equal /l4 at several instants; L2 equals aggregated L4; the native top 20 equals the
 * full-depth top 20; L2 diffs replay one full-depth book into the next; legacy headers; error bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoCloud } from '../helpers/local-cloud.ts';
import { keyedGet, walkPages } from '../helpers/api.ts';
import { L4Book, type BookDiff, type CheckpointOrder } from '#core/book/l4-book.ts';
import { sumDecimals } from '#core/book/decimal.ts';

const KEY = 'orderbook-test-key';
let cloud: Awaited<ReturnType<typeof startDemoCloud>>;
const end = Date.now() - 5_000;

beforeAll(async () => {
  cloud = await startDemoCloud({ key: KEY });
});
afterAll(async () => {
  await cloud?.stop();
});

const get = keyedGet(() => cloud.url, KEY);

const walk = (path: string, query: Record<string, string | number>) => walkPages(get, path, query);
const BOOK = '/v1/perpx/orderbook/BTC';

interface WireOrder {
  oid: number;
  user_address: string;
  side: 'B' | 'A';
  price: number;
  size: number;
  timestamp_ms: number | null;
}
const stored = (orders: WireOrder[]): CheckpointOrder[] => orders.map((o) => [o.oid, o.user_address, String(o.price), String(o.size), o.timestamp_ms]);
const wireOrders = (book: L4Book, side: 'B' | 'A') =>
  book.side(side).map((o) => ({ oid: o.oid, user_address: o.user, side: o.side, price: Number(o.price), size: Number(o.size) }));
const withoutTimes = (orders: WireOrder[]) => orders.map(({ oid, user_address, side, price, size }) => ({ oid, user_address, side, price, size }));

describe('order-level books', () => {
  it('equal, at several instants, the newest checkpoint replayed with the diffs after it', async () => {
    const checkpoints = await walk(`${BOOK}/l4/history`, { start: end - 30 * 60_000, end, limit: 2 });
    expect(checkpoints.length).toBeGreaterThanOrEqual(3);
    const checkpoint = checkpoints[0];
    const from = Date.parse(checkpoint.timestamp);
    for (const offset of [1, 61_000, 299_000, 300_000, 451_500]) {
      const at = from + offset;
      const diffs = await walk(`${BOOK}/l4/diffs`, { start: from + 1, end: at, limit: 500 });
      const book = L4Book.fromCheckpoint(stored(checkpoint.bids), stored(checkpoint.asks));
      for (const d of diffs)
        book.apply({ ...d, ts: Date.parse(d.timestamp), price: String(d.price), new_size: d.new_size === null ? null : String(d.new_size) } as BookDiff);
      const served = (await get(`${BOOK}/l4`, { timestamp: at })).body.data;
      expect(withoutTimes(served.bids)).toEqual(wireOrders(book, 'B'));
      expect(withoutTimes(served.asks)).toEqual(wireOrders(book, 'A'));
      expect(served).toMatchObject({ coin: 'BTC', timestamp: new Date(at).toISOString(), bid_count: served.bids.length, ask_count: served.asks.length });
      expect(served).not.toHaveProperty('is_crossed');
    }
  });

  it('truncate to depth orders a side while counting and summing them all', async () => {
    const full = (await get(`${BOOK}/l4`, { timestamp: end })).body.data;
    const top = (await get(`${BOOK}/l4`, { timestamp: end, depth: 3 })).body.data;
    expect(top.bids).toEqual(full.bids.slice(0, 3));
    expect(top.bid_count).toBe(full.bids.length);
    expect(top.total_ask_size).toBe(full.total_ask_size);
    expect(full.total_bid_size).toBe(Number(sumDecimals(full.bids.map((o: WireOrder) => String(o.size)))));
  });
});

describe('full-depth L2', () => {
  it('is the order-level book aggregated by price, and its top 20 is the native snapshot', async () => {
    const snapshots = await walk(`${BOOK}/history`, { start: end - 20 * 60_000, end, limit: 100 });
    expect(snapshots.length).toBeGreaterThan(5);
    for (const snapshot of snapshots.slice(-4)) {
      const at = Date.parse(snapshot.timestamp);
      const [l2, l4, native] = await Promise.all([get(`${BOOK}/l2`, { timestamp: at }), get(`${BOOK}/l4`, { timestamp: at }), get(BOOK, { timestamp: at })]);
      const levels = (orders: WireOrder[]) =>
        [
          ...Map.prototype.entries.call(
            orders.reduce((m, o) => m.set(String(o.price), [...(m.get(String(o.price)) ?? []), String(o.size)]), new Map<string, string[]>()),
          ),
        ].map(([px, sizes]) => ({ px, sz: sumDecimals(sizes), n: sizes.length }));
      expect(l2.body.data.bids).toEqual(levels(l4.body.data.bids));
      expect(l2.body.data.asks).toEqual(levels(l4.body.data.asks));
      expect(l2.body.data).toMatchObject({ bid_levels: l2.body.data.bids.length, ask_levels: l2.body.data.asks.length });
      expect(native.body.data).toEqual({ ...snapshot });
      expect(native.body.data.bids).toEqual(l2.body.data.bids.slice(0, 20));
      expect(native.body.data.asks).toEqual(l2.body.data.asks.slice(0, 20));
      expect(native.body.data).toMatchObject({
        symbol: 'BTC',
        coin: 'BTC',
        mid_price: l2.body.data.mid_price,
        spread: l2.body.data.spread,
        spread_bps: l2.body.data.spread_bps,
      });
    }
  });

  it('diffs replay one full-depth book into a later one, at every page size', async () => {
    const t0 = end - 12 * 60_000;
    const t1 = end - 2 * 60_000;
    const apply = (book: { bids: any[]; asks: any[] }, diffs: any[]) => {
      const sides = { B: new Map(book.bids.map((l) => [Number(l.px), l])), A: new Map(book.asks.map((l) => [Number(l.px), l])) };
      for (const d of diffs) {
        if (d.size === 0) sides[d.side as 'B' | 'A'].delete(d.price);
        else sides[d.side as 'B' | 'A'].set(d.price, { px: String(d.price), sz: String(d.size), n: d.count });
      }
      const sorted = (m: Map<number, any>, desc: boolean) => [...m.entries()].sort((a, b) => (desc ? b[0] - a[0] : a[0] - b[0])).map(([, l]) => l);
      return { bids: sorted(sides.B, true), asks: sorted(sides.A, false) };
    };
    const diffs = await walk(`${BOOK}/l2/diffs`, { start: t0 + 1, end: t1, limit: 1000 });
    const small = await walk(`${BOOK}/l2/diffs`, { start: t0 + 1, end: t1, limit: 7 });
    expect(diffs.length).toBeGreaterThan(10);
    expect(small).toEqual(diffs);
    const [before, after] = [(await get(`${BOOK}/l2`, { timestamp: t0 })).body.data, (await get(`${BOOK}/l2`, { timestamp: t1 })).body.data];
    const replayed = apply(before, diffs);
    const numeric = (levels: any[]) => levels.map((l) => [Number(l.px), Number(l.sz), l.n]);
    expect(numeric(replayed.bids)).toEqual(numeric(after.bids));
    expect(numeric(replayed.asks)).toEqual(numeric(after.asks));
  });
});

describe('book cursors', () => {
  /** The first page, and the next one both from its next_cursor and from the cursor a client builds from its last row. */
  async function resume(path: string, query: Record<string, string | number>, build: (row: any) => string) {
    const first = await get(path, query);
    expect(first.body.meta.has_more, path).toBe(true);
    const built = build(first.body.data.at(-1));
    const followed = await get(path, { ...query, cursor: first.body.meta.next_cursor });
    const resumed = await get(path, { ...query, cursor: built });
    return { first, built, followed, resumed };
  }

  it("are the real service's: <ts_ms>_<block_number> on L2 diffs, <ts_ms> on book history; a client builds them from the last row", async () => {
    const window = { start: end - 10 * 60_000, end };
    const ms = (row: any) => String(Date.parse(row.timestamp));
    for (const [path, query, build] of [
      [`${BOOK}/l2/diffs`, { ...window, limit: 7 }, (row: any) => `${ms(row)}_${row.block_number}`],
      [`${BOOK}/history`, { ...window, limit: 2 }, ms],
      [`${BOOK}/l4/history`, { start: end - 30 * 60_000, end, limit: 1, depth: 1 }, ms],
      [`${BOOK}/l2/history`, { start: end - 30 * 60_000, end, limit: 1, depth: 1 }, ms],
      ['/v1/altx/orderbook/ETH/history', { ...window, granularity: '10s', limit: 3 }, ms],
    ] as const) {
      const { first, built, followed, resumed } = await resume(path, query, build);
      expect(first.body.meta.next_cursor, path).toBe(built);
      expect(resumed.body.data, path).toEqual(followed.body.data);
    }
    // Tick: the instant of the last delta; the next page starts just after it.
    const tick = { ...window, granularity: 'tick' };
    const first = await get('/v1/altx/orderbook/ETH/history', tick);
    const deltas = first.body.data.deltas;
    if (first.body.meta.has_more) expect(first.body.meta.next_cursor).toBe(String(deltas.at(-1).timestamp));
    // A block cursor that names no block of the market at that time is refused.
    const refused = await get(`${BOOK}/l2/diffs`, { ...window, cursor: `${window.start}_1` });
    expect(refused.body).toMatchObject({ code: 400, error_code: 'invalid_cursor', param: 'cursor' });
  });
});

describe('altx books', () => {
  const ALTX = '/v1/altx/orderbook/ETH';

  it('serves the book at every 10 s and 1 s instant, each the L3 book aggregated by price', async () => {
    const t0 = Math.floor((end - 10 * 60_000) / 10_000) * 10_000;
    const tens = await walk(`${ALTX}/history`, { start: t0, end: t0 + 60_000, granularity: '10s', limit: 4 });
    expect(tens.map((b) => b.timestamp)).toEqual([0, 1, 2, 3, 4, 5, 6].map((k) => new Date(t0 + k * 10_000).toISOString()));
    const ones = (await get(`${ALTX}/history`, { start: t0, end: t0 + 20_000, granularity: '1s', limit: 1000 })).body.data;
    expect(ones).toHaveLength(21);
    expect(ones[10]).toEqual(tens[1]);
    const l3 = (await get('/v1/l3orderbook/ETH'.replace('/v1', '/v1/altx'), { timestamp: t0 + 10_000, depth: 1000 })).body.data;
    const levels = (side: string) =>
      [
        ...l3.orders
          .filter((o: any) => o.side === side)
          .reduce((m: Map<number, string[]>, o: any) => m.set(o.price, [...(m.get(o.price) ?? []), String(o.remaining_size)]), new Map())
          .entries(),
      ].map(([px, sizes]: [number, string[]]) => [px, Number(sumDecimals(sizes)), sizes.length]);
    const numeric = (side: any[]) => side.map((l) => [Number(l.px), Number(l.sz), l.n]);
    if (!l3.truncated) {
      expect(numeric(tens[1].bids)).toEqual(levels('bid'));
      expect(numeric(tens[1].asks)).toEqual(levels('ask'));
    }
  });

  it('replays tick history (the book at start, then level deltas) into the book at the end', async () => {
    // Prepare: a two-minute window in which the book changed (the demo market moves with the clock, and a
    // quiet market can requote its ladder unchanged for two minutes), searching back from eight minutes ago.
    let t0 = 0;
    let t1 = 0;
    let tick: Awaited<ReturnType<typeof get>> | undefined;
    for (let back = 0; back < 10 && !(tick?.body.data.deltas.length > 0); back++) {
      t0 = Math.floor((end - 8 * 60_000 - back * 120_000) / 1000) * 1000;
      t1 = t0 + 120_000;
      tick = await get(`${ALTX}/history`, { start: t0, end: t1, granularity: 'tick' });
      expect(tick.status).toBe(200);
    }
    const { checkpoint, deltas } = tick!.body.data;
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.length).toBeLessThan(1000);
    expect(deltas.every((d: any, i: number) => i === 0 || d.sequence > deltas[i - 1].sequence)).toBe(true);
    const sides = {
      bid: new Map<number, number>(checkpoint.bids.map((l: any) => [Number(l.px), Number(l.sz)])),
      ask: new Map<number, number>(checkpoint.asks.map((l: any) => [Number(l.px), Number(l.sz)])),
    };
    for (const d of deltas) {
      if (d.size === 0) sides[d.side as 'bid' | 'ask'].delete(d.price);
      else sides[d.side as 'bid' | 'ask'].set(d.price, d.size);
    }
    const [after] = (await get(`${ALTX}/history`, { start: t1, end: t1, granularity: '1s' })).body.data;
    expect([...sides.bid.entries()].sort((a, b) => b[0] - a[0])).toEqual(after.bids.map((l: any) => [Number(l.px), Number(l.sz)]));
    expect([...sides.ask.entries()].sort((a, b) => a[0] - b[0])).toEqual(after.asks.map((l: any) => [Number(l.px), Number(l.sz)]));
  });

  it("serves L3 books of at most 250 orders a side, one account's on request, and their history", async () => {
    const full = (await get('/v1/altx/l3orderbook/ETH', { timestamp: end, depth: 100_000 })).body.data;
    expect(full.orders.filter((o: any) => o.side === 'bid').length).toBe(Math.min(250, full.bid_count));
    expect(full).toMatchObject({ coin: 'ETH', truncated: full.bid_count > 250 || full.ask_count > 250, mid_price: expect.any(String) });
    const one = (await get('/v1/altx/l3orderbook/ETH', { timestamp: end, depth: 0 })).body.data;
    expect(one.orders.length).toBeLessThanOrEqual(2);
    const owner = full.orders[0].owner_account_index;
    const mine = (await get('/v1/altx/l3orderbook/ETH', { timestamp: end, account: String(owner) })).body.data;
    expect(mine.orders.every((o: any) => o.owner_account_index === owner)).toBe(true);
    expect(mine.orders.length).toBeGreaterThan(0);
    const history = await walk('/v1/altx/l3orderbook/ETH/history', { start: end - 20 * 60_000, end, limit: 1 });
    expect(history.length).toBeGreaterThanOrEqual(2);
    const rh = await get('/v1/altx-rh/l3orderbook/BTC');
    expect(rh.status).toBe(404);
    expect(rh.body.error_code).toBe('unsupported_for_venue');
  });
});

describe('routes and errors', () => {
  it('serves hip4 books by #N, %23N and the bare id, and spot and hip3 books', async () => {
    const hash = await get('/v1/perpx/hip4/orderbook/%2310/l4', { timestamp: end, depth: 2 });
    const bare = await get('/v1/perpx/hip4/orderbook/10/l4', { timestamp: end, depth: 2 });
    expect(hash.status).toBe(200);
    expect(bare.body.data).toEqual(hash.body.data);
    for (const path of ['/v1/perpx/spot/orderbook/HYPE-USDC', '/v1/perpx/hip3/orderbook/km:US500/l2', '/v1/altx/orderbook/ETH']) {
      const res = await get(path, { timestamp: end });
      expect(res.status, path).toBe(200);
      expect(res.body.data.bids.length, path).toBeGreaterThan(0);
    }
  });

  it('answers the deprecated un-prefixed routes like the core ones, with Deprecation and Link', async () => {
    const legacy = await get('/v1/orderbook/BTC', { timestamp: end });
    const core = await get(BOOK, { timestamp: end });
    expect(legacy.body.data).toEqual(core.body.data);
    expect(legacy.headers.get('deprecation')).toBeTruthy();
    expect(legacy.headers.get('link')).toBe('</v1/perpx/orderbook/BTC>; rel="successor-version"');
  });

  it('refuses a bad depth, timestamp or family with the error body naming the parameter', async () => {
    const deep = await get(BOOK, { depth: 21 });
    expect(deep.status).toBe(400);
    expect(deep.body).toMatchObject({ success: false, code: 400, error_code: 'invalid_parameter', param: 'depth', request_id: expect.any(String) });
    const granularity = await get('/v1/altx/orderbook/ETH/history', { granularity: '5s' });
    expect(granularity.status).toBe(400);
    expect(granularity.body.param).toBe('granularity');
    const iso = await get(`${BOOK}/l4`, { timestamp: '2026-01-01T00:00:00Z' });
    expect(iso.status).toBe(400);
    expect(iso.body.param).toBe('timestamp');
    const zero = await get(`${BOOK}/l4`, { depth: 0 });
    expect(zero.body.param).toBe('depth');
    const altx = await get('/v1/altx/orderbook/ETH/l4');
    expect(altx.status).toBe(404);
    expect(altx.body).toMatchObject({
      error_code: 'unsupported_for_venue',
      available_on: expect.arrayContaining([expect.objectContaining({ venue: 'perpx' })]),
    });
    const before = await get(`${BOOK}/l4`, { timestamp: Date.parse('2025-01-01T00:00:00Z') });
    expect(before.status).toBe(404);
    expect(before.body.param).toBe('timestamp');
  });
});
