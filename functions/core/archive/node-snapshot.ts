/**
 * The node info server's order-level snapshot (`node_l4_snapshot`), as `fileSnapshot` with an
 * `l4Snapshots` request and `includeHeightInOutput` writes it: `[height, [[coin, book], ...]]`,
 * where `book` is `[bids, asks]` (or, asked with `includeTriggerOrders`,
 * `{book_orders: [bids, asks], untriggered_orders}`; orders waiting for their trigger are not in
 * the book and are left out), each order `[user, order]` with the node's order fields (`coin`,
 * `side`, `limitPx`, `sz`, `oid`, `timestamp`, `origSz`, trigger fields, `tif`, `cloid` when set).
 *
 * It becomes one L4 checkpoint per coin at block `height`. The snapshot holds every change of that
 * block (hyperliquid-dex/order_book_server applies block height + 1 next), so the checkpoint sits
 * after the whole block: `seq` is `AFTER_WHOLE_BLOCK`. The file has no time: the caller gives it
 * (`npm run ingest` takes `--at`, or the time of block `height` or `height + 1` from the node's
 * block files ingested with it). The text is parsed once (a mainnet snapshot is tens of MB).
 */
import * as v from 'valibot';
import type { L4CheckpointRecord, NormalizedRecord } from '#schemas/datasets.ts';
import { familyOfCoin } from './node-fills.ts';

/** A checkpoint's `seq` when it holds every diff of its block (the next diff to apply is the next block's). */
export const AFTER_WHOLE_BLOCK = Number.MAX_SAFE_INTEGER;

const decimal = v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string'));
const address = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address'));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));

// v.object (not strictObject): fields the node adds later must not refuse a snapshot.
const Order = v.object({
  coin: v.pipe(v.string(), v.minLength(1)),
  side: v.picklist(['B', 'A']),
  limitPx: decimal,
  sz: decimal,
  oid: count,
  // When the order entered the book (its trigger time for a triggered order).
  timestamp: count,
  origSz: v.optional(v.nullable(decimal)),
});
const UserOrder = v.tuple([address, Order], 'must be [user, order] (snapshots written with includeUsers: true)');
const Sides = v.tuple([v.array(v.unknown()), v.array(v.unknown())], 'must be [bids, asks]');
const Book = v.union([Sides, v.object({ book_orders: Sides })], 'must be [bids, asks] or {book_orders: [bids, asks], ...}');
const Snapshot = v.tuple([count, v.array(v.tuple([v.string(), v.unknown()], 'must be [coin, book]'))], 'must be [height, [[coin, book], ...]]');

const MAX_PROBLEMS = 5;
type Resting = [number, string, string, string, number | null, string];
/** Queue times before 2010 are no real instant (a zero the writer left): unknown, as the checkpoint allows. */
const queuedAt = (timestamp: number) => (timestamp >= 1_262_304_000_000 ? timestamp : null);

/** The height a snapshot's text begins with (read without parsing it), or undefined when it does not look like one. */
export function snapshotHeight(text: string): number | undefined {
  const match = /^\s*\[\s*(\d{1,15})\s*,\s*\[/.exec(text.slice(0, 64));
  return match ? Number(match[1]) : undefined;
}

function describe(where: string, issue: v.BaseIssue<unknown>): string {
  const path = v.getDotPath(issue);
  return `${where}${path ? ` ${path}` : ''}: ${issue.message}`;
}

/** Line and column of a position in the text, for a JSON error (the node writes the snapshot on one line or pretty-printed). */
function lineOf(text: string, position: number): string {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < position; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return `line ${line} column ${position - start + 1}`;
}

/**
 * One checkpoint per coin of the snapshot at `at` (epoch ms), or the problems (JSON paths, e.g.
 * `BTC bids[17] 1.limitPx: must be a decimal string`) that refuse it.
 */
export function snapshotToRecords(text: string, at: number | undefined): { records: NormalizedRecord[] } | { problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec(String((error as Error).message));
    return { problems: [`${position ? lineOf(text, Number(position[1])) : 'the text'}: not JSON (${(error as Error).message})`] };
  }
  const top = v.safeParse(Snapshot, json);
  if (!top.success) return { problems: [describe('the snapshot', top.issues[0])] };
  const [height, coins] = top.output;
  if (at === undefined) {
    return {
      problems: [
        `the snapshot at block ${height} carries no time: pass --at, or ingest it with the node's block files holding block ${height} or ${height + 1}`,
      ],
    };
  }
  const problems: string[] = [];
  const records: NormalizedRecord[] = [];
  for (const [coin, raw] of coins) {
    if (problems.length >= MAX_PROBLEMS) break;
    const market = familyOfCoin(coin);
    if ('error' in market) {
      problems.push(`${coin}: ${market.error}`);
      continue;
    }
    const book = v.safeParse(Book, raw);
    if (!book.success) {
      problems.push(describe(coin, book.issues[0]));
      continue;
    }
    const [bids, asks] = Array.isArray(book.output) ? book.output : book.output.book_orders;
    const sides = { bids: [] as Resting[], asks: [] as Resting[] };
    for (const [name, orders, side] of [
      ['bids', bids, 'B'],
      ['asks', asks, 'A'],
    ] as const) {
      for (const [i, item] of orders.entries()) {
        const parsed = v.safeParse(UserOrder, item);
        if (!parsed.success) {
          problems.push(describe(`${coin} ${name}[${i}]`, parsed.issues[0]));
          break;
        }
        const [user, order] = parsed.output;
        if (order.side !== side || order.coin !== coin) {
          problems.push(`${coin} ${name}[${i}]: order ${order.oid} is a ${order.coin} ${order.side} order`);
          break;
        }
        sides[name].push([order.oid, user.toLowerCase(), order.limitPx, order.sz, queuedAt(order.timestamp), order.origSz ?? order.sz]);
      }
    }
    // Best price first, queue order kept within a price (the sort is stable); the node writes them so, this makes it so.
    sides.bids.sort((a, b) => Number(b[2]) - Number(a[2]));
    sides.asks.sort((a, b) => Number(a[2]) - Number(b[2]));
    const record: L4CheckpointRecord = { dataset: 'l4_checkpoints', ...market, ts: at, block_number: height, seq: AFTER_WHOLE_BLOCK, ...sides };
    records.push(record);
  }
  return problems.length > 0 ? { problems: problems.slice(0, MAX_PROBLEMS) } : { records };
}
