/**
 * Hyperliquid node fills as a non-validating node writes them with `--write-fills --batch-by-block`
 * (`node_fills_by_block`): one JSON line per block, `events` holding `[user, fill]` pairs. Every
 * trade appears twice, once per side, sharing `tid`; the taker's side (`crossed: true`) becomes the
 * trade row, the other side names the maker. A liquidated user's fill also yields a liquidation.
 */
import * as v from 'valibot';
import type { NormalizedRecord } from '../../../schemas/datasets.ts';
import type { Family } from '../venues.ts';

const decimal = v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string'));
const address = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address'));

const Fill = v.object({
  coin: v.pipe(v.string(), v.minLength(1)),
  px: decimal,
  sz: decimal,
  side: v.picklist(['B', 'A']),
  time: v.pipe(v.number(), v.integer()),
  startPosition: decimal,
  dir: v.string(),
  closedPnl: decimal,
  hash: v.string(),
  oid: v.pipe(v.number(), v.integer()),
  crossed: v.boolean(),
  fee: decimal,
  tid: v.pipe(v.number(), v.integer(), v.minValue(0)),
  cloid: v.optional(v.nullable(v.string())),
  feeToken: v.string(),
  builderFee: v.optional(v.nullable(decimal)),
  twapId: v.optional(v.nullable(v.pipe(v.number(), v.integer()))),
  liquidation: v.optional(v.nullable(v.object({ liquidatedUser: address, markPx: decimal, method: v.string() }))),
});
type Fill = v.InferOutput<typeof Fill>;

export const NodeFillsBlock = v.object({
  local_time: v.string(),
  block_time: v.string(),
  block_number: v.pipe(v.number(), v.integer(), v.minValue(0)),
  events: v.array(v.tuple([address, Fill])),
});

/** The family and symbol a node `coin` names; `@<index>` spot coins need the spot registry. */
export function familyOfCoin(coin: string): { family: Family; symbol: string } | { error: string } {
  if (/^[a-z0-9]{1,12}:[A-Za-z0-9]{1,20}$/.test(coin)) return { family: 'hip3', symbol: coin };
  if (/^#\d{1,9}$/.test(coin)) return { family: 'hip4', symbol: coin };
  if (/^[A-Z0-9]{1,20}\/[A-Z0-9]{1,20}$/.test(coin)) return { family: 'spot', symbol: coin.replace('/', '-') };
  if (/^@\d+$/.test(coin)) return { error: `spot coin ${coin} is an index; send the pair name (BASE/QUOTE)` };
  if (/^[A-Za-z0-9]{1,20}$/.test(coin)) return { family: 'perpx', symbol: coin };
  return { error: `unknown coin form ${JSON.stringify(coin)}` };
}

/** The normalized records of one parsed block, or the reason it cannot be read. */
export function blockToRecords(block: v.InferOutput<typeof NodeFillsBlock>): NormalizedRecord[] | { error: string } {
  const sidesByTrade = new Map<string, { user: string; fill: Fill }[]>();
  for (const [user, fill] of block.events) {
    const coin = familyOfCoin(fill.coin);
    if ('error' in coin) return coin;
    const key = `${coin.family}#${fill.tid}`;
    sidesByTrade.set(key, [...(sidesByTrade.get(key) ?? []), { user: user.toLowerCase(), fill }]);
  }
  const records: NormalizedRecord[] = [];
  for (const sides of sidesByTrade.values()) {
    const taker = sides.find((s) => s.fill.crossed) ?? sides[0]!;
    const maker = sides.find((s) => s !== taker);
    const { family, symbol } = familyOfCoin(taker.fill.coin) as { family: Family; symbol: string };
    const f = taker.fill;
    const liquidated = sides.find((s) => s.fill.liquidation);
    records.push({
      dataset: 'trades', family, symbol, ts: f.time, trade_id: f.tid, side: f.side, price: f.px, size: f.sz, crossed: f.crossed,
      fee: f.fee, fee_token: f.feeToken, closed_pnl: f.closedPnl, direction: f.dir, start_position: f.startPosition,
      user_address: taker.user, tx_hash: f.hash, order_id: f.oid, cloid: f.cloid ?? null,
      maker_address: maker?.user ?? null, taker_address: taker.user, twap_id: f.twapId ?? null,
      builder_fee: f.builderFee ?? null, is_liquidation: liquidated !== undefined,
    });
    if (liquidated?.fill.liquidation) {
      const l = liquidated.fill;
      records.push({
        dataset: 'liquidations', family, symbol, ts: l.time, trade_id: l.tid,
        liquidated_user: l.liquidation!.liquidatedUser.toLowerCase(),
        liquidator_user: sides.find((s) => s !== liquidated)?.user ?? null,
        price: l.px, size: l.sz, side: l.side, mark_price: l.liquidation!.markPx, closed_pnl: l.closedPnl, direction: l.dir, tx_hash: l.hash,
      });
    }
  }
  return records;
}
