/**
 * Trades rendered as a Hyperliquid node writes fills (`node_fills_by_block`): one JSON line per block,
 * `{local_time, block_time, block_number, events: [[user, fill], ...]}`, each trade appearing twice, as
 * the taker's fill (`crossed: true`) and the maker's (`crossed: false`, opposite side), with the same
 * `tid` and `hash`; a liquidation's `liquidation` object is on the liquidated user's (the taker's)
 * fill. A normalized trade carries one side's fill; the other side's position, PnL, fee and order id
 * are not in it, so they are derived: positions from flat at the first rendered fill, maker rebate
 * and taker fee at fixed rates, order ids next to the known one. Trades of one second share a block.
 */
import type { TradeRecord } from '#schemas/datasets.ts';
import type { Family } from '#core/venues.ts';
import type { MarketType } from './catalog.ts';
import { formatFixed, formatUnits } from './decimal.ts';
import { type Position, applyFill, directionLabel } from './ledger.ts';
import { hash32 } from './random.ts';

export interface NodeFill {
  coin: string;
  px: string;
  sz: string;
  side: 'B' | 'A';
  time: number;
  startPosition: string;
  dir: string;
  closedPnl: string;
  hash: string;
  oid: number;
  crossed: boolean;
  fee: string;
  tid: number;
  cloid?: string;
  liquidation?: { liquidatedUser: string; markPx: string; method: 'market' };
  feeToken: string;
  builderFee?: string;
  twapId: number | null;
}

export interface NodeFillBlock {
  local_time: string;
  block_time: string;
  block_number: number;
  events: [string, NodeFill][];
}

/** Block number of the first rendered second, unless the caller picks one. */
export const DEFAULT_BLOCK_START = 500_000_000;
/** The counterparty's fee: market makers earn a rebate, sweeping takers pay the top-tier fee. */
const COUNTERPARTY_MAKER_RATE = -0.00002;
const COUNTERPARTY_TAKER_RATE = 0.00025;
/** Counterparty positions are tracked in units of 10^-8 so every size adds exactly. */
const LEDGER_DECIMALS = 8;

const MARKET_TYPES: Partial<Record<Family, MarketType>> = { perpx: 'perp', hip3: 'perp', spot: 'spot', hip4: 'outcome' };

/** The node's coin: perpx bare coin, hip3 `dex:COIN`, spot `BASE/QUOTE`, hip4 `#N`. */
function coinOf(trade: TradeRecord): string {
  return trade.family === 'spot' ? trade.symbol.replace('-', '/') : trade.symbol;
}

function required<T>(value: T | null | undefined, field: string, trade: TradeRecord): T {
  if (value === undefined || value === null) throw new Error(`trade ${trade.trade_id} has no ${field}`);
  return value;
}

/** `2026-03-10T03:18:54.136` + nanoseconds: ISO 8601 without the zone, nine fractional digits. */
function nodeTime(ms: number, nanos: number): string {
  return `${new Date(ms).toISOString().slice(0, -1)}${String(nanos).padStart(6, '0')}`;
}

export function nodeFillBlocks(trades: readonly TradeRecord[], blockStart = DEFAULT_BLOCK_START): NodeFillBlock[] {
  const sorted = [...trades].sort((a, b) => a.ts - b.ts || a.trade_id - b.trade_id);
  const firstSecond = Math.floor((sorted[0]?.ts ?? 0) / 1000);
  const ledger = new Map<string, Position>();
  const blocks: NodeFillBlock[] = [];
  for (const trade of sorted) {
    const marketType = MARKET_TYPES[trade.family];
    if (!marketType) throw new Error(`${trade.family} trades are not written by the Hyperliquid node`);
    const blockNumber = blockStart + Math.floor(trade.ts / 1000) - firstSecond;
    let block = blocks.at(-1);
    if (block?.block_number !== blockNumber) {
      block = { local_time: '', block_time: '', block_number: blockNumber, events: [] };
      blocks.push(block);
    }
    const own = ownFill(trade);
    const other = counterpartyFill(trade, own, marketType, ledger);
    const user = required(trade.user_address, 'user_address', trade);
    const counterparty = required(own.crossed ? trade.maker_address : trade.taker_address, 'counterparty address', trade);
    block.events.push(
      ...((own.crossed
        ? [
            [user, own],
            [counterparty, other],
          ]
        : [
            [counterparty, other],
            [user, own],
          ]) as [string, NodeFill][]),
    );
    // The block is stamped with its last fill; the node writes it a little later.
    block.block_time = nodeTime(trade.ts, 0);
    block.local_time = nodeTime(trade.ts + 80 + (hash32(blockNumber) % 400), hash32(blockNumber, 1) % 1_000_000);
  }
  return blocks;
}

export function renderNodeFillsByBlock(trades: TradeRecord[], blockStart = DEFAULT_BLOCK_START): string {
  return nodeFillBlocks(trades, blockStart)
    .map((block) => `${JSON.stringify(block)}\n`)
    .join('');
}

