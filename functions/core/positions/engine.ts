/**
 * The position engine, pure: a book of open positions (account x market) folded over the change
 * legs of archived fills, hourly funding, and snapshots of the book at an instant. The positions job
 * uses it to build the change log and the snapshots, and the as-of read uses the same fold on top
 * of a stored snapshot, so a reconstruction and a snapshot cannot disagree.
 *
 * Rules (SPEC "Account and market positions"):
 * - a leg's size before is checked against the running size (`continuity`); a contradicting leg is
 *   `quarantined`: it is not applied as a fill, the size is re-anchored to what the venue says
 *   it is after the leg and the entry price becomes unknown (the position's quality `partial`);
 * - a position first seen already open (size before not zero) has an unknown entry and opening time;
 * - funding is charged at each UTC hour on the size held then: size x mark x rate (a positive rate
 *   charges longs; positive amounts are paid);
 * - null means unknown, never zero.
 */
import type { PositionChangeRecord, PositionSnapshotRecord } from '#schemas/datasets.ts';
import type { Family } from '../venues.ts';
import { ZERO, abs, fixed, mul, sign, text, weightedAverage, type Fixed } from './fixed.ts';

export type PositionFamily = 'perpx' | 'hip3' | 'altx' | 'altx-rh';
export const POSITION_FAMILIES: readonly PositionFamily[] = ['perpx', 'hip3', 'altx', 'altx-rh'];
export const isPositionFamily = (family: Family): family is PositionFamily => (POSITION_FAMILIES as readonly string[]).includes(family);
/** Families whose accounts are numbered (and whose rows follow the venue's finality). */
export const NUMBERED_FAMILIES: ReadonlySet<Family> = new Set(['altx', 'altx-rh']);

/**
 * Entry prices, PnL and funding are shown to this many places; the change log and snapshots keep
 * all 18, so a book rebuilt from a stored snapshot is the book that wrote it, digit for digit.
 */
export const PRICE_PLACES = 8;

/** One open position in the running book. */
export interface Held {
  account: string;
  symbol: string;
  size: Fixed;
  /** Average entry price; null when unknown (opened before the archive saw it, or re-anchored). */
  entry: Fixed | null;
  openedAt: number | null;
  lastChangeAt: number;
  fundingAllTime: Fixed | null;
  fundingSinceOpen: Fixed | null;
  fundingSinceChange: Fixed;
  partial: boolean;
}

/** The running book: open positions by account and market. */
export type Book = Map<string, Held>;
const keyOf = (account: string, symbol: string) => `${account}\u0000${symbol}`;

/** One archived fill of a tracked account, as the trades dataset holds it. */
export interface Fill {
  ts: number;
  trade_id: number;
  symbol: string;
  account: string;
  side: 'B' | 'A';
  price: string;
  size: string;
  start_position?: string | null;
  direction?: string | null;
  closed_pnl?: string | null;
  fee?: string | null;
  fee_token?: string | null;
  crossed?: boolean | null;
  order_id?: number | null;
  is_liquidation?: boolean | null;
}

export type ChangeLeg = Omit<PositionChangeRecord, 'dataset' | 'family'>;

function eventTypeOf(start: Fixed, end: Fixed): ChangeLeg['event_type'] {
  if (start === end) return 'unchanged';
  if (start === ZERO) return 'open';
  if (end === ZERO) return 'close';
  if (sign(start) !== sign(end)) return 'flip';
  return abs(end) > abs(start) ? 'increase' : 'reduce';
}

/** Applies one fill to the book (in place) and returns its change leg. `finalized` is set on numbered venues. */
export function applyFill(book: Book, fill: Fill, finalized?: boolean): ChangeLeg {
  const key = keyOf(fill.account, fill.symbol);
  const held = book.get(key);
  const quantity = fill.side === 'B' ? fixed(fill.size) : -fixed(fill.size);
  const reported = fill.start_position == null ? null : fixed(fill.start_position);
  // Continuity is judged against the book: flat (no entry) is a size of zero.
  const running = held?.size ?? ZERO;
  let continuity: ChangeLeg['continuity'];
  let start: Fixed;
  if (reported === null) {
    continuity = 'inferred';
    start = running;
  } else {
    start = reported;
    continuity = reported === running ? 'ok' : held ? 'quarantined' : 'first_seen';
  }
  const end = start + quantity;
  const eventType = eventTypeOf(start, end);
  const price = fixed(fill.price);

  if (end === ZERO) book.delete(key);
  else {
    const next: Held = held ?? {
      account: fill.account,
      symbol: fill.symbol,
      size: start,
      entry: null,
      openedAt: null,
      lastChangeAt: fill.ts,
      fundingAllTime: null,
      fundingSinceOpen: null,
      fundingSinceChange: ZERO,
      partial: start !== ZERO,
    };
    if (continuity === 'quarantined') {
      // Not a fill we can account for: the venue's size after it is taken, the cost basis is lost.
      next.entry = null;
      next.partial = true;
    } else if (start === ZERO || sign(start) !== sign(end)) {
      // Opened from flat, or flipped: a new position at the fill price.
      next.entry = price;
      next.openedAt = fill.ts;
      next.fundingAllTime = start === ZERO ? ZERO : next.fundingAllTime;
      next.fundingSinceOpen = ZERO;
      next.partial = false;
    } else if (abs(end) > abs(start) && next.entry !== null) {
      next.entry = weightedAverage(next.entry, abs(start), price, abs(quantity));
    }
    next.size = end;
    next.lastChangeAt = fill.ts;
    next.fundingSinceChange = ZERO;
    book.set(key, next);
  }

  const after = book.get(key);
  const leg: ChangeLeg = {
    symbol: fill.symbol,
    ts: fill.ts,
    account: fill.account,
    trade_id: fill.trade_id,
    side: fill.side,
    price: fill.price,
    size: fill.size,
    start_position: text(start),
    end_position: text(end),
    entry_price_after: after?.entry == null ? null : text(after.entry),
    event_type: eventType,
    cause: fill.is_liquidation ? 'liquidation' : 'trade',
    continuity,
    opened_at: after?.openedAt ?? held?.openedAt ?? null,
  };
  if (fill.direction != null) leg.direction = fill.direction;
  if (fill.closed_pnl != null) leg.closed_pnl = fill.closed_pnl;
  if (fill.fee != null) leg.fee = fill.fee;
  if (fill.fee_token != null) leg.fee_token = fill.fee_token;
  if (fill.crossed != null) leg.crossed = fill.crossed;
  if (fill.order_id != null) leg.order_id = fill.order_id;
  if (finalized !== undefined) leg.finalized = finalized;
  return leg;
}

