/**
 * Hyperliquid node trades (`node_trades`, the non-validating node's output before it wrote fills;
 * the venue's archive holds it for March to June 2025): one JSON object per line and per trade,
 * `side_info[0]` the buyer and `side_info[1]` the seller, `side` the taker's side.
 *
 * The format has no trade id. Each trade gets one derived from its content (see `derivedTradeId`),
 * so a trade listed twice (some hours of the archive list every trade twice) collapses like a
 * repeated `tid` does.
 */
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { DERIVED_TRADE_IDS_FROM, type NormalizedRecord } from '#schemas/datasets.ts';
import { familyOfCoin } from './node-fills.ts';

const decimal = v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string'));
const address = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address'));
/** Naive ISO time (no zone, up to nanoseconds): the node writes UTC. */
const naiveTime = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z?$/, 'must be an ISO time'));

// v.object (not strictObject): fields the node adds later must not refuse a line.
const SideInfo = v.object({
  user: address,
  start_pos: decimal,
  oid: v.pipe(v.number(), v.integer()),
  // Written as a number by the node, as a string by some re-exports; null when the order is no TWAP's.
  twap_id: v.optional(v.nullable(v.union([v.pipe(v.number(), v.integer()), v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'must be an integer'))]))),
  cloid: v.optional(v.nullable(v.string())),
});

export const NodeTrade = v.object({
  coin: v.pipe(v.string(), v.minLength(1)),
  side: v.picklist(['B', 'A']),
  time: naiveTime,
  px: decimal,
  sz: decimal,
  hash: v.nullable(v.string()),
  trade_dir_override: v.optional(v.nullable(v.string())),
  side_info: v.tuple([SideInfo, SideInfo]),
});
export type NodeTrade = v.InferOutput<typeof NodeTrade>;

/** Epoch ms of a naive UTC time; the digits past the millisecond are dropped (the archive's `ts` is ms). */
export function epochMsOfNaive(time: string): number {
  const [whole, fraction = ''] = time.replace(/Z$/, '').split('.');
  return Date.parse(`${whole}Z`) + Number(fraction.padEnd(3, '0').slice(0, 3));
}

/**
 * Derived ids live in [2^52, 2^53): above the venue's `tid`s (about 10^15 < 2^52 in 2025), so a
 * derived id never names another trade's real one, and below 2^53, so it is exact as a JSON number
 * and a BIGINT. It is the first 52 bits of SHA-256 over the fields that tell two trades apart even
 * within one transaction: coin, time (as written), price, size, transaction hash and both order
 * ids. Two listings of one trade get the same id. The same trade read from a fills format has
 * the venue's `tid`: reads and compaction keep that row and drop this one (core/archive/dedupe.ts).
 */
export function derivedTradeId(trade: NodeTrade): number {
  const digest = createHash('sha256')
    .update(JSON.stringify([trade.coin, trade.time, trade.px, trade.sz, trade.hash, trade.side_info[0].oid, trade.side_info[1].oid]))
    .digest();
  // 52 bits: 6 bytes and the high nibble of the seventh.
  const low52 = digest.readUIntBE(0, 6) * 16 + (digest[6]! >> 4);
  return DERIVED_TRADE_IDS_FROM + low52;
}

/** The trade row of one node trade (the taker's side), or the reason it cannot be read. */
export function nodeTradeToRecords(trade: NodeTrade): NormalizedRecord[] | { error: string } {
  const coin = familyOfCoin(trade.coin);
  if ('error' in coin) return coin;
  const [buyer, seller] = trade.side_info;
  const [taker, maker] = trade.side === 'B' ? [buyer, seller] : [seller, buyer];
  const twap = taker.twap_id == null ? null : Number(taker.twap_id);
  return [
    {
      dataset: 'trades',
      family: coin.family,
      symbol: coin.symbol,
      ts: epochMsOfNaive(trade.time),
      trade_id: derivedTradeId(trade),
      side: trade.side,
      price: trade.px,
      size: trade.sz,
      crossed: true,
      start_position: taker.start_pos,
      user_address: taker.user.toLowerCase(),
      tx_hash: trade.hash,
      order_id: taker.oid,
      cloid: taker.cloid ?? null,
      maker_address: maker.user.toLowerCase(),
      taker_address: taker.user.toLowerCase(),
      twap_id: twap,
      // The format carries no fee, PnL, direction or liquidation flag: left unknown rather than guessed.
    },
  ];
}
