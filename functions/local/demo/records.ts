/**
 * Trade ids and order events. Within a tick, records are produced in time order, so per-tick counters
 * give increasing trade ids and the order-event seq within each 100 ms block.
 */
import type { OrderEventRecord } from '#schemas/datasets.ts';
import type { MarketState, Side, Tick } from './state.ts';

/** A venue block every 100 ms; order events of one family are numbered within their block. */
const BLOCK_MS = 100;
/** Room for this many fills per second before the ids of the next second. */
const TRADES_PER_SECOND = 10_000;

/**
 * `second * 10_000 + n`: increasing within each family, unique across families (the node numbers
 * fills of all markets in one sequence) and across runs that start at different times.
 */
export function nextTradeId(tick: Tick): number {
  if (tick.trades >= TRADES_PER_SECOND) throw new Error(`more than ${TRADES_PER_SECOND} fills in one second`);
  return tick.sec * TRADES_PER_SECOND + tick.trades++;
}

export interface OrderFields {
  event: OrderEventRecord['event'];
  oid: number;
  user: string;
  side: Side;
  status: string;
  limitPrice?: string | undefined;
  /** Remaining size. */
  size: string;
  origSize: string;
  orderType: string;
  tif?: string | undefined;
  reduceOnly?: boolean;
  trigger?: { condition: string; price: string; positionTpsl: boolean } | undefined;
  cloid?: string | undefined;
}

export function emitOrderEvent(tick: Tick, market: MarketState, ts: number, fields: OrderFields): void {
  const { family, symbol } = market.spec;
  const block = Math.floor(ts / BLOCK_MS);
  let cursor = tick.blocks.get(family);
  if (cursor?.block !== block) tick.blocks.set(family, (cursor = { block, seq: 0 }));
  const { trigger } = fields;
  const record: OrderEventRecord = {
    dataset: 'order_events',
    family,
    symbol,
    ts,
    event: fields.event,
    block_number: block,
    seq: cursor.seq++,
    oid: fields.oid,
    user_address: fields.user,
    side: fields.side,
    status: fields.status,
    size: fields.size,
    orig_size: fields.origSize,
    order_type: fields.orderType,
    reduce_only: fields.reduceOnly ?? false,
    is_trigger: trigger !== undefined,
    is_position_tpsl: trigger?.positionTpsl ?? false,
  };
  // Optional fields are left out rather than set to undefined (assigned, not spread: this is the hot path).
  if (fields.limitPrice !== undefined) record.limit_price = fields.limitPrice;
  if (fields.tif !== undefined) record.tif = fields.tif;
  if (trigger) {
    record.trigger_condition = trigger.condition;
    record.trigger_price = trigger.price;
  }
  if (fields.cloid !== undefined) record.cloid = fields.cloid;
  tick.out.push(record);
}
