/**
 * Properties of the order-book reads over the real archive (dynalite manifest, s3rver objects,
 * DuckDB), whatever the diff stream, its batches, compaction and the page size: the L4 book at any
 * instant equals the diffs replayed from an empty book; a cursor walk of L4 diffs serves each once
 * in order; a walk of L2 diffs is the same at every page size and replays the full-depth book at the
 * window's start into the one at its end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ingestBatch } from '../../functions/core/archive/ingest.ts';
import { compactArchive } from '../../functions/core/archive/compact.ts';
import { l2Book, l2DiffsPage, l4Book, l4DiffsPage, nativeBookHistory } from '../../functions/core/market/orderbook.ts';
import { L4Book, type BookDiff } from '../../functions/core/book/l4-book.ts';
import type { ArchiveDeps } from '../../functions/ports/archive.ts';
import { archiveDeps } from '../../functions/shared/archive-deps.ts';
import { startScratchEmulators, type ScratchEmulators } from '../../functions/local/scratch-emulators.ts';
import { routePaging, walkJsonRows } from '../helpers/api.ts';

let env: ScratchEmulators;
let deps: ArchiveDeps;
beforeAll(async () => {
  env = await startScratchEmulators();
  deps = archiveDeps();
});
afterAll(async () => { await env?.stop(); });

const T0 = Date.parse('2026-09-01T00:00:00Z');
const BLOCK_MS = 500;
const NOW = T0 + 2 * 86_400_000;
const USERS = ['0x00000000000000000000000000000000000000aa', '0x00000000000000000000000000000000000000bb'];

type Diff = BookDiff & { block_number: number; seq: number };

/** Blocks of 1-4 diffs: placements (some queued before a peer), trims, removals, and orders placed and taken in one block. */
const stream = fc.array(fc.array(fc.record({
  kind: fc.constantFrom('new', 'new', 'update', 'remove', 'flash'),
  side: fc.constantFrom<'B' | 'A'>('B', 'A'),
  level: fc.integer({ min: 1, max: 6 }),
  size: fc.integer({ min: 1, max: 900 }),
  pick: fc.nat(),
  jump: fc.boolean(),
}), { minLength: 1, maxLength: 4 }), { minLength: 5, maxLength: 80 });

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
        emit({ oid: order.oid, user_address: USERS[step.pick % 2]!, side: step.side, price, diff_type: 'new', new_size: String(step.size), insert_before: before });
        // A flash order is taken within its block: the level ends as it began.
        if (step.kind === 'flash') emit({ oid: order.oid, user_address: USERS[step.pick % 2]!, side: step.side, price, diff_type: 'remove', new_size: null, insert_before: null });
        else live.push(order);
        return;
      }
      const target = live[step.pick % live.length]!;
      const held = book.order(target.oid)!;
      if (step.kind === 'update') emit({ oid: target.oid, user_address: held.user, side: target.side, price, diff_type: 'update', new_size: String(step.size), insert_before: null });
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
    if (part.length) await ingestBatch(deps, 'normalized', part.map((r) => JSON.stringify(r)).join('\n'));
  }
  if (compact) await compactArchive(deps, { families: ['perpx'] });
  return { symbol, diffs, end: T0 + blocks.length * BLOCK_MS };
}

const replayTo = (diffs: readonly Diff[], at: number) => {
  const book = new L4Book();
  for (const d of diffs) if (d.ts <= at) book.apply(d);
  return book;
};

