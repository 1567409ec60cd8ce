/**
 * The node's streamed book diffs and order statuses (`--stream-with-block-info`): a block over
 * many lines gives, row for row, what its by-block form gives (property, one event a line or
 * random splits); a block whose lines are not consecutive, a line of another block time and a bad
 * field are refused naming the line; a node's hourly files cut at block boundaries send each block
 * once and whole, holding back the blocks at the stream's ends (property).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseBatch } from '#core/archive/parse.ts';
import { cutStreamedRun, streamOrder } from '#core/archive/streamed-run.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';

const users = ['0x1111111111111111111111111111111111111111', '0x2222222222222222222222222222222222222222', '0x7A146ee9d212816c31a0a93531e23d4359aade10'];
const user = fc.constantFrom(...users);
const coin = fc.constantFrom('BTC', 'ETH', 'xyz:TSLA', 'PURR/USDC', '#12', '@107');
const decimal = fc.tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 9_999 })).map(([i, f]) => `${i}.${f}`);

/** A raw book diff as the node writes it, in each of its forms. */
const diffEvent = fc.record({
  user,
  oid: fc.integer({ min: 1, max: 2 ** 40 }),
  coin,
  side: fc.constantFrom('B', 'A'),
  px: decimal,
  raw_book_diff: fc.oneof(
    fc.constant('remove'),
    decimal.map((sz) => ({ new: { sz } })),
    fc.tuple(decimal, decimal).map(([origSz, newSz]) => ({ update: { origSz, newSz } })),
    decimal.map((sz) => ({ modified: { sz } })),
  ),
});

/** An order status as the node writes it, with the fields the rows do not keep (`time`, `hash`, `builder`, `children`). */
const statusEvent = fc
  .record({
    status: fc.constantFrom('open', 'filled', 'canceled', 'triggered', 'perpMarginRejected', 'reduceOnlyCanceled'),
    user,
    hash: fc.option(fc.constant(`0x${'ab'.repeat(32)}`)),
    builder: fc.option(fc.record({ b: user, f: fc.integer({ min: 0, max: 100 }) })),
    order: fc.record({
      coin,
      side: fc.constantFrom('B', 'A'),
      limitPx: decimal,
      sz: decimal,
      origSz: decimal,
      oid: fc.integer({ min: 1, max: 2 ** 40 }),
      timestamp: fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }),
      orderType: fc.constantFrom('Limit', 'Stop Market', 'Take Profit Limit'),
      tif: fc.option(fc.constantFrom('Gtc', 'Alo', 'Ioc', 'FrontendMarket')),
      reduceOnly: fc.boolean(),
      isTrigger: fc.boolean(),
      triggerCondition: fc.constantFrom('N/A', 'Price above 100'),
      triggerPx: decimal,
      isPositionTpsl: fc.boolean(),
      children: fc.constant([]),
      cloid: fc.option(fc.constant('0x0000000000000000000000000000abcd')),
    }),
  })
  .map((event) => ({ time: '2026-06-10T12:56:15.035481067', ...event }));

const FORMATS = [
  { byBlock: 'node_raw_book_diffs_by_block', streaming: 'node_raw_book_diffs_streaming', event: diffEvent },
  { byBlock: 'node_order_statuses_by_block', streaming: 'node_order_statuses_streaming', event: statusEvent },
] as const;

interface Block {
  local_time: string;
  block_time: string;
  block_number: number;
  events: unknown[];
}
const blockTime = (n: number) => new Date(Date.UTC(2026, 5, 10, 12, 56) + n * 64).toISOString().replace('Z', '481067');

/** Blocks with increasing numbers (gaps as on the chain), one or more events each. */
const blocksOf = (event: fc.Arbitrary<unknown>) =>
  fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.array(event, { minLength: 1, maxLength: 6 })), { minLength: 1, maxLength: 8 }).map((specs) => {
    let number = 1_030_140_000;
    return specs.map(([gap, events]): Block => {
      number += gap;
      return { local_time: '2026-06-10T13:10:56.723695057', block_time: blockTime(number), block_number: number, events };
    });
  });

