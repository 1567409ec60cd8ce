/**
 * The L4 book at an instant reads only the diffs that decide it (core/market/orderbook-net.ts):
 * over the real archive, whatever the stream (quotes placed and removed inside the window, updates
 * and removals of resting orders, orders of size 0, and the anomalies a replay counts: updates and
 * removals of orders never held, a `new` for an order already resting, queue jumps that disable the
 * netting), the book served equals the checkpoint replayed through every diff, with the same count
 * of diffs applied and the same last block. Once compacted, the checkpoint's orders are columnar
 * (l4_checkpoint_orders) and the book is shaped in SQL (core/market/orderbook-sql.ts): it answers
 * exactly what the JavaScript replay of the JSON checkpoint answered before compaction.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ingestBatch } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { l2Book, l4Book } from '#core/market/orderbook.ts';
import { l4BookJson } from '#core/market/orderbook-sql.ts';
import { L4Book, type BookDiff } from '#core/book/l4-book.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';

const deps = scratchArchive();
const T0 = Date.parse('2026-07-01T00:00:00Z');
const BLOCK_MS = 400;
const USERS = ['0x00000000000000000000000000000000000000aa', '0x00000000000000000000000000000000000000bb'];
type Diff = BookDiff & { block_number: number; seq: number };

const step = fc.record({
  kind: fc.constantFrom('quote', 'quote', 'place', 'update', 'update0', 'remove', 'flash', 'zero', 'stray', 'renew', 'jump'),
  side: fc.constantFrom<'B' | 'A'>('B', 'A'),
  level: fc.integer({ min: 1, max: 5 }),
  size: fc.integer({ min: 1, max: 90 }),
  pick: fc.nat(),
});

let run = 0;

describe('the L4 book netted in SQL', () => {
  it('equals the checkpoint replayed through every diff, at any instant', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(step, { minLength: 1, maxLength: 5 }), { minLength: 4, maxLength: 40 }),
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
        async (blocks, jumps, compact, instants) => {
          // Prepare: a resting book in the first checkpoint, then the blocks; a second checkpoint after block 10.
          const symbol = `NET${run}`;
          const firstBlock = 5_000 + run++ * 1_000;
          const book = new L4Book();
          const records: object[] = [];
          const diffs: Diff[] = [];
          let oid = firstBlock * 100;
          const checkpoint = (ts: number, block: number, seq: number) => {
            const side = (s: 'B' | 'A') => book.side(s).map((o) => [o.oid, o.user, o.price, o.size, o.placedAt, o.origSize]);
            records.push({ dataset: 'l4_checkpoints', family: 'perpx', symbol, ts, block_number: block, seq, bids: side('B'), asks: side('A') });
            return {
              ts,
              position: [block, seq] as const,
              book: L4Book.fromCheckpoint(
                book.side('B').map((o) => [o.oid, o.user, o.price, o.size, o.placedAt, o.origSize]),
                book.side('A').map((o) => [o.oid, o.user, o.price, o.size, o.placedAt, o.origSize]),
              ),
            };
          };
          for (let i = 0; i < 12; i++) {
            const side = i % 2 === 0 ? 'B' : 'A';
            book.apply({
              ts: T0 - 10,
              oid: oid++,
              user_address: USERS[i % 2]!,
              side,
              price: String(side === 'B' ? 100 - (i % 3) - 1 : 100 + (i % 3) + 1),
              diff_type: 'new',
              new_size: '5',
              insert_before: null,
            });
          }
          const checkpoints = [checkpoint(T0 - 1, firstBlock - 1, 1_000_000)];
          const live = () => [...book.side('B'), ...book.side('A')];
          blocks.forEach((steps, b) => {
            const block = firstBlock + b;
            const ts = T0 + b * BLOCK_MS;
            let seq = 0;
            const emit = (diff: Omit<Diff, 'ts' | 'block_number' | 'seq' | 'insert_before'> & { insert_before?: number | null }) => {
              const full: Diff = { insert_before: null, ...diff, ts, block_number: block, seq: seq++ };
              book.apply(full);
              diffs.push(full);
              records.push({ dataset: 'l4_diffs', family: 'perpx', symbol, ...full });
            };
            for (const s of steps) {
              const price = String(s.side === 'B' ? 100 - s.level : 100 + s.level);
              const user = USERS[s.pick % 2]!;
              const resting = live();
              const target = resting[s.pick % Math.max(1, resting.length)];
              const kind = (s.kind === 'jump' && !jumps) || (!target && ['update', 'update0', 'remove', 'renew'].includes(s.kind)) ? 'quote' : s.kind;
              if (kind === 'quote' || kind === 'place' || kind === 'flash' || kind === 'zero' || kind === 'jump') {
                const id = oid++;
                const peers = resting.filter((o) => o.side === s.side && o.price === price);
                emit({
                  oid: id,
                  user_address: user,
                  side: s.side,
                  price,
                  diff_type: 'new',
                  new_size: kind === 'zero' ? '0.000' : String(s.size),
                  insert_before: kind === 'jump' && peers.length > 0 ? peers[0]!.oid : null,
                });
                if (kind === 'flash') emit({ oid: id, user_address: user, side: s.side, price, diff_type: 'remove', new_size: null });
              } else if (kind === 'update' || kind === 'update0') {
                emit({
                  oid: target!.oid,
                  user_address: target!.user,
                  side: target!.side,
                  price: target!.price,
                  diff_type: 'update',
                  new_size: kind === 'update0' ? '0' : String(s.size),
                });
              } else if (kind === 'remove') {
                emit({ oid: target!.oid, user_address: target!.user, side: target!.side, price: target!.price, diff_type: 'remove', new_size: null });
              } else if (kind === 'stray') {
                // Names an order never held: a replay counts it and moves on.
                emit({ oid: 1, user_address: user, side: s.side, price, diff_type: s.pick % 2 ? 'update' : 'remove', new_size: s.pick % 2 ? '3' : null });
              } else {
                // A `new` for an order already resting (it takes a new place), perhaps taken again at once.
                emit({ oid: target!.oid, user_address: target!.user, side: target!.side, price: target!.price, diff_type: 'new', new_size: String(s.size) });
                if (s.pick % 3 === 0)
                  emit({ oid: target!.oid, user_address: target!.user, side: target!.side, price: target!.price, diff_type: 'remove', new_size: null });
              }
            }
            if (b === 10) checkpoints.push(checkpoint(ts, block, seq - 1));
          });
          await ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
          const end = T0 + blocks.length * BLOCK_MS;
          const at = (pick: number) => T0 + (pick % (end - T0));
          // Before compaction no checkpoint has order rows: each book is the JSON checkpoint replayed in JavaScript.
          const replayedInJs = await Promise.all(instants.map((pick) => l4Book(deps(), { family: 'perpx', symbol, at: at(pick) })));
          const levelsInJs = await Promise.all(instants.map((pick) => l2Book(deps(), { family: 'perpx', symbol, at: at(pick), depth: 1 + (pick % 4) })));
          if (compact) await compactArchive(deps(), { families: ['perpx'], datasets: ['l4_diffs', 'l4_checkpoints'] });

          for (const [i, pick] of instants.entries()) {
            // Act
            const served = await l4Book(deps(), { family: 'perpx', symbol, at: at(pick) });
            expect(served).toEqual(replayedInJs[i]);
            expect(await l2Book(deps(), { family: 'perpx', symbol, at: at(pick), depth: 1 + (pick % 4) })).toEqual(levelsInJs[i]);
            // Assess: the newest checkpoint at or before the instant, replayed through every diff after it.
            const from = checkpoints.filter((c) => c.ts <= at(pick)).at(-1)!;
            const after = diffs.filter(
              (d) => d.ts <= at(pick) && (d.block_number > from.position[0] || (d.block_number === from.position[0] && d.seq > from.position[1])),
            );
            const expected = from.book;
            const replayed = L4Book.fromCheckpoint(
              expected.side('B').map((o) => [o.oid, o.user, o.price, o.size, o.placedAt, o.origSize]),
              expected.side('A').map((o) => [o.oid, o.user, o.price, o.size, o.placedAt, o.origSize]),
            );
            for (const d of after) replayed.apply(d);
            const orders = (side: 'B' | 'A') => replayed.side(side).map((o) => [o.oid, Number(o.price), Number(o.size), o.placedAt]);
            expect(served.bids.map((o) => [o.oid, o.price, o.size, o.timestamp_ms])).toEqual(orders('B'));
            expect(served.asks.map((o) => [o.oid, o.price, o.size, o.timestamp_ms])).toEqual(orders('A'));
            expect(served.diffs_applied).toBe(after.length);
            expect(served.last_block_number).toBe(after.at(-1)?.block_number ?? from.position[0]);
            expect([served.bid_count, served.ask_count]).toEqual([replayed.side('B').length, replayed.side('A').length]);
            expect([served.total_bid_size, served.total_ask_size]).toEqual([Number(replayed.total('B')), Number(replayed.total('A'))]);
            expect(served.is_crossed).toBe(replayed.isCrossed() || undefined);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("is shaped in SQL from the checkpoint's order rows once compacted, crossed books and depth included", async () => {
    // Prepare: a checkpoint of three orders (one keeps an original size), then an update, a placement behind a resting order, a removal.
    const [a, b] = USERS as [string, string];
    const symbol = 'COLS';
    const at = T0 + 2 * BLOCK_MS;
    const records = [
      {
        dataset: 'l4_checkpoints',
        family: 'perpx',
        symbol,
        ts: T0,
        block_number: 10,
        seq: 3,
        bids: [
          [1, a, '100.0', '2', T0 - 5, '4'],
          [2, b, '100', '1', null],
          [3, a, '99', '7', T0 - 9],
        ],
        asks: [[4, b, '101', '1.5', T0 - 1]],
      },
      {
        dataset: 'l4_diffs',
        family: 'perpx',
        symbol,
        ts: T0 + BLOCK_MS,
        block_number: 11,
        seq: 0,
        oid: 1,
        user_address: a,
        side: 'B',
        price: '100',
        diff_type: 'update',
        new_size: '0.5',
      },
      {
        dataset: 'l4_diffs',
        family: 'perpx',
        symbol,
        ts: T0 + BLOCK_MS,
        block_number: 11,
        seq: 1,
        oid: 5,
        user_address: b,
        side: 'B',
        price: '100',
        diff_type: 'new',
        new_size: '3',
      },
      {
        dataset: 'l4_diffs',
        family: 'perpx',
        symbol,
        ts: T0 + BLOCK_MS,
        block_number: 11,
        seq: 2,
        oid: 6,
        user_address: b,
        side: 'B',
        price: '102',
        diff_type: 'new',
        new_size: '1',
      },
      {
        dataset: 'l4_diffs',
        family: 'perpx',
        symbol,
        ts: at,
        block_number: 12,
        seq: 0,
        oid: 3,
        user_address: a,
        side: 'B',
        price: '99',
        diff_type: 'remove',
        new_size: null,
      },
    ];
    await ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
    await compactArchive(deps(), { families: ['perpx'], datasets: ['l4_diffs', 'l4_checkpoints'] });
    const head = { ts: T0, block_number: 10, seq: 3 };

    // Act
    const shaped = await l4BookJson(deps(), 'perpx', head, { symbol, at, depth: undefined });
    const top = await l4BookJson(deps(), 'perpx', head, { symbol, at, depth: 1 });

    // Assess: the best bid is the crossing placement, then the checkpoint's queue at 100, then the placement behind it.
    const order = (oid: number, user: string, side: string, price: number, size: number, ms: number | null) => ({
      oid,
      user_address: user,
      side,
      price,
      size,
      timestamp: ms === null ? null : new Date(ms).toISOString(),
      timestamp_ms: ms,
    });
    expect(shaped).toBeDefined();
    expect(JSON.parse(shaped!)).toEqual({
      coin: symbol,
      timestamp: new Date(at).toISOString(),
      checkpoint_timestamp: new Date(T0).toISOString(),
      diffs_applied: 4,
      last_block_number: 12,
      bids: [
        order(6, b, 'B', 102, 1, T0 + BLOCK_MS),
        order(1, a, 'B', 100, 0.5, T0 - 5),
        order(2, b, 'B', 100, 1, null),
        order(5, b, 'B', 100, 3, T0 + BLOCK_MS),
      ],
      asks: [order(4, b, 'A', 101, 1.5, T0 - 1)],
      bid_count: 4,
      ask_count: 1,
      total_bid_size: 5.5,
      total_ask_size: 1.5,
      is_crossed: true,
    });
    expect(JSON.parse(top!)).toMatchObject({ bids: [order(6, b, 'B', 102, 1, T0 + BLOCK_MS)], bid_count: 4, total_bid_size: 5.5 });
    expect(await l2Book(deps(), { family: 'perpx', symbol, at })).toEqual({
      symbol,
      coin: symbol,
      timestamp: new Date(at).toISOString(),
      bids: [
        { px: '102', sz: '1', n: 1 },
        { px: '100', sz: '4.5', n: 3 },
      ],
      asks: [{ px: '101', sz: '1.5', n: 1 }],
      mid_price: '101.5',
      spread: '-1',
      spread_bps: '-98.52',
      bid_levels: 2,
      ask_levels: 1,
      total_bid_size: 5.5,
      total_ask_size: 1.5,
    });
  });
});
