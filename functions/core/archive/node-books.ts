/**
 * Hyperliquid node order-level output, batched by block as a node writes it with `--batch-by-block`:
 *   - `node_raw_book_diffs_by_block`: each change to the resting book (`new` with its size, `update`
 *     from `origSz` to `newSz`, `modified` to a size in place, `remove`), which become L4 diffs;
 *   - `node_order_statuses_by_block`: each order's status change (open, filled, canceled, triggered,
 *     an engine cancel or a reject), which become order events.
 * One JSON line per block; `seq` is an event's place in its block, so (block, seq) orders them.
 * Times are the block's (`block_time`, UTC without an offset, as the node writes it). The streamed
 * form of the same files (node-streamed.ts) converts a block's lines with these functions, each
 * line from the place its first event has in the block.
 */
import * as v from 'valibot';
import type { NormalizedRecord, OrderEventRecord } from '#schemas/datasets.ts';
import { familyOfCoin } from './node-fills.ts';

const decimal = v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string'));
const address = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address'));
const integer = v.pipe(v.number(), v.integer(), v.minValue(0));

const envelope = {
  local_time: v.string(),
  block_time: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z?$/, 'must be an ISO time')),
  block_number: integer,
};

const RawBookDiff = v.union(
  [
    v.object({ new: v.object({ sz: decimal }) }),
    v.object({ update: v.object({ origSz: decimal, newSz: decimal }) }),
    v.object({ modified: v.object({ sz: decimal }) }),
    v.literal('remove'),
  ],
  'must be {new: {sz}}, {update: {origSz, newSz}}, {modified: {sz}} or "remove"',
);

export const NodeRawBookDiffsBlock = v.object({
  ...envelope,
  events: v.array(
    v.object({ user: address, oid: integer, coin: v.pipe(v.string(), v.minLength(1)), side: v.picklist(['B', 'A']), px: decimal, raw_book_diff: RawBookDiff }),
  ),
});

export const NodeOrderStatusesBlock = v.object({
  ...envelope,
  events: v.array(
    v.object({
      user: address,
      status: v.pipe(v.string(), v.minLength(1)),
      order: v.object({
        coin: v.pipe(v.string(), v.minLength(1)),
        side: v.picklist(['B', 'A']),
        limitPx: decimal,
        sz: decimal,
        origSz: decimal,
        oid: integer,
        timestamp: integer,
        orderType: v.string(),
        tif: v.optional(v.nullable(v.string())),
        reduceOnly: v.boolean(),
        isTrigger: v.boolean(),
        triggerCondition: v.optional(v.string()),
        triggerPx: v.optional(decimal),
        isPositionTpsl: v.boolean(),
        cloid: v.optional(v.nullable(v.string())),
      }),
    }),
  ),
});

/** The node's `block_time` ("2026-03-10T08:50:10.334", UTC) in epoch ms. */
export const blockMs = (time: string) => Date.parse(time.endsWith('Z') ? time : `${time}Z`);

/** The L4 diffs of a block's events; `firstSeq`: the place of the first in its block (a streamed line's). */
export function rawBookDiffsToRecords(block: v.InferOutput<typeof NodeRawBookDiffsBlock>, firstSeq = 0): NormalizedRecord[] | { error: string } {
  const ts = blockMs(block.block_time);
  const records: NormalizedRecord[] = [];
  for (const [i, event] of block.events.entries()) {
    const seq = firstSeq + i;
    const coin = familyOfCoin(event.coin);
    if ('error' in coin) return coin;
    const diff = event.raw_book_diff;
    const [type, size] =
      diff === 'remove'
        ? (['remove', null] as const)
        : 'new' in diff
          ? (['new', diff.new.sz] as const)
          : 'update' in diff
            ? (['update', diff.update.newSz] as const)
            : // A modify in place keeps the order's queue priority: an update to its new size.
              (['update', diff.modified.sz] as const);
    records.push({
      dataset: 'l4_diffs',
      ...coin,
      ts,
      block_number: block.block_number,
      seq,
      oid: event.oid,
      user_address: event.user.toLowerCase(),
      side: event.side,
      price: event.px,
      diff_type: type,
      new_size: size,
    });
  }
  return records;
}

/** A status an order took: its own (open, filled, canceled, triggered), or the engine's (anything else). */
function eventOf(status: string): OrderEventRecord['event'] {
  if (status === 'open') return 'placed';
  if (status === 'filled' || status === 'canceled' || status === 'triggered') return status;
  // Engine cancels (margin, reduce-only, self-trade, ...) and rejects: the order did not end by its owner's hand.
  return 'force_canceled';
}

/** The order events of a block's statuses; `firstSeq` as for the diffs. */
export function orderStatusesToRecords(block: v.InferOutput<typeof NodeOrderStatusesBlock>, firstSeq = 0): NormalizedRecord[] | { error: string } {
  const ts = blockMs(block.block_time);
  const records: NormalizedRecord[] = [];
  for (const [i, { user, status, order }] of block.events.entries()) {
    const seq = firstSeq + i;
    const coin = familyOfCoin(order.coin);
    if ('error' in coin) return coin;
    const record: OrderEventRecord = {
      dataset: 'order_events',
      ...coin,
      ts,
      event: eventOf(status),
      block_number: block.block_number,
      seq,
      oid: order.oid,
      user_address: user.toLowerCase(),
      side: order.side,
      status,
      limit_price: order.limitPx,
      size: order.sz,
      orig_size: order.origSz,
      order_type: order.orderType,
      reduce_only: order.reduceOnly,
      is_trigger: order.isTrigger,
      is_position_tpsl: order.isPositionTpsl,
    };
    if (order.tif) record.tif = order.tif;
    if (order.isTrigger && order.triggerCondition && order.triggerCondition !== 'N/A') record.trigger_condition = order.triggerCondition;
    if (order.isTrigger && order.triggerPx !== undefined) record.trigger_price = order.triggerPx;
    if (order.cloid) record.cloid = order.cloid;
    records.push(record);
  }
  return records;
}
