/**
 * The L4 book at an instant reads only the diffs that decide it (core/market/orderbook-net.ts):
 * over the real archive, whatever the stream (quotes placed and removed inside the window, updates
 * and removals of resting orders, orders of size 0, and the anomalies a replay counts: updates and
 * removals of orders never held, a `new` for an order already resting, queue jumps that disable the
 * netting), the book served equals the checkpoint replayed through every diff, with the same count
 * of diffs applied and the same last block.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ingestBatch } from '../../functions/core/archive/ingest.ts';
import { compactArchive } from '../../functions/core/archive/compact.ts';
import { l4Book } from '../../functions/core/market/orderbook.ts';
import { L4Book, type BookDiff } from '../../functions/core/book/l4-book.ts';
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
    await fc.assert(fc.asyncProperty(
      fc.array(fc.array(step, { minLength: 1, maxLength: 5 }), { minLength: 4, maxLength: 40 }),
      fc.boolean(), fc.boolean(), fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
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
          return { ts, position: [block, seq] as const, book: L4Book.fromCheckpoint(book.side('B').map((o) => [o.oid, o.user, o.price, o.size, o.placedAt, o.origSize]), book.side('A').map((o) => [o.oid, o.user, o.price, o.size, o.placedAt, o.origSize])) };
        };
        for (let i = 0; i < 12; i++) {
          const side = i % 2 === 0 ? 'B' : 'A';
          book.apply({ ts: T0 - 10, oid: oid++, user_address: USERS[i % 2]!, side, price: String(side === 'B' ? 100 - (i % 3) - 1 : 100 + (i % 3) + 1), diff_type: 'new', new_size: '5', insert_before: null });
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
              emit({ oid: id, user_address: user, side: s.side, price, diff_type: 'new', new_size: kind === 'zero' ? '0.000' : String(s.size), insert_before: kind === 'jump' && peers.length > 0 ? peers[0]!.oid : null });
              if (kind === 'flash') emit({ oid: id, user_address: user, side: s.side, price, diff_type: 'remove', new_size: null });
            } else if (kind === 'update' || kind === 'update0') {
              emit({ oid: target!.oid, user_address: target!.user, side: target!.side, price: target!.price, diff_type: 'update', new_size: kind === 'update0' ? '0' : String(s.size) });
            } else if (kind === 'remove') {
              emit({ oid: target!.oid, user_address: target!.user, side: target!.side, price: target!.price, diff_type: 'remove', new_size: null });
            } else if (kind === 'stray') {
              // Names an order never held: a replay counts it and moves on.
              emit({ oid: 1, user_address: user, side: s.side, price, diff_type: s.pick % 2 ? 'update' : 'remove', new_size: s.pick % 2 ? '3' : null });
            } else {
              // A `new` for an order already resting (it takes a new place), perhaps taken again at once.
              emit({ oid: target!.oid, user_address: target!.user, side: target!.side, price: target!.price, diff_type: 'new', new_size: String(s.size) });
              if (s.pick % 3 === 0) emit({ oid: target!.oid, user_address: target!.user, side: target!.side, price: target!.price, diff_type: 'remove', new_size: null });
            }
          }
          if (b === 10) checkpoints.push(checkpoint(ts, block, seq - 1));
        });
        await ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
        if (compact) await compactArchive(deps(), { families: ['perpx'], datasets: ['l4_diffs', 'l4_checkpoints'] });
        const end = T0 + blocks.length * BLOCK_MS;

        for (const pick of instants) {
          // Act
          const at = T0 + (pick % (end - T0));
          const served = await l4Book(deps(), { family: 'perpx', symbol, at });
          // Assess: the newest checkpoint at or before the instant, replayed through every diff after it.
          const from = checkpoints.filter((c) => c.ts <= at).at(-1)!;
          const after = diffs.filter((d) => d.ts <= at && (d.block_number > from.position[0] || (d.block_number === from.position[0] && d.seq > from.position[1])));
          const expected = from.book;
          const replayed = L4Book.fromCheckpoint(expected.side('B').map((o) => [o.oid, o.user, o.price, o.size, o.placedAt, o.origSize]), expected.side('A').map((o) => [o.oid, o.user, o.price, o.size, o.placedAt, o.origSize]));
          for (const d of after) replayed.apply(d);
          const orders = (side: 'B' | 'A') => replayed.side(side).map((o) => [o.oid, Number(o.price), Number(o.size), o.placedAt]);
          expect(served.bids.map((o) => [o.oid, o.price, o.size, o.timestamp_ms])).toEqual(orders('B'));
          expect(served.asks.map((o) => [o.oid, o.price, o.size, o.timestamp_ms])).toEqual(orders('A'));
          expect(served.diffs_applied).toBe(after.length);
          expect(served.last_block_number).toBe(after.at(-1)?.block_number ?? from.position[0]);
        }
      },
    ), { numRuns: 40 });
  });
});