describe('order-book reads', () => {
  it('rebuild the book at any instant, and walk L4 and L2 diffs exactly at any page size', async () => {
    await fc.assert(fc.asyncProperty(
      stream, fc.integer({ min: 1, max: 3 }), fc.boolean(), fc.integer({ min: 1, max: 12 }), fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
      async (blocks, batches, compact, limit, instants) => {
        // Prepare
        const { symbol, diffs, end } = await ingest(blocks, batches, compact);
        const market = { family: 'perpx' as const, symbol };
        const window = { ...market, start: T0, end, limit };

        // Act, assess: the book at instants across checkpoints
        for (const pick of instants) {
          const at = T0 + (pick % (end - T0));
          const served = await l4Book(deps, { ...market, at });
          const expected = replayTo(diffs, at);
          expect(served.bids.map((o) => o.oid)).toEqual(expected.side('B').map((o) => o.oid));
          expect(served.asks.map((o) => [o.oid, o.size])).toEqual(expected.side('A').map((o) => [o.oid, Number(o.size)]));
        }
        const l4 = await walkJsonRows<{ block_number: number; seq: number }>((cursor) => l4DiffsPage(deps, { ...routePaging('getPerpxL4OrderbookDiffs'), ...window, cursor }, NOW));
        expect(l4.map((d) => [d.block_number, d.seq])).toEqual(diffs.map((d) => [d.block_number, d.seq]));

        const from = T0 + BLOCK_MS * 3;
        const l2Window = { ...window, start: from + 1 };
        // Each next cursor is the one a client builds from the last row served: `<ts_ms>_<block_number>`.
        type L2Row = { timestamp: string; block_number: number; side: 'B' | 'A'; price: number; size: number; count: number };
        const small: L2Row[] = [];
        for (let cursor: string | undefined, page; !page || cursor; ) {
          page = await l2DiffsPage(deps, { ...routePaging('getPerpxL2OrderbookDiffs'), ...l2Window, cursor }, NOW);
          const rows = JSON.parse(`[${page.json}]`) as L2Row[];
          if (page.nextCursor && rows.length > 0) expect(page.nextCursor).toBe(`${Date.parse(rows.at(-1)!.timestamp)}_${rows.at(-1)!.block_number}`);
          small.push(...rows);
          cursor = page.nextCursor ?? undefined;
        }
        const whole = await walkJsonRows<typeof small[number]>((cursor) => l2DiffsPage(deps, { ...routePaging('getPerpxL2OrderbookDiffs'), ...l2Window, limit: 1000, cursor }, NOW));
        expect(small).toEqual(whole);
        const start = await l2Book(deps, { ...market, at: from });
        const levels = { B: new Map(start.bids.map((l) => [Number(l.px), [Number(l.sz), l.n]])), A: new Map(start.asks.map((l) => [Number(l.px), [Number(l.sz), l.n]])) };
        for (const d of whole) {
          if (d.count === 0) levels[d.side].delete(d.price);
          else levels[d.side].set(d.price, [d.size, d.count]);
        }
        const final = await l2Book(deps, { ...market, at: end });
        expect([...levels.B.entries()].sort((a, b) => b[0] - a[0]).map(([px, [sz, n]]) => [px, sz, n])).toEqual(final.bids.map((l) => [Number(l.px), Number(l.sz), l.n]));
        expect([...levels.A.entries()].sort((a, b) => a[0] - b[0]).map(([px, [sz, n]]) => [px, sz, n])).toEqual(final.asks.map((l) => [Number(l.px), Number(l.sz), l.n]));
      },
    ), { numRuns: 15 });
  });

  it('lists a block\'s tick deltas in sequence order when a level changes again after another', async () => {
    // Prepare: one altx block that places at 99, then at 98, then resizes the order at 99 again.
    const base = { dataset: 'l4_diffs', family: 'altx', symbol: 'TICK', ts: T0, block_number: 700 };
    const records = [
      { dataset: 'l4_checkpoints', family: 'altx', symbol: 'TICK', ts: T0 - 1, block_number: 699, seq: -1, bids: [], asks: [] },
      { ...base, seq: 0, oid: 1, user_address: '11', side: 'B', price: '99', diff_type: 'new', new_size: '1' },
      { ...base, seq: 1, oid: 2, user_address: '12', side: 'B', price: '98', diff_type: 'new', new_size: '2' },
      { ...base, seq: 2, oid: 1, user_address: '11', side: 'B', price: '99', diff_type: 'update', new_size: '3' },
    ];
    await ingestBatch(deps, 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
    // Act
    const served = await nativeBookHistory(deps, { ...routePaging('getAltxOrderbookHistory'), family: 'altx', symbol: 'TICK', start: T0 - 1, end: T0 + 1_000, limit: 1000, granularity: 'tick' }, NOW);
    // Assess
    if (!('tick' in served)) throw new Error('expected a tick history');
    expect(served.tick.deltas.map((d) => [d.price, d.size, d.sequence])).toEqual([[98, 2, 700 * 100_000 + 1], [99, 3, 700 * 100_000 + 2]]);
  });

  it('pages altx tick deltas by instant: a page never ends inside one, and the next starts just after it', async () => {
    // Prepare: 1,200 blocks of one placement each (one delta each), three blocks to an instant.
    const records: object[] = [{ dataset: 'l4_checkpoints', family: 'altx', symbol: 'TICKS', ts: T0 - 1, block_number: 99, seq: -1, bids: [], asks: [] }];
    for (let b = 0; b < 1_200; b++) {
      records.push({
        dataset: 'l4_diffs', family: 'altx', symbol: 'TICKS', ts: T0 + Math.floor(b / 3), block_number: 100 + b, seq: 0,
        oid: 5_000 + b, user_address: '11', side: 'A', price: String(1_000 + b), diff_type: 'new', new_size: '1', insert_before: null,
      });
    }
    await ingestBatch(deps, 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
    const request = { ...routePaging('getAltxOrderbookHistory'), family: 'altx' as const, symbol: 'TICKS', start: T0, end: T0 + 1_000, limit: 100, granularity: 'tick' as const };
    const tick = async (cursor?: string) => {
      const served = await nativeBookHistory(deps, { ...request, cursor }, NOW);
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
      await expect(l2DiffsPage(deps, { ...request, cursor }, NOW), cursor).rejects.toEqual(expect.objectContaining({ code: 'invalid_cursor', param: 'cursor' }));
    }
  });

  it('ingests a batch of deep-book checkpoints larger than DuckDB\'s JSON buffer, and rebuilds from them', async () => {
    // Prepare: 20 checkpoints of 10,000 resting orders, about 1 MB a line and 20 MB in all.
    const orders = (side: 'B' | 'A') => Array.from({ length: 5_000 }, (_, i) => [i * 2 + (side === 'B' ? 0 : 1), USERS[i % 2], String(side === 'B' ? 1000 - (i % 400) : 1001 + (i % 400)), '0.125', T0, '0.25']);
    const lines = Array.from({ length: 20 }, (_, k) => JSON.stringify({
      dataset: 'l4_checkpoints', family: 'perpx', symbol: 'DEEP', ts: T0 + k * 60_000, block_number: 10 + k, seq: -1, bids: orders('B'), asks: orders('A'),
    }));
    expect(lines.join('\n').length).toBeGreaterThan(16_777_216);
    // Act
    const outcome = await ingestBatch(deps, 'normalized', lines.join('\n'));
    const book = await l4Book(deps, { family: 'perpx', symbol: 'DEEP', at: T0 + 19 * 60_000, depth: 2 });
    // Assess
    expect(outcome.status).toBe('ingested');
    expect(book).toMatchObject({ bid_count: 5_000, ask_count: 5_000, total_bid_size: 625, checkpoint_timestamp: new Date(T0 + 19 * 60_000).toISOString() });
  });
});