/** The recorded side's fill, field for field. */
function ownFill(trade: TradeRecord): NodeFill {
  return {
    coin: coinOf(trade),
    px: trade.price,
    sz: trade.size,
    side: trade.side,
    time: trade.ts,
    startPosition: required(trade.start_position, 'start_position', trade),
    dir: required(trade.direction, 'direction', trade),
    closedPnl: required(trade.closed_pnl, 'closed_pnl', trade),
    hash: required(trade.tx_hash, 'tx_hash', trade),
    oid: required(trade.order_id, 'order_id', trade),
    crossed: required(trade.crossed, 'crossed', trade),
    fee: required(trade.fee, 'fee', trade),
    tid: trade.trade_id,
    ...(trade.cloid ? { cloid: trade.cloid } : {}),
    ...(trade.is_liquidation ? { liquidation: liquidationOf(trade) } : {}),
    feeToken: required(trade.fee_token, 'fee_token', trade),
    ...(trade.builder_fee ? { builderFee: trade.builder_fee } : {}),
    twapId: trade.twap_id ?? null,
  };
}

/** A liquidation fill is recorded from the liquidated user's side; the record has no mark price, so the fill price stands in. */
function liquidationOf(trade: TradeRecord): NonNullable<NodeFill['liquidation']> {
  return { liquidatedUser: required(trade.user_address, 'user_address', trade), markPx: trade.price, method: 'market' };
}

/** The other side's fill, with its position carried in `ledger` across the rendered trades. */
function counterpartyFill(trade: TradeRecord, own: NodeFill, marketType: MarketType, ledger: Map<string, Position>): NodeFill {
  const user = required(own.crossed ? trade.maker_address : trade.taker_address, 'counterparty address', trade);
  const key = `${user} ${own.coin}`;
  const position = ledger.get(key) ?? { units: 0, entry: 0 };
  ledger.set(key, position);
  const price = Number(trade.price);
  const size = Number(trade.size);
  const units = Math.round(size * 10 ** LEDGER_DECIMALS) * (trade.side === 'B' ? -1 : 1);
  const outcome = applyFill(position, units, price, 10 ** -LEDGER_DECIMALS);
  const fee = price * size * (own.crossed ? COUNTERPARTY_MAKER_RATE : COUNTERPARTY_TAKER_RATE);
  // Makers rested before the taker arrived (lower order id); a sweeping taker's order came after.
  const oid = own.crossed ? Math.max(0, own.oid - 1 - (trade.trade_id % 100_000)) : own.oid + 1 + (trade.trade_id % 1_000);
  return {
    coin: own.coin,
    px: own.px,
    sz: own.sz,
    side: trade.side === 'B' ? 'A' : 'B',
    time: own.time,
    startPosition: formatUnits(outcome.startUnits, LEDGER_DECIMALS),
    dir: directionLabel(outcome, units, marketType),
    closedPnl: formatFixed(outcome.closedPnl, 6),
    hash: own.hash,
    oid,
    crossed: !own.crossed,
    fee: formatFixed(fee, 6),
    tid: own.tid,
    feeToken: own.feeToken,
    twapId: null,
  };
}

/**
 * The normalized trades these blocks encode, as a parser should produce them: one per `tid`, taken
 * from the taker's fill, with the maker's and the taker's address; the optional fields the node
 * writes (`cloid`, `twap_id`, `builder_fee`) are null when absent.
 */
export function takerTrades(blocks: readonly NodeFillBlock[]): TradeRecord[] {
  const trades: TradeRecord[] = [];
  for (const { events } of blocks) {
    for (const [user, fill] of events) {
      if (!fill.crossed) continue;
      const maker = events.find(([, other]) => other.tid === fill.tid && !other.crossed)?.[0];
      if (!maker) throw new Error(`tid ${fill.tid} has no maker fill in its block`);
      const family: Family = fill.coin.includes(':') ? 'hip3' : fill.coin.includes('/') ? 'spot' : fill.coin.startsWith('#') ? 'hip4' : 'perpx';
      trades.push({
        dataset: 'trades',
        family,
        symbol: fill.coin.replace('/', '-'),
        ts: fill.time,
        trade_id: fill.tid,
        side: fill.side,
        price: fill.px,
        size: fill.sz,
        crossed: true,
        fee: fill.fee,
        fee_token: fill.feeToken,
        closed_pnl: fill.closedPnl,
        direction: fill.dir,
        start_position: fill.startPosition,
        user_address: user,
        tx_hash: fill.hash,
        order_id: fill.oid,
        cloid: fill.cloid ?? null,
        maker_address: maker,
        taker_address: user,
        twap_id: fill.twapId,
        builder_fee: fill.builderFee ?? null,
        is_liquidation: events.some(([, other]) => other.tid === fill.tid && other.liquidation !== undefined),
      });
    }
  }
  return trades;
}