/** The streamed lines of blocks: each block's events in order, cut into lines of the sizes given (cycled); a later `local_time` on each line. */
function streamed(blocks: readonly Block[], sizes: readonly number[]): Block[] {
  const lines: Block[] = [];
  for (const block of blocks) {
    for (let at = 0; at < block.events.length; ) {
      const size = sizes[lines.length % sizes.length]!;
      lines.push({ ...block, local_time: `2026-06-10T13:10:${String(lines.length % 60).padStart(2, '0')}.1`, events: block.events.slice(at, at + size) });
      at += size;
    }
  }
  return lines;
}
const jsonl = (items: readonly unknown[]) => `${items.map((item) => JSON.stringify(item)).join('\n')}\n`;
const recordsOf = (result: ReturnType<typeof parseBatch>): NormalizedRecord[] => {
  if (!result.ok) throw new Error(result.reason);
  return result.records;
};

describe('node_raw_book_diffs_streaming and node_order_statuses_streaming', () => {
  for (const { byBlock, streaming, event } of FORMATS) {
    it(`${streaming} gives the rows ${byBlock} gives for the same blocks, one event a line or any split`, () => {
      const sizes = fc.oneof(fc.constant([1]), fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 16 }));
      fc.assert(
        fc.property(blocksOf(event), sizes, (blocks, split) => {
          const a = parseBatch(byBlock, jsonl(blocks));
          const b = parseBatch(streaming, jsonl(streamed(blocks, split)));
          // Blocks of spot statuses alone hold no archived rows: both forms say so.
          if (!a.ok) {
            expect(a.reason).toBe(`batch refused (${byBlock}): no records`);
            expect(b).toEqual({ ok: false, reason: `batch refused (${streaming}): no records` });
            return;
          }
          expect(recordsOf(b)).toEqual(recordsOf(a));
          expect(b.ok && [...b.blockTimes]).toEqual([...a.blockTimes]);
        }),
        { numRuns: 150 },
      );
    });
  }

  it("numbers a block's events across its lines, each block from 0", () => {
    const diff = (oid: number) => ({ user: users[0], oid, coin: 'ETH', side: 'B', px: '3000.5', raw_book_diff: { new: { sz: '1' } } });
    const line = (n: number, oids: number[]) => ({ local_time: '2026-06-10T13:00:00.1', block_time: blockTime(n), block_number: n, events: oids.map(diff) });
    const result = parseBatch('node_raw_book_diffs_streaming', jsonl([line(7, [1]), line(7, [2, 3]), line(7, [4]), line(9, [5]), line(9, [6])]));
    expect(recordsOf(result).map((r) => r.dataset === 'l4_diffs' && [r.block_number, r.seq, r.oid])).toEqual([
      [7, 0, 1],
      [7, 1, 2],
      [7, 2, 3],
      [7, 3, 4],
      [9, 0, 5],
      [9, 1, 6],
    ]);
  });

  it('refuses a block whose lines are not consecutive, a line of another block time and a bad field, naming the line', () => {
    const diff = { user: users[0], oid: 1, coin: 'ETH', side: 'B', px: '1', raw_book_diff: 'remove' };
    const line = (n: number, over: Record<string, unknown> = {}) => ({ local_time: 't', block_time: blockTime(n), block_number: n, events: [diff], ...over });
    const interleaved = parseBatch('node_raw_book_diffs_streaming', jsonl([line(7), line(8), line(7)]));
    expect(!interleaved.ok && interleaved.reason).toMatch(
      /^batch refused \(node_raw_book_diffs_streaming\): line 3: block_number 7 again after block 8 began \(line 2\); its lines from line 1 are not consecutive/,
    );
    const retimed = parseBatch('node_raw_book_diffs_streaming', jsonl([line(7), line(7, { block_time: blockTime(8) })]));
    expect(!retimed.ok && retimed.reason).toMatch(/line 2: block_time "[^"]+" is not that of block 7/);
    const broken = parseBatch('node_order_statuses_streaming', jsonl([{ ...line(7), events: [{ user: users[0], status: 'open', order: { coin: 'BTC' } }] }]));
    expect(!broken.ok && broken.reason).toMatch(/^batch refused \(node_order_statuses_streaming\): line 1: events\.0\.order\.side /);
  });
});

