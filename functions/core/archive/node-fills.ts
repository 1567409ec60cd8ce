/**
 * Hyperliquid node fills as a non-validating node writes them with `--write-fills --batch-by-block`
 * (`node_fills_by_block`): one JSON line per block, `events` holding `[user, fill]` pairs. Every
 * trade appears twice, once per side, sharing `tid`; the taker's side (`crossed: true`) becomes the
 * trade row, the other side names the maker. A liquidated user's fill also yields a liquidation.
 */
import * as v from 'valibot';
import type { NormalizedRecord } from '#schemas/datasets.ts';
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
  // Null on some fills (system-originated ones); it is informative, never a key.
  hash: v.nullable(v.string()),
  oid: v.pipe(v.number(), v.integer()),
  crossed: v.boolean(),
  fee: decimal,
  tid: v.pipe(v.number(), v.integer(), v.minValue(0)),
  cloid: v.optional(v.nullable(v.string())),
  feeToken: v.string(),
  builderFee: v.optional(v.nullable(decimal)),
  builder: v.optional(v.nullable(address)),
  deployerFee: v.optional(v.nullable(decimal)),
  // Seen both as a decimal string and as a number.
  priorityGas: v.optional(v.nullable(v.union([decimal, v.number()]))),
  twapId: v.optional(v.nullable(v.pipe(v.number(), v.integer()))),
  // `liquidatedUser` is absent on some liquidation fills: the liquidated user is then the fill's own user.
  liquidation: v.optional(v.nullable(v.object({ liquidatedUser: v.optional(v.nullable(address)), markPx: decimal, method: v.string() }))),
});
// v.object (not strictObject) throughout: the node adds fields over time, and a field we do not
// store must not refuse a line.
type Fill = v.InferOutput<typeof Fill>;

/** One side of a trade as the node writes it: the user and their fill. */
export const NodeFillEvent = v.tuple([address, Fill]);
export type NodeFillEvent = v.InferOutput<typeof NodeFillEvent>;

export const NodeFillsBlock = v.object({
  local_time: v.string(),
  block_time: v.string(),
  block_number: v.pipe(v.number(), v.integer(), v.minValue(0)),
  events: v.array(NodeFillEvent),
});

/**
 * The family and symbol a node `coin` names. A spot pair named by index (`@107`) keeps that name
 * here; parse.ts names it from the venue's spot metadata when that was given (spot-meta.ts).
 */
export function familyOfCoin(coin: string): { family: Family; symbol: string } | { error: string } {
  if (/^[a-z0-9]{1,12}:[A-Za-z0-9]{1,20}$/.test(coin)) return { family: 'hip3', symbol: coin };
  if (/^#\d{1,9}$/.test(coin)) return { family: 'hip4', symbol: coin };
  if (/^[A-Z0-9]{1,20}\/[A-Z0-9]{1,20}$/.test(coin)) return { family: 'spot', symbol: coin.replace('/', '-') };
  if (/^@\d{1,6}$/.test(coin)) return { family: 'spot', symbol: coin };
  if (/^[A-Za-z0-9]{1,20}$/.test(coin)) return { family: 'perpx', symbol: coin };
  return { error: `unknown coin form ${JSON.stringify(coin)}` };
}

/** The normalized records of one parsed block, or the reason it cannot be read. */
export function blockToRecords(block: v.InferOutput<typeof NodeFillsBlock>): NormalizedRecord[] | { error: string } {
  const trades = new FillPairing();
  for (const event of block.events) {
    const error = trades.add(event);
    if (error) return error;
  }
  return trades.records();
}

/**
 * Pairs the two sides of each trade by family and `tid`, in the order trades first appear. The
 * by-block format has both sides in one line; the older per-fill formats (`node_fills`, the
 * streaming one) spread them over lines, so a batch is paired whole.
 */
export class FillPairing {
  readonly #sides = new Map<string, { at: number; sides: { user: string; fill: Fill }[] }>();

  /** Adds one side (`at`: where it was read, e.g. its line); the reason when its coin cannot be read. */
  add([user, fill]: NodeFillEvent, at = 0): { error: string } | undefined {
    const coin = familyOfCoin(fill.coin);
    if ('error' in coin) return coin;
    const key = `${coin.family}#${fill.tid}`;
    let trade = this.#sides.get(key);
    if (!trade) this.#sides.set(key, (trade = { at, sides: [] }));
    const sides = trade.sides;
    // A fill listed twice (a file written again from the same block) is one side, not two.
    if (!sides.some((s) => s.fill.oid === fill.oid && s.fill.side === fill.side && s.user === user.toLowerCase())) {
      sides.push({ user: user.toLowerCase(), fill });
    }
    return undefined;
  }

  records(): NormalizedRecord[] {
    return this.trades().flatMap((trade) => trade.records);
  }

  /** Each trade's records with where its first side was read. */
  trades(): { at: number; records: NormalizedRecord[] }[] {
    return [...this.#sides.values()].map(({ at, sides }) => ({ at, records: tradeRecords(sides) }));
  }
}

function tradeRecords(sides: readonly { user: string; fill: Fill }[]): NormalizedRecord[] {
  const taker = sides.find((s) => s.fill.crossed) ?? sides[0]!;
  const maker = sides.find((s) => s !== taker);
  const { family, symbol } = familyOfCoin(taker.fill.coin) as { family: Family; symbol: string };
  const f = taker.fill;
  const liquidated = sides.find((s) => s.fill.liquidation);
  const records: NormalizedRecord[] = [
    {
      dataset: 'trades',
      family,
      symbol,
      ts: f.time,
      trade_id: f.tid,
      side: f.side,
      price: f.px,
      size: f.sz,
      crossed: f.crossed,
      fee: f.fee,
      fee_token: f.feeToken,
      closed_pnl: f.closedPnl,
      direction: f.dir,
      start_position: f.startPosition,
      user_address: taker.user,
      tx_hash: f.hash,
      order_id: f.oid,
      cloid: f.cloid ?? null,
      maker_address: maker?.user ?? null,
      taker_address: taker.user,
      twap_id: f.twapId ?? null,
      builder_fee: f.builderFee ?? null,
      is_liquidation: liquidated !== undefined,
      // Only when the node wrote them, so rows of fills without them stay as they were.
      ...(f.builder != null && { builder_address: f.builder.toLowerCase() }),
      ...(f.deployerFee != null && { deployer_fee: f.deployerFee }),
      ...(f.priorityGas != null && { priority_gas: String(f.priorityGas) }),
    },
  ];
  if (liquidated?.fill.liquidation) {
    const l = liquidated.fill;
    records.push({
      dataset: 'liquidations',
      family,
      symbol,
      ts: l.time,
      trade_id: l.tid,
      liquidated_user: (l.liquidation!.liquidatedUser ?? liquidated.user).toLowerCase(),
      liquidator_user: sides.find((s) => s !== liquidated)?.user ?? null,
      price: l.px,
      size: l.sz,
      side: l.side,
      mark_price: l.liquidation!.markPx,
      closed_pnl: l.closedPnl,
      direction: l.dir,
      tx_hash: l.hash,
    });
  }
  return records;
}
