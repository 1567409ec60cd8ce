/**
 * Properties of the order-book reads over the real archive (dynalite manifest, s3rver objects,
 * DuckDB), whatever the diff stream, its batches, compaction and the page size: the L4 book at any
 * instant equals the diffs replayed from an empty book; a cursor walk of L4 diffs serves each once
 * in order; a walk of L2 diffs is the same at every page size and replays the full-depth book at the
 * window's start into the one at its end; on altx and altx-rh, tick history (the book at `start`
 * and its level deltas, at any depth) replays into every native checkpoint of the window, over
 * generated books and over the demo market's own output.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ingestBatch } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { l2Book, l4Book } from '#core/market/orderbook.ts';
import { l2DiffsPage, l4DiffsPage } from '#core/market/orderbook-diffs.ts';
import { nativeBookHistory } from '#core/market/orderbook-native.ts';
import { L4Book, type BookDiff } from '#core/book/l4-book.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';
import { routePaging, walkJsonRows } from '../helpers/api.ts';
import { createDemoMarket } from '#local/demo/market.ts';
import type { OrderBook, TickHistory } from '#schemas/orderbook.ts';

const deps = scratchArchive();

const T0 = Date.parse('2026-09-01T00:00:00Z');
const BLOCK_MS = 500;
const NOW = T0 + 2 * 86_400_000;
const USERS = ['0x00000000000000000000000000000000000000aa', '0x00000000000000000000000000000000000000bb'];

type Diff = BookDiff & { block_number: number; seq: number };

/** Blocks of 1-4 diffs: placements (some queued before a peer), trims, removals, and orders placed and taken in one block. */
const stream = fc.array(
  fc.array(
    fc.record({
      kind: fc.constantFrom('new', 'new', 'update', 'remove', 'flash'),
      side: fc.constantFrom<'B' | 'A'>('B', 'A'),
      level: fc.integer({ min: 1, max: 6 }),
      size: fc.integer({ min: 1, max: 900 }),
      pick: fc.nat(),
      jump: fc.boolean(),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  { minLength: 5, maxLength: 80 },
);

let run = 0;
type Step = { kind: string; side: 'B' | 'A'; level: number; size: number; pick: number; jump: boolean };

/** The diffs and, every 15 blocks, a checkpoint of the book as they leave it; ingested in overlapping batches. */
async function ingest(blocks: readonly (readonly Step[])[], batches: number, compact: boolean) {
  const symbol = `OB${run}`;
  const firstBlock = 1_000 + run++ * 1_000;
  const book = new L4Book();
  const live: { oid: number; side: 'B' | 'A'; price: string }[] = [];
  const diffs: Diff[] = [];
  const records: object[] = [];
  let oid = firstBlock * 100;
  const checkpoint = (block: number, ts: number, seq: number) => {
    const side = (s: 'B' | 'A') => book.side(s).map((o) => [o.oid, o.user, o.price, o.size, o.placedAt, o.origSize]);
    records.push({ dataset: 'l4_checkpoints', family: 'perpx', symbol, ts, block_number: block, seq, bids: side('B'), asks: side('A') });
  };
  blocks.forEach((steps, b) => {
    const block = firstBlock + b;
    const ts = T0 + b * BLOCK_MS;
    let seq = 0;
    const emit = (diff: Omit<Diff, 'ts' | 'block_number' | 'seq'>) => {
      const full = { ...diff, ts, block_number: block, seq: seq++ };
      book.apply(full);
      diffs.push(full);
      records.push({ dataset: 'l4_diffs', family: 'perpx', symbol, ...full });
    };
    steps.forEach((step, k) => {
      // Every 15th block is checkpointed after its first step, in the middle of the block when it has more.
      if (b % 15 === 14 && k === 1) checkpoint(block, ts, seq - 1);
      const price = String(step.side === 'B' ? 100 - step.level : 100 + step.level);
      if (step.kind === 'new' || step.kind === 'flash' || live.length === 0) {
        const peers = live.filter((o) => o.side === step.side && o.price === price);
        const before = step.jump && peers.length > 0 ? peers[step.pick % peers.length]!.oid : null;
        const order = { oid: oid++, side: step.side, price };
        emit({
          oid: order.oid,
          user_address: USERS[step.pick % 2]!,
          side: step.side,
          price,
          diff_type: 'new',
          new_size: String(step.size),
          insert_before: before,
        });
        // A flash order is taken within its block: the level ends as it began.
        if (step.kind === 'flash')
          emit({ oid: order.oid, user_address: USERS[step.pick % 2]!, side: step.side, price, diff_type: 'remove', new_size: null, insert_before: null });
        else live.push(order);
        return;
      }
      const target = live[step.pick % live.length]!;
      const held = book.order(target.oid)!;
      if (step.kind === 'update')
        emit({ oid: target.oid, user_address: held.user, side: target.side, price, diff_type: 'update', new_size: String(step.size), insert_before: null });
      else {
        live.splice(live.indexOf(target), 1);
        emit({ oid: target.oid, user_address: held.user, side: target.side, price: target.price, diff_type: 'remove', new_size: null, insert_before: null });
      }
    });
    if (b % 15 === 14 && steps.length === 1) checkpoint(block, ts, seq - 1);
  });
  // The first checkpoint: the empty book before the first block.
  records.push({ dataset: 'l4_checkpoints', family: 'perpx', symbol, ts: T0 - 1, block_number: firstBlock - 1, seq: -1, bids: [], asks: [] });
  for (let b = 0; b < batches; b++) {
    const part = records.filter((_, i) => i % batches === b || (b > 0 && i % 5 === 0));
    if (part.length) await ingestBatch(deps(), 'normalized', part.map((r) => JSON.stringify(r)).join('\n'));
  }
  if (compact) await compactArchive(deps(), { families: ['perpx'] });
  return { symbol, diffs, end: T0 + blocks.length * BLOCK_MS };
}

const replayTo = (diffs: readonly Diff[], at: number) => {
  const book = new L4Book();
  for (const d of diffs) if (d.ts <= at) book.apply(d);
  return book;
};

describe('order-book reads', () => {
  it('rebuild the book at any instant, and walk L4 and L2 diffs exactly at any page size', async () => {
    await fc.assert(
      fc.asyncProperty(
        stream,
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
        async (blocks, batches, compact, limit, instants) => {
          // Prepare
          const { symbol, diffs, end } = await ingest(blocks, batches, compact);
          const market = { family: 'perpx' as const, symbol };
          const window = { ...market, start: T0, end, limit };

          // Act, assess: the book at instants across checkpoints
          for (const pick of instants) {
            const at = T0 + (pick % (end - T0));
            const served = await l4Book(deps(), { ...market, at });
            const expected = replayTo(diffs, at);
            expect(served.bids.map((o) => o.oid)).toEqual(expected.side('B').map((o) => o.oid));
            expect(served.asks.map((o) => [o.oid, o.size])).toEqual(expected.side('A').map((o) => [o.oid, Number(o.size)]));
          }
          const l4 = await walkJsonRows<{ block_number: number; seq: number }>((cursor) =>
            l4DiffsPage(deps(), { ...routePaging('getPerpxL4OrderbookDiffs'), ...window, cursor }, NOW),
          );
          expect(l4.map((d) => [d.block_number, d.seq])).toEqual(diffs.map((d) => [d.block_number, d.seq]));

          const from = T0 + BLOCK_MS * 3;
          const l2Window = { ...window, start: from + 1 };
          // Each next cursor is the one a client builds from the last row served: `<ts_ms>_<block_number>`.
          type L2Row = { timestamp: string; block_number: number; side: 'B' | 'A'; price: number; size: number; count: number };
          const small: L2Row[] = [];
          for (let cursor: string | undefined, page: Awaited<ReturnType<typeof l2DiffsPage>> | undefined; !page || cursor; ) {
            page = await l2DiffsPage(deps(), { ...routePaging('getPerpxL2OrderbookDiffs'), ...l2Window, cursor }, NOW);
            const rows = JSON.parse(`[${page.json}]`) as L2Row[];
            if (page.nextCursor && rows.length > 0) expect(page.nextCursor).toBe(`${Date.parse(rows.at(-1)!.timestamp)}_${rows.at(-1)!.block_number}`);
            small.push(...rows);
            cursor = page.nextCursor ?? undefined;
          }
          const whole = await walkJsonRows<(typeof small)[number]>((cursor) =>
            l2DiffsPage(deps(), { ...routePaging('getPerpxL2OrderbookDiffs'), ...l2Window, limit: 1000, cursor }, NOW),
          );
          expect(small).toEqual(whole);
          const start = await l2Book(deps(), { ...market, at: from });
          const levels = {
            B: new Map(start.bids.map((l) => [Number(l.px), [Number(l.sz), l.n]])),
            A: new Map(start.asks.map((l) => [Number(l.px), [Number(l.sz), l.n]])),
          };
          for (const d of whole) {
            if (d.count === 0) levels[d.side].delete(d.price);
            else levels[d.side].set(d.price, [d.size, d.count]);
          }
          const final = await l2Book(deps(), { ...market, at: end });
          expect([...levels.B.entries()].sort((a, b) => b[0] - a[0]).map(([px, [sz, n]]) => [px, sz, n])).toEqual(
            final.bids.map((l) => [Number(l.px), Number(l.sz), l.n]),
          );
          expect([...levels.A.entries()].sort((a, b) => a[0] - b[0]).map(([px, [sz, n]]) => [px, sz, n])).toEqual(
            final.asks.map((l) => [Number(l.px), Number(l.sz), l.n]),
          );
        },
      ),
      { numRuns: 15 },
    );
  });

  it("lists a block's tick deltas in sequence order when a level changes again after another", async () => {
    // Prepare: one altx block that places at 99, then at 98, then resizes the order at 99 again.
    const base = { dataset: 'l4_diffs', family: 'altx', symbol: 'TICK', ts: T0, block_number: 700 };
    const records = [
      { dataset: 'l4_checkpoints', family: 'altx', symbol: 'TICK', ts: T0 - 1, block_number: 699, seq: -1, bids: [], asks: [] },
      { ...base, seq: 0, oid: 1, user_address: '11', side: 'B', price: '99', diff_type: 'new', new_size: '1' },
      { ...base, seq: 1, oid: 2, user_address: '12', side: 'B', price: '98', diff_type: 'new', new_size: '2' },
      { ...base, seq: 2, oid: 1, user_address: '11', side: 'B', price: '99', diff_type: 'update', new_size: '3' },
    ];
    await ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
    // Act
    const served = await nativeBookHistory(
      deps(),
      { ...routePaging('getAltxOrderbookHistory'), family: 'altx', symbol: 'TICK', start: T0 - 1, end: T0 + 1_000, limit: 1000, granularity: 'tick' },
      NOW,
    );
    // Assess
    if (!('tick' in served)) throw new Error('expected a tick history');
    expect(served.tick.deltas.map((d) => [d.price, d.size, d.sequence])).toEqual([
      [98, 2, 700 * 100_000 + 1],
      [99, 3, 700 * 100_000 + 2],
    ]);
  });

  it('pages altx tick deltas by instant: a page never ends inside one, and the next starts just after it', async () => {
    // Prepare: 1,200 blocks of one placement each (one delta each), three blocks to an instant.
    const records: object[] = [{ dataset: 'l4_checkpoints', family: 'altx', symbol: 'TICKS', ts: T0 - 1, block_number: 99, seq: -1, bids: [], asks: [] }];
    for (let b = 0; b < 1_200; b++) {
      records.push({
        dataset: 'l4_diffs',
        family: 'altx',
        symbol: 'TICKS',
        ts: T0 + Math.floor(b / 3),
        block_number: 100 + b,
        seq: 0,
        oid: 5_000 + b,
        user_address: '11',
        side: 'A',
        price: String(1_000 + b),
        diff_type: 'new',
        new_size: '1',
        insert_before: null,
      });
    }
    await ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
    const request = {
      ...routePaging('getAltxOrderbookHistory'),
      family: 'altx' as const,
      symbol: 'TICKS',
      start: T0,
      end: T0 + 1_000,
      limit: 100,
      granularity: 'tick' as const,
    };
    const tick = async (cursor?: string) => {
      const served = await nativeBookHistory(deps(), { ...request, cursor }, NOW);
      if (!('tick' in served)) throw new Error('expected a tick history');
      return served;
    };
    // Act
    const first = await tick();
    const second = await tick(first.nextCursor!);
    // Assess: the 1,000th delta opens instant 333, so the first page ends with instant 332.
    expect(first.tick.deltas).toHaveLength(999);
    expect(first.nextCursor).toBe(String(T0 + 332));
    expect(first.nextCursor).toBe(String(first.tick.deltas.at(-1)!.timestamp));
    expect(second.tick.checkpoint.asks).toHaveLength(999);
    expect(second.nextCursor).toBeNull();
    expect([...first.tick.deltas, ...second.tick.deltas].map((d) => d.price)).toEqual(Array.from({ length: 1_200 }, (_, b) => 1_000 + b));
  });

  it('refuses an L2 diffs cursor that names no block of the market at that time', async () => {
    // Prepare: OB0, the first property run's market (blocks from 1000, every 500 ms from T0).
    const request = { ...routePaging('getPerpxL2OrderbookDiffs'), family: 'perpx' as const, symbol: 'OB0', start: T0, end: T0 + 60_000, limit: 10 };
    // Act, assess: a block of another market, and a time before the block's.
    for (const cursor of [`${T0}_999999`, `${T0}_${1_000 + 20}`]) {
      await expect(l2DiffsPage(deps(), { ...request, cursor }, NOW), cursor).rejects.toEqual(
        expect.objectContaining({ code: 'invalid_cursor', param: 'cursor' }),
      );
    }
  });

  it("ingests a batch of deep-book checkpoints larger than DuckDB's JSON buffer, and rebuilds from them", async () => {
    // Prepare: 20 checkpoints of 10,000 resting orders, about 1 MB a line and 20 MB in all.
    const orders = (side: 'B' | 'A') =>
      Array.from({ length: 5_000 }, (_, i) => [
        i * 2 + (side === 'B' ? 0 : 1),
        USERS[i % 2],
        String(side === 'B' ? 1000 - (i % 400) : 1001 + (i % 400)),
        '0.125',
        T0,
        '0.25',
      ]);
    const lines = Array.from({ length: 20 }, (_, k) =>
      JSON.stringify({
        dataset: 'l4_checkpoints',
        family: 'perpx',
        symbol: 'DEEP',
        ts: T0 + k * 60_000,
        block_number: 10 + k,
        seq: -1,
        bids: orders('B'),
        asks: orders('A'),
      }),
    );
    expect(lines.join('\n').length).toBeGreaterThan(16_777_216);
    // Act
    const outcome = await ingestBatch(deps(), 'normalized', lines.join('\n'));
    const book = await l4Book(deps(), { family: 'perpx', symbol: 'DEEP', at: T0 + 19 * 60_000, depth: 2 });
    // Assess
    expect(outcome.status).toBe('ingested');
    expect(book).toMatchObject({ bid_count: 5_000, ask_count: 5_000, total_bid_size: 625, checkpoint_timestamp: new Date(T0 + 19 * 60_000).toISOString() });
  });
});

/** A book as a replay holds it: price -> size per side, both as numbers (as tick deltas carry them). */
type Replayed = { bid: Map<number, number>; ask: Map<number, number> };
const replayedOf = (book: OrderBook): Replayed => ({
  bid: new Map(book.bids.map((l) => [Number(l.px), Number(l.sz)])),
  ask: new Map(book.asks.map((l) => [Number(l.px), Number(l.sz)])),
});
const shown = (replayed: Replayed) => ({
  bids: [...replayed.bid.entries()].sort((a, b) => b[0] - a[0]),
  asks: [...replayed.ask.entries()].sort((a, b) => a[0] - b[0]),
});
const native = (book: OrderBook) => shown(replayedOf(book));

/**
 * What a client of tick history does: takes the book at `start`, applies the deltas in order (size 0
 * removes the level), follows the cursor, and at each native checkpoint of the window compares what
 * it holds with that checkpoint (every delta stamped at or before it applied). Returns how many
 * checkpoints were compared after at least one delta.
 */
async function replayTicksAgainstCheckpoints(
  market: { family: 'altx' | 'altx-rh'; symbol: string },
  window: { start: number; end: number },
  depth: number | undefined,
  now: number,
): Promise<number> {
  const checkpoints = await walkJsonRows<OrderBook>(async (cursor) => {
    const served = await nativeBookHistory(
      deps(),
      { routeId: 'checkpoints', ...market, ...window, limit: 1000, cursor, depth, granularity: 'checkpoint' },
      now,
    );
    if (!('rows' in served)) throw new Error('expected native snapshots');
    return served.rows;
  });
  expect(checkpoints.length).toBeGreaterThan(1);
  expect(Date.parse(checkpoints[0]!.timestamp)).toBe(window.start);
  let replayed: Replayed | undefined;
  const pending: TickHistory['deltas'] = [];
  let cursor: string | undefined;
  let compared = 0;
  let applied = 0;
  const applyThrough = (at: number) => {
    while (pending.length > 0 && pending[0]!.timestamp <= at) {
      const delta = pending.shift()!;
      if (delta.size === 0) replayed![delta.side].delete(delta.price);
      else replayed![delta.side].set(delta.price, delta.size);
      applied++;
    }
  };
  const nextPage = async () => {
    const served = await nativeBookHistory(deps(), { routeId: 'ticks', ...market, ...window, limit: 100, cursor, depth, granularity: 'tick' }, now);
    if (!('tick' in served)) throw new Error('expected a tick history');
    // A page after the first starts from the book its cursor left: the replay must hold it already.
    if (replayed) expect(shown(replayed), `${market.symbol} page at ${served.tick.checkpoint.timestamp}`).toEqual(native(served.tick.checkpoint));
    else replayed = replayedOf(served.tick.checkpoint);
    expect(served.tick.deltas.every((d, i) => i === 0 || d.sequence >= served.tick.deltas[i - 1]!.sequence)).toBe(true);
    pending.push(...served.tick.deltas);
    cursor = served.nextCursor ?? undefined;
  };
  await nextPage();
  for (const checkpoint of checkpoints) {
    const at = Date.parse(checkpoint.timestamp);
    // The deltas up to the checkpoint may run onto the next pages.
    while (cursor && (pending.length === 0 || pending[pending.length - 1]!.timestamp <= at)) await nextPage();
    const before = applied;
    applyThrough(at);
    expect(shown(replayed!), `${market.family} ${market.symbol} depth ${depth} at ${checkpoint.timestamp}`).toEqual(native(checkpoint));
    if (applied > before) compared++;
  }
  return compared;
}

describe('altx tick history', () => {
  /**
   * An altx market's diffs in blocks a second apart, the full-depth native snapshot after every
   * third block (the venue's altx book has every level) and an order-level checkpoint after every
   * ninth, all ingested in one batch.
   */
  async function ingestAltx(blocks: readonly (readonly Step[])[]) {
    const symbol = `AX${run}`;
    const firstBlock = 1_000 + run++ * 1_000;
    const book = new L4Book();
    const live: { oid: number; side: 'B' | 'A'; price: string }[] = [];
    const records: object[] = [];
    let oid = firstBlock * 100;
    let position: [number, number] = [firstBlock - 1, -1];
    const snapshot = (ts: number) => {
      const levels = (s: 'B' | 'A') => book.levels(s).map((l) => [l.price, l.size, l.count]);
      records.push({ dataset: 'l2_snapshots', family: 'altx', symbol, ts, bids: levels('B'), asks: levels('A') });
    };
    const checkpoint = (ts: number) => {
      const side = (s: 'B' | 'A') => book.side(s).map((o) => [o.oid, o.user, o.price, o.size, o.placedAt, o.origSize]);
      records.push({ dataset: 'l4_checkpoints', family: 'altx', symbol, ts, block_number: position[0], seq: position[1], bids: side('B'), asks: side('A') });
    };
    checkpoint(T0 - 1);
    snapshot(T0 - 1);
    blocks.forEach((steps, b) => {
      const block = firstBlock + b;
      const ts = T0 + b * 1_000;
      let seq = 0;
      const emit = (diff: Omit<Diff, 'ts' | 'block_number' | 'seq'>) => {
        const full = { ...diff, ts, block_number: block, seq: seq++ };
        book.apply(full);
        position = [block, full.seq];
        records.push({ dataset: 'l4_diffs', family: 'altx', symbol, ...full });
      };
      for (const step of steps) {
        const price = String(step.side === 'B' ? 100 - step.level : 100 + step.level);
        const owner = String(11 + (step.pick % 2));
        if (step.kind === 'new' || step.kind === 'flash' || live.length === 0) {
          const order = { oid: oid++, side: step.side, price };
          emit({ oid: order.oid, user_address: owner, side: step.side, price, diff_type: 'new', new_size: String(step.size), insert_before: null });
          if (step.kind === 'flash')
            emit({ oid: order.oid, user_address: owner, side: step.side, price, diff_type: 'remove', new_size: null, insert_before: null });
          else live.push(order);
          continue;
        }
        const target = live[step.pick % live.length]!;
        const held = book.order(target.oid)!;
        if (step.kind === 'update')
          emit({
            oid: target.oid,
            user_address: held.user,
            side: target.side,
            price: target.price,
            diff_type: 'update',
            new_size: String(step.size),
            insert_before: null,
          });
        else {
          live.splice(live.indexOf(target), 1);
          emit({ oid: target.oid, user_address: held.user, side: target.side, price: target.price, diff_type: 'remove', new_size: null, insert_before: null });
        }
      }
      // Snapshots fall between blocks, as the venue's do.
      if (b % 3 === 2) snapshot(ts + 500);
      if (b % 9 === 8) checkpoint(ts + 500);
    });
    await ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
    return { symbol, end: T0 + blocks.length * 1_000 };
  }

  it('replays a checkpoint and its ordered deltas into every later checkpoint, at any depth (generated books)', async () => {
    await fc.assert(
      fc.asyncProperty(stream, fc.option(fc.integer({ min: 1, max: 7 }), { nil: undefined }), async (blocks, depth) => {
        // Prepare
        const { symbol, end } = await ingestAltx(blocks);
        // Act, assess
        await replayTicksAgainstCheckpoints({ family: 'altx', symbol }, { start: T0 - 1, end }, depth, NOW);
      }),
      { numRuns: 15 },
    );
  });

  it("replays the demo market's altx and altx-rh checkpoints from its tick history, at full depth and truncated", async () => {
    // Prepare: 16 minutes of the demo market (its native snapshots every minute, order-level
    // checkpoints every 5), the numbered venues' books ingested.
    const start = Date.UTC(2026, 8, 2, 6);
    const records = createDemoMarket({ startMs: start, seed: 7 })
      .advance(start + 16 * 60_000)
      .filter((r) => (r.family === 'altx' || r.family === 'altx-rh') && ['l2_snapshots', 'l4_diffs', 'l4_checkpoints'].includes(r.dataset));
    await ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
    const markets = [...new Set(records.map((r) => `${r.family} ${r.symbol}`))].map((m) => {
      const [family, symbol] = m.split(' ') as ['altx' | 'altx-rh', string];
      return { family, symbol };
    });
    // From the first native snapshot after the first order-level checkpoint to the end.
    const window = { start: start + 5 * 60_000 - 1, end: start + 16 * 60_000 - 1 };
    const now = start + 86_400_000;
    expect(markets.length).toBeGreaterThan(10);
    // Act, assess: every market at full depth, then markets and depths drawn by fast-check.
    let compared = 0;
    for (const market of markets) compared += await replayTicksAgainstCheckpoints(market, window, undefined, now);
    expect(compared).toBeGreaterThan(markets.length * 5);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...markets), fc.integer({ min: 1, max: 30 }), async (market, depth) => {
        await replayTicksAgainstCheckpoints(market, window, depth, now);
      }),
      { numRuns: 10 },
    );
  });
});
