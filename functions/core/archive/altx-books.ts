/**
 * altx books from recordings of the venue's API. The `order_book/{id}` channel sends the whole book
 * of price levels on subscription (`subscribed/order_book`) and then only the levels that changed
 * (`update/order_book`, a size of zero removes the level); each message's book becomes an L2
 * snapshot at the message's time. The REST `orderBookOrders` answer (L3: the resting orders, at
 * most 250 a side) becomes an order-level checkpoint.
 */
import type { L4CheckpointRecord, RecordOf } from '#schemas/datasets.ts';

type L2SnapshotRecord = RecordOf<'l2_snapshots'>;
import { canonicalDecimal, parseDecimal } from '../book/decimal.ts';
import type { Family } from '../venues.ts';

type Level = { price: string; size: string };
type Side = Map<string, Level>;
interface Book {
  bids: Side;
  asks: Side;
  nonce?: number;
}

export interface BookMessage {
  asks: readonly Level[];
  bids: readonly Level[];
  nonce?: number | null;
  begin_nonce?: number | null;
}

const isZero = (size: string) => parseDecimal(size).units === 0n;

function apply(side: Side, levels: readonly Level[]): void {
  // Keyed by the canonical price, so `3000.00` and `3000` are one level.
  for (const level of levels) {
    const key = canonicalDecimal(level.price);
    if (isZero(level.size)) side.delete(key);
    else side.set(key, level);
  }
}

/** Best first; the venue's book has no order counts, so each level's count is 0 (unknown). */
function sorted(side: Side, descending: boolean): [string, string, number][] {
  const levels = [...side.values()].sort((a, b) => (descending ? Number(b.price) - Number(a.price) : Number(a.price) - Number(b.price)));
  return levels.map((l) => [l.price, l.size, 0]);
}

/** The books of a recording's `order_book` channels, replayed message by message in file order. */
export class BookReplay {
  readonly #books = new Map<number, Book>();

  /**
   * Applies one message of a market's channel and returns the book after it, or undefined while the
   * book is unknown: before the recording's first snapshot of the market, and after a gap in the
   * stream (an update whose `begin_nonce` is not the previous message's `nonce`) until the next one.
   */
  apply(
    marketId: number,
    kind: 'snapshot' | 'update',
    message: BookMessage,
  ): { bids: [string, string, number][]; asks: [string, string, number][] } | undefined {
    let book = this.#books.get(marketId);
    if (kind === 'snapshot') {
      book = { bids: new Map(), asks: new Map() };
      this.#books.set(marketId, book);
    } else if (!book) {
      return undefined;
    } else if (message.begin_nonce != null && book.nonce !== undefined && message.begin_nonce !== book.nonce) {
      this.#books.delete(marketId);
      return undefined;
    }
    apply(book.bids, message.bids);
    apply(book.asks, message.asks);
    book.nonce = message.nonce ?? undefined;
    return { bids: sorted(book.bids, true), asks: sorted(book.asks, false) };
  }
}

export function l2Snapshot(family: Family, symbol: string, ts: number, levels: Pick<L2SnapshotRecord, 'bids' | 'asks'>): L2SnapshotRecord {
  return { dataset: 'l2_snapshots', family, symbol, ts, bids: levels.bids, asks: levels.asks };
}

export interface RestingOrder {
  order_index: number;
  owner_account_index: number;
  price: string;
  remaining_base_amount: string;
  initial_base_amount?: string | null;
}

/**
 * The orders of an `orderBookOrders` answer as a checkpoint: each side best price first, in the
 * answer's order within a price (the venue lists a level's orders in time priority). The venue
 * gives no block with the answer, so the checkpoint is at block 0: a rebuild applies every diff
 * recorded from its instant on. Orders already filled (nothing remaining) are not in a book.
 */
export function l3Checkpoint(
  family: Family,
  symbol: string,
  ts: number,
  answer: { bids: readonly RestingOrder[]; asks: readonly RestingOrder[] },
): L4CheckpointRecord {
  const side = (orders: readonly RestingOrder[], descending: boolean) =>
    orders
      .filter((o) => !isZero(o.remaining_base_amount))
      .map((o, i) => ({ o, i }))
      .sort((a, b) => (descending ? Number(b.o.price) - Number(a.o.price) : Number(a.o.price) - Number(b.o.price)) || a.i - b.i)
      .map(({ o }): L4CheckpointRecord['bids'][number] =>
        o.initial_base_amount
          ? [o.order_index, String(o.owner_account_index), o.price, o.remaining_base_amount, null, o.initial_base_amount]
          : [o.order_index, String(o.owner_account_index), o.price, o.remaining_base_amount, null],
      );
  return { dataset: 'l4_checkpoints', family, symbol, ts, block_number: 0, seq: -1, bids: side(answer.bids, true), asks: side(answer.asks, false) };
}