describe("a node's streamed files cut at block boundaries", () => {
  it('sends each block once and whole with the file where it begins, and holds back the first and the last', () => {
    fc.assert(
      fc.property(
        blocksOf(diffEvent),
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        (blocks, split, cutPoints) => {
          // The node's lines cut into files anywhere, a block's lines too (the hour turns while it is written); a file may be empty.
          const lines = streamed(blocks, split);
          const cuts = [...new Set(cutPoints.map((c) => c % (lines.length + 1)))].sort((x, y) => x - y);
          const bounds = [0, ...cuts, lines.length];
          const files = bounds.slice(1).map((end, i) => ({
            file: `node_raw_book_diffs_streaming/hourly/20260610/${i}`,
            text: lines
              .slice(bounds[i], end)
              .map((l) => JSON.stringify(l))
              .join('\n'),
          }));

          const batches = cutStreamedRun(files);

          if ('error' in batches) throw new Error(batches.error);
          const sent = batches.flatMap((b) => (b.text === '' ? [] : recordsOf(parseBatch('node_raw_book_diffs_streaming', b.text))));
          const inner = blocks.slice(1, -1);
          expect(sent).toEqual(inner.length > 0 ? recordsOf(parseBatch('node_raw_book_diffs_by_block', jsonl(inner))) : []);
          const held = batches.flatMap((b) => b.heldBack.map((h) => Number(/^block (\d+)/.exec(h)![1])));
          expect([...new Set(held)]).toEqual([...new Set([blocks[0]!.block_number, blocks.at(-1)!.block_number])]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('says which lines finish a block sent with the file before, and why a block is held back', () => {
    const diff = (oid: number) => ({ user: users[0], oid, coin: 'ETH', side: 'B', px: '1', raw_book_diff: 'remove' });
    const line = (n: number, oid: number) => JSON.stringify({ local_time: 't', block_time: blockTime(n), block_number: n, events: [diff(oid)] });
    const batches = cutStreamedRun([
      { file: 'h/12', text: [line(1, 1), line(2, 2), line(3, 3)].join('\n') },
      { file: 'h/13', text: [line(3, 4), line(3, 5), line(4, 6), line(5, 7)].join('\n') },
    ]);
    expect(batches).toEqual([
      {
        file: 'h/12',
        text: `${[line(2, 2), line(3, 3), line(3, 4), line(3, 5)].join('\n')}\n`,
        heldBack: ['block 1, line 1 (it may have begun in the file before h/12, which was not given)'],
      },
      {
        file: 'h/13',
        text: `${line(4, 6)}\n`,
        sentWith: 'its lines 1–2 finish block 3, sent with h/12',
        heldBack: ['block 5, line 4 (it may go on in the file after h/13, which was not given or is still being written)'],
      },
    ]);
  });

  it('refuses a block that comes back in a later file, naming the file and line', () => {
    const line = (n: number) => JSON.stringify({ block_number: n, events: [] });
    expect(
      cutStreamedRun([
        { file: 'h/12', text: [line(1), line(2)].join('\n') },
        { file: 'h/13', text: [line(3), line(2)].join('\n') },
      ]),
    ).toEqual({ error: "h/13: line 2: block_number 2 again after block 3 began; it began at h/12 line 2, so its events' places in the block are not known" });
  });

  it("orders a directory's hourly files by date, then hour as a number", () => {
    const names = ['d/20260611/0', 'd/20260610/10', 'd/20260610/9', 'd/20260610/23.lz4'];
    expect([...names].sort(streamOrder)).toEqual(['d/20260610/9', 'd/20260610/10', 'd/20260610/23.lz4', 'd/20260611/0']);
  });
});