export interface Mark {
  price: string;
  time: number;
}

/** Charges the hour's funding (at `hour`) on every position whose market has a mark and a rate then. */
export function chargeFunding(book: Book, rateAt: (symbol: string) => string | undefined, markAt: (symbol: string) => Mark | undefined): void {
  for (const held of book.values()) {
    const rate = rateAt(held.symbol);
    const mark = markAt(held.symbol);
    if (rate === undefined || mark === undefined) continue;
    const paid = mul(mul(held.size, fixed(mark.price)), fixed(rate));
    held.fundingSinceChange += paid;
    if (held.fundingSinceOpen !== null) held.fundingSinceOpen += paid;
    if (held.fundingAllTime !== null) held.fundingAllTime += paid;
  }
}

export interface SnapshotContext {
  markAt: (symbol: string) => Mark | undefined;
  maxLeverageOf: (symbol: string) => number | undefined;
  /** Numbered venues: the kind of an account (user unless the registry says otherwise). */
  accountKindOf?: (account: string) => NonNullable<PositionSnapshotRecord['account_kind']>;
  /** Numbered venues: legs at or before this instant are in the venue's finalized record. */
  finalizedThrough?: number;
  /** Numbered venues carry no cumulative funding. */
  funding: boolean;
}

export type SnapshotRow = Omit<PositionSnapshotRecord, 'dataset' | 'family'>;

/** One open position as a snapshot row at `ts`, valued at the mark then. */
export function snapshotRow(held: Held, ts: number, ctx: SnapshotContext): SnapshotRow {
  const mark = ctx.markAt(held.symbol);
  const markPrice = mark === undefined ? null : fixed(mark.price);
  const row: SnapshotRow = {
    symbol: held.symbol,
    ts,
    account: held.account,
    size: text(held.size),
    entry_price: held.entry === null ? null : text(held.entry),
    opened_at: held.openedAt,
    last_change_at: held.lastChangeAt,
    mark_price: mark?.price ?? null,
    mark_time: mark?.time ?? null,
    position_value: markPrice === null ? null : text(mul(abs(held.size), markPrice)),
    unrealized_pnl: markPrice === null || held.entry === null ? null : text(mul(held.size, markPrice - held.entry)),
    max_leverage: ctx.maxLeverageOf(held.symbol) ?? null,
    quality: held.partial ? 'partial' : 'complete',
  };
  if (ctx.funding) {
    row.funding_all_time = held.fundingAllTime === null ? null : text(held.fundingAllTime);
    row.funding_since_open = held.fundingSinceOpen === null ? null : text(held.fundingSinceOpen);
    row.funding_since_change = text(held.fundingSinceChange);
  }
  if (ctx.accountKindOf) row.account_kind = ctx.accountKindOf(held.account);
  if (ctx.finalizedThrough !== undefined) row.finalized = held.lastChangeAt <= ctx.finalizedThrough;
  return row;
}

/** Every open position at `ts`, account then market order, plus the snapshot's marker row. */
export function snapshotRows(book: Book, ts: number, ctx: SnapshotContext): SnapshotRow[] {
  const rows = [...book.values()]
    .sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0))
    .map((held) => snapshotRow(held, ts, ctx));
  return [{ symbol: '', ts, account: '', size: String(rows.length), quality: rows.some((r) => r.quality !== 'complete') ? 'partial' : 'complete' }, ...rows];
}

/** A book from stored snapshot rows (marker rows skipped): the state a snapshot recorded. */
export function bookFromSnapshot(rows: readonly SnapshotRow[]): Book {
  const book: Book = new Map();
  for (const row of rows) {
    if (row.account === '') continue;
    const optional = (value: string | null | undefined) => (value == null ? null : fixed(value));
    book.set(keyOf(row.account, row.symbol), {
      account: row.account,
      symbol: row.symbol,
      size: fixed(row.size),
      entry: optional(row.entry_price),
      openedAt: row.opened_at ?? null,
      lastChangeAt: row.last_change_at ?? row.ts,
      fundingAllTime: optional(row.funding_all_time),
      fundingSinceOpen: optional(row.funding_since_open),
      fundingSinceChange: optional(row.funding_since_change) ?? ZERO,
      partial: row.quality !== 'complete',
    });
  }
  return book;
}
