/**
 * The venue's matching, as far as the records see it: a trader's order sweeping the book against market
 * makers, resting orders filled by sweeping bots when the price runs through them, TP/SL triggers,
 * liquidations. Every fill updates the trader's position and is recorded from the trader's side;
 * order-level families (perpx, hip3, hip4) also emit the order events of both sides.
 */
import type { AltxLiquidationRecord, TradeRecord } from '#schemas/datasets.ts';
import type { Family } from '#core/venues.ts';
import { levelTick, levelUnits, quoteOf } from './book.ts';
import { addOrder, bestLevel, needsRequote, reduceOrder, removeOrder, requote, restInBook } from './orderbook.ts';
import { formatFixed, formatUnits } from './decimal.ts';
import { applyFill, directionLabel } from './ledger.ts';
import { ACCOUNT_NUMBERED, accountIndexOf } from './wallets.ts';
import { type OrderFields, emitOrderEvent, nextTradeId } from './records.ts';
import {
  type Holding,
  type MarketState,
  type RestingOrder,
  type Side,
  type SimOrder,
  type SimState,
  type Tick,
  type TriggerOrder,
  closeHolding,
  midOf,
  openHolding,
  positionKey,
  updateLiquidationPrice,
} from './state.ts';

/** Base fee rates (traders pay `feeTier` times them) and the rebate of the top maker tier. */
const FEES: Readonly<Record<Family, { taker: number; maker: number; rebate: number; token: string }>> = {
  perpx: { taker: 0.00045, maker: 0.00015, rebate: -0.00002, token: 'USDC' },
  spot: { taker: 0.0007, maker: 0.0004, rebate: -0.00002, token: 'USDC' },
  hip3: { taker: 0.0009, maker: 0.0003, rebate: -0.00003, token: 'USDC' },
  hip4: { taker: 0.0005, maker: 0.0002, rebate: -0.00001, token: 'USDH' },
  altx: { taker: 0.0002, maker: 0.00002, rebate: 0, token: 'USDC' },
  'altx-rh': { taker: 0.0003, maker: 0.0001, rebate: 0, token: 'USDG' },
};
/** Builder codes exist on the first venue only. */
const BUILDER_FAMILIES: ReadonlySet<Family> = new Set(['perpx', 'spot', 'hip3']);
/** A hip3 deployer keeps this share of the fees paid on its markets. */
const DEPLOYER_SHARE = 0.5;
/** Log-price impact of an order as large as one book level, in basis standard deviations. */
const IMPACT = 0.8;
/** A sweep stops after this many levels; the last one absorbs the rest. */
const MAX_SWEEP_LEVELS = 6;

const opposite = (side: Side): Side => (side === 'B' ? 'A' : 'B');

interface Fill {
  market: MarketState;
  trader: number;
  /** Signed from the trader's side: positive buys. */
  units: number;
  price: number;
  priceText: string;
  ts: number;
  crossed: boolean;
  hash: string;
  oid: number;
  counterparty: string;
  cloid?: string | undefined;
  twapId?: number | undefined;
  liquidation?: boolean | undefined;
  priorityGas?: string | undefined;
}

/** Applies a fill to the trader's position and records it from the trader's side. */
function recordFill(state: SimState, tick: Tick, fill: Fill): TradeRecord {
  const { market, units } = fill;
  const { family, symbol, szDecimals, marketType } = market.spec;
  const trader = state.wallets.traders[fill.trader]!;
  if (trader.system && !ACCOUNT_NUMBERED.has(family)) throw new Error(`the ${trader.system.kind} account trades on altx and altx-rh only, not on ${family}`);
  const held = state.positions.get(positionKey(fill.trader, market));
  const position = held ?? { units: 0, entry: 0 };
  const outcome = applyFill(position, units, fill.price, market.unitSize);
  if (!held) openHolding(state, fill.trader, market, position, tick.rng);
  else if (held.units === 0) closeHolding(state, market, held);
  else if (!trader.system) updateLiquidationPrice(held, market);
  if (market.openInterest) {
    // Only the trader's side is known; the counterparty opens or closes about as often.
    const change = (outcome.kind === 'open' ? 1 : -1) * Math.abs(units) * (fill.liquidation ? 1 : 0.7);
    market.oi = Math.max(Math.round(market.oiTarget * 0.2), Math.round(market.oi + change));
  }
  const day = Math.floor(fill.ts / 86_400_000);
  if (market.sessionDay !== day) {
    market.sessionDay = day;
    market.sessionNotional = market.sessionUnits = 0;
  }
  market.sessionNotional += Math.abs(units) * fill.price;
  market.sessionUnits += Math.abs(units);
  market.lastTradeMs = fill.ts;
  const fees = FEES[family];
  const notional = Math.abs(units) * market.unitSize * fill.price;
  const fee = notional * (fill.crossed ? fees.taker * trader.feeTier : trader.rebate ? fees.rebate : fees.maker * trader.feeTier);
  // A system account has no address: its fills name it by account number only.
  const user = trader.system ? null : trader.address;
  const record: TradeRecord = {
    dataset: 'trades',
    family,
    symbol,
    ts: fill.ts,
    trade_id: nextTradeId(tick),
    side: units > 0 ? 'B' : 'A',
    price: fill.priceText,
    size: formatUnits(Math.abs(units), szDecimals),
    crossed: fill.crossed,
    fee: formatFixed(fee, 6),
    fee_token: fees.token,
    closed_pnl: formatFixed(outcome.closedPnl, 6),
    direction: directionLabel(outcome, units, marketType),
    start_position: formatUnits(outcome.startUnits, szDecimals),
    user_address: user,
    tx_hash: fill.hash,
    order_id: fill.oid,
    maker_address: fill.crossed ? fill.counterparty : user,
    taker_address: fill.crossed ? user : fill.counterparty,
    is_liquidation: fill.liquidation ?? false,
  };
  // Optional fields are left out rather than set to undefined (assigned, not spread: this is the hot path).
  if (fill.cloid !== undefined) record.cloid = fill.cloid;
  if (fill.twapId !== undefined) record.twap_id = fill.twapId;
  if (fill.crossed && trader.builder && BUILDER_FAMILIES.has(family)) {
    record.builder_address = trader.builder.address;
    record.builder_fee = formatFixed(notional * trader.builder.feeRate, 6);
  }
  if (family === 'hip3') record.deployer_fee = formatFixed(Math.max(0, fee) * DEPLOYER_SHARE, 6);
  if (fill.priorityGas !== undefined) record.priority_gas = fill.priorityGas;
  if (ACCOUNT_NUMBERED.has(family)) record.account_index = trader.system?.accountIndex ?? accountIndexOf(trader.address);
  tick.out.push(record);
  if (held?.units === 0 && market.orderLevel) {
    cancelOrdersOf(state, tick, market, fill.trader, fill.ts, fill.liquidation ? 'liquidatedCanceled' : 'canceled');
  }
  return record;
}

export interface TakerOrder {
  market: MarketState;
  trader: number;
  side: Side;
  units: number;
  ms: number;
  orderType: string;
  tif?: string;
  reduceOnly?: boolean;
  /** A fired trigger executes under its own oid. */
  trigger?: TriggerOrder;
  twapId?: number;
  liquidation?: boolean;
  /**
   * Margined at the market's full leverage, with the trader's TP/SL there pulled: the over-levered add
   * that sparks a demo cascade, whose move is then sized to take this position too.
   */
  allIn?: boolean;
}

function inLiquidation(state: SimState, trader: number, market: MarketState): boolean {
  return state.positions.get(positionKey(trader, market))?.liquidating === true;
}

/** A trader's order taking liquidity: it sweeps the book level by level against market makers. */
export function executeTaker(state: SimState, tick: Tick, order: TakerOrder): void {
  const { market, side, trigger } = order;
  // A position queued for liquidation is the venue's: its owner's orders there wait until it is gone.
  if (!order.liquidation && inLiquidation(state, order.trader, market)) return;
  const { rng } = tick;
  const { wallets } = state;
  const ts = tick.startMs + order.ms;
  const trader = wallets.traders[order.trader]!;
  const wasFlat = !state.positions.has(positionKey(order.trader, market));
  const hash = `0x${rng.hex(64)}`;
  const oid = trigger?.oid ?? state.nextOid++;
  const cloid = trader.cloids ? `0x${rng.hex(32)}` : undefined;
  const priorityGas = market.spec.family === 'hip3' && rng.chance(0.08) ? formatFixed(rng.logNormal(0.002, 0.7), 6) : undefined;
  const { szDecimals } = market.spec;
  const makerSide = opposite(side);
  // The liquidated position's entry, before the sweep reduces it (altx records it per trade).
  const entry = state.positions.get(positionKey(order.trader, market))?.entry ?? 0;
  let remaining = order.units;
  let notional = 0;
  let worst = '';
  let fills = 0;
  const fill = (units: number, price: number, priceText: string, maker: string, makerOid: number) => {
    const trade = recordFill(state, tick, {
      market,
      trader: order.trader,
      units: side === 'B' ? units : -units,
      price,
      priceText,
      ts,
      crossed: true,
      hash,
      oid,
      counterparty: maker,
      cloid,
      twapId: order.twapId,
      priorityGas,
      liquidation: order.liquidation,
    });
    if (order.liquidation && market.spec.family === 'altx') {
      tick.out.push(altxLiquidation(market, trade, { taker: trader.address, maker, side, entry, level: fills, takerOid: oid, makerOid, hash }));
    } else if (order.liquidation) {
      tick.out.push({
        dataset: 'liquidations',
        family: market.spec.family,
        symbol: market.spec.symbol,
        ts,
        trade_id: trade.trade_id,
        liquidated_user: trader.address,
        liquidator_user: maker,
        price: priceText,
        size: trade.size,
        side,
        mark_price: formatFixed(midOf(market), quoteOf(market).decimals + 1),
        closed_pnl: trade.closed_pnl,
        direction: trade.direction,
        tx_hash: hash,
      });
    }
    remaining -= units;
    notional += units * market.unitSize * price;
    worst = priceText;
    fills++;
  };
  // Makers requote a side that is empty or that the price ran through before the order arrives;
  // otherwise it meets the quotes as they stand.
  if (needsRequote(market, makerSide)) requote(state, tick, market, ts);
  // The order sweeps level by level from the quote's touch. At each step the book's best order goes
  // first when it is priced at least as well; otherwise makers meet the order just in time at the
  // level (post-only quotes placed and taken at once), and the liquidation vault takes over part of a
  // liquidated position off the book. The last level a sweep reaches absorbs the rest.
  const quote = quoteOf(market);
  const typical = levelUnits(market);
  for (let level = 0; remaining > 0; ) {
    const tickIndex = levelTick(quote, side, level);
    const price = tickIndex / quote.scale;
    const front = bestLevel(market.book, makerSide)?.[0];
    if (front && (side === 'B' ? front.price <= price : front.price >= price)) {
      if (front.resting) {
        // A trader's resting order goes to a sweeping bot first, and the order sweeps on behind it;
        // the trader's own is canceled instead (self-trade prevention).
        const own = front.resting.trader === order.trader;
        if (own || !fillResting(state, tick, market, front.resting, order.ms)) cancelResting(state, tick, market, front.resting, order.ms, !own);
        if (market.book.orders.has(front.oid)) removeOrder(state, tick, market, front, ts);
        continue;
      }
      const units = Math.min(remaining, front.units);
      fill(units, front.price, front.priceText, front.owner, front.oid);
      if (fillEvents(market)) makerEvent(tick, market, ts, front, 'filled', front.units - units);
      reduceOrder(state, tick, market, front, units, ts);
      continue;
    }
    const capacity = level === MAX_SWEEP_LEVELS - 1 ? remaining : Math.max(1, Math.round(typical * rng.logNormal(1, 0.7)));
    const units = Math.min(remaining, capacity);
    const priceText = formatUnits(tickIndex, quote.decimals);
    const maker = order.liquidation && rng.chance(0.6) ? wallets.liquidator : rng.pick(wallets.makers);
    const makerOid = state.nextOid++;
    if (maker !== wallets.liquidator) {
      const jit = { oid: makerOid, owner: maker, side: makerSide, price, priceText, units, origUnits: units, placedAt: ts };
      addOrder(state, tick, market, jit);
      if (fillEvents(market)) makerEvent(tick, market, ts, jit, 'placed', units);
      removeOrder(state, tick, market, jit, ts);
      if (fillEvents(market)) makerEvent(tick, market, ts, jit, 'filled', 0);
    }
    fill(units, price, priceText, maker, makerOid);
    level++;
  }
  if (fillEvents(market)) {
    emitOrderEvent(tick, market, ts, {
      event: 'filled',
      oid,
      user: trader.address,
      side,
      status: 'filled',
      limitPrice: trigger?.limitText ?? worst,
      size: '0',
      origSize: formatUnits(order.units, szDecimals),
      orderType: order.orderType,
      reduceOnly: order.reduceOnly ?? false,
      tif: order.tif,
      trigger: trigger && triggerFields(trigger),
      cloid,
    });
  }
  // Taking liquidity moves this market's mid; forced selling moves it more, which is what makes cascades cascade.
  market.basis += (side === 'B' ? 1 : -1) * IMPACT * market.basisSd * Math.sqrt(notional / market.depthNotional) * (order.liquidation ? 3 : 1);
  market.excitation += 0.6;
  const opened = state.positions.get(positionKey(order.trader, market));
  if (opened && order.allIn) {
    cancelOrdersOf(state, tick, market, order.trader, ts, 'canceled');
    opened.leverage = market.spec.maxLeverage ?? 1;
    updateLiquidationPrice(opened, market);
  } else if (wasFlat && opened && market.orderLevel) attachTpsl(state, tick, market, opened, ts);
}

/**
 * Whether a market emits the order events of its fills (the taker's, the makers'): the order-level
 * ones, and spot, whose order history is served without resting placements or TP/SL. Nothing drawn
 * from the simulation's randomness depends on it, so every other record is as without it.
 */
const fillEvents = (market: MarketState) => market.orderLevel || market.spec.family === 'spot';

/** A maker's order event (placed, or filled down to `remaining`): the makers' quotes show in the order stream only where they trade. */
function makerEvent(tick: Tick, market: MarketState, ts: number, order: SimOrder, event: 'placed' | 'filled', remaining: number): void {
  const { szDecimals } = market.spec;
  emitOrderEvent(tick, market, ts, {
    event,
    oid: order.oid,
    user: order.owner,
    side: order.side,
    status: event === 'placed' || remaining > 0 ? 'open' : 'filled',
    limitPrice: order.priceText,
    size: formatUnits(remaining, szDecimals),
    origSize: formatUnits(order.origUnits, szDecimals),
    orderType: 'Limit',
    tif: 'Alo',
  });
}

function triggerFields(trigger: TriggerOrder): NonNullable<OrderFields['trigger']> {
  return { condition: `Price ${trigger.above ? 'above' : 'below'} ${trigger.triggerText}`, price: trigger.triggerText, positionTpsl: trigger.positionTpsl };
}

function triggerEvent(tick: Tick, market: MarketState, ts: number, trigger: TriggerOrder, trader: string, event: OrderFields['event'], status: string): void {
  const size = formatUnits(trigger.units, market.spec.szDecimals);
  emitOrderEvent(tick, market, ts, {
    event,
    oid: trigger.oid,
    user: trader,
    side: trigger.side,
    status,
    limitPrice: trigger.limitText,
    size,
    origSize: size,
    orderType: trigger.orderType,
    reduceOnly: true,
    trigger: triggerFields(trigger),
  });
}

/** Some traders protect a new position with take-profit and stop-loss triggers. */
function attachTpsl(state: SimState, tick: Tick, market: MarketState, holding: Holding, ts: number): void {
  const { rng } = tick;
  if (!rng.chance(0.35)) return;
  const long = holding.units > 0;
  const units = Math.abs(holding.units);
  const outcome = market.spec.marketType === 'outcome';
  const { decimals } = quoteOf(market);
  const address = state.wallets.traders[holding.trader]!.address;
  const add = (takeProfit: boolean, orderType: string, positionTpsl: boolean, orderUnits: number) => {
    // Stops sit closer than targets; both scale with how volatile the asset is.
    const distance = outcome ? rng.uniform(0.01, 0.06) : rng.uniform(0.002, takeProfit ? 0.03 : 0.02) * (market.asset.spec.annualVol / 0.6);
    const above = takeProfit === long;
    const raw = outcome ? holding.entry + (above ? distance : -distance) : holding.entry * (above ? 1 + distance : 1 - distance);
    const triggerText = formatFixed(outcome ? Math.min(0.999, Math.max(0.001, raw)) : raw, decimals);
    const triggerPrice = Number(triggerText);
    // Market triggers carry the venue's 10% slippage limit; limit triggers a tighter one.
    const slippage = orderType.endsWith('Market') ? 0.1 : 0.01;
    const limit = long ? triggerPrice * (1 - slippage) : triggerPrice * (1 + slippage);
    const trigger: TriggerOrder = {
      oid: state.nextOid++,
      trader: holding.trader,
      side: long ? 'A' : 'B',
      above,
      triggerPrice,
      triggerText,
      orderType,
      positionTpsl,
      units: orderUnits,
      limitText: formatFixed(outcome ? Math.min(0.9999, limit) : limit, decimals + 1),
    };
    market.triggers.push(trigger);
    triggerEvent(tick, market, ts, trigger, address, 'placed', 'open');
  };
  if (rng.chance(0.6)) {
    if (rng.chance(0.9)) add(false, 'Stop Market', true, units);
    if (rng.chance(0.8)) add(true, 'Take Profit Market', true, units);
  } else {
    const takeProfit = rng.chance(0.5);
    add(takeProfit, takeProfit ? 'Take Profit Limit' : 'Stop Limit', false, rng.chance(0.5) ? units : Math.max(1, Math.round(units / 2)));
  }
}

/** The mid crossed a trigger: it fires and closes (part of) the position at market. */
export function fireTrigger(state: SimState, tick: Tick, market: MarketState, trigger: TriggerOrder, ms: number): void {
  const index = market.triggers.indexOf(trigger);
  // A fill earlier in the tick may have closed the position and canceled the trigger; a liquidation cancels it.
  if (index < 0 || inLiquidation(state, trigger.trader, market)) return;
  market.triggers.splice(index, 1);
  const holding = state.positions.get(positionKey(trigger.trader, market))!;
  const address = state.wallets.traders[trigger.trader]!.address;
  triggerEvent(tick, market, tick.startMs + ms, trigger, address, 'triggered', 'triggered');
  const units = trigger.positionTpsl ? Math.abs(holding.units) : Math.min(trigger.units, Math.abs(holding.units));
  executeTaker(state, tick, { market, trader: trigger.trader, side: trigger.side, units, ms, orderType: trigger.orderType, reduceOnly: true, trigger });
}

/**
 * An altx liquidation trade as the venue's finalized export has it: both accounts by number, the
 * taker (the liquidated account) and the maker, each side's state before the trade. Positions are
 * cross-margined (no isolated allocation); the maker quotes just in time, flat before the trade.
 */
function altxLiquidation(
  market: MarketState,
  trade: TradeRecord,
  fill: { taker: string; maker: string; side: Side; entry: number; level: number; takerOid: number; makerOid: number; hash: string },
): AltxLiquidationRecord {
  const price = Number(trade.price);
  const size = Number(trade.size);
  const takerSells = fill.side === 'A';
  const [askAccount, bidAccount] = takerSells
    ? [accountIndexOf(fill.taker), accountIndexOf(fill.maker)]
    : [accountIndexOf(fill.maker), accountIndexOf(fill.taker)];
  const marginFraction = formatFixed(1 / (market.spec.maxLeverage ?? 1), 4);
  const before = Number(trade.start_position);
  return {
    dataset: 'altx_liquidations',
    family: 'altx',
    symbol: market.spec.symbol,
    ts: trade.ts,
    trade_id: trade.trade_id,
    transaction_time_us: trade.ts * 1000 + fill.level,
    liquidation_type: 'liquidation',
    price: trade.price,
    size: trade.size,
    usd_amount: formatFixed(price * size, 6),
    ask_account: askAccount,
    bid_account: bidAccount,
    ask_order_id: takerSells ? fill.takerOid : fill.makerOid,
    bid_order_id: takerSells ? fill.makerOid : fill.takerOid,
    is_maker_ask: !takerSells,
    taker_position_size_before: trade.start_position ?? '0',
    maker_position_size_before: '0',
    taker_entry_quote_before: formatFixed(Math.abs(before) * fill.entry, 6),
    maker_entry_quote_before: '0',
    taker_initial_margin_fraction_before: marginFraction,
    maker_initial_margin_fraction_before: marginFraction,
    taker_allocated_margin_usdc_before: '0',
    taker_allocated_margin_usdc_after: '0',
    maker_allocated_margin_usdc_before: '0',
    maker_allocated_margin_usdc_after: '0',
    taker_fee: trade.fee ?? '0',
    maker_fee: formatFixed(price * size * FEES.altx.maker, 6),
    taker_position_sign_changed: false,
    maker_position_sign_changed: false,
    block_height: Math.floor(trade.ts / 200),
    tx_hash: fill.hash,
    raw_json: '',
    source: 'bucket',
  };
}

/**
 * Closes a position whose mid crossed its liquidation price, at market, against makers and the
 * liquidation vault; returns the liquidation order, or nothing when the position was gone.
 */
export function liquidate(state: SimState, tick: Tick, market: MarketState, holding: Holding, ms: number): TakerOrder | undefined {
  // The trader may have closed the position while it waited in the cascade.
  if (state.positions.get(positionKey(holding.trader, market)) !== holding) return undefined;
  cancelOrdersOf(state, tick, market, holding.trader, tick.startMs + ms, 'liquidatedCanceled');
  const order: TakerOrder = {
    market,
    trader: holding.trader,
    side: holding.units > 0 ? 'A' : 'B',
    units: Math.abs(holding.units),
    ms,
    orderType: 'Market',
    tif: 'LiquidationMarket',
    reduceOnly: true,
    liquidation: true,
  };
  executeTaker(state, tick, order);
  return order;
}

/**
 * Cancels a trader's triggers in a market when the position they protect is gone; a liquidation also
 * force-cancels the trader's resting orders there.
 */
function cancelOrdersOf(state: SimState, tick: Tick, market: MarketState, trader: number, ts: number, status: 'canceled' | 'liquidatedCanceled'): void {
  const address = state.wallets.traders[trader]!.address;
  const event = status === 'canceled' ? 'canceled' : 'force_canceled';
  market.triggers = market.triggers.filter((trigger) => {
    if (trigger.trader !== trader) return true;
    triggerEvent(tick, market, ts, trigger, address, event, status);
    return false;
  });
  if (status === 'canceled') return;
  market.resting = market.resting.filter((order) => {
    if (order.trader !== trader) return true;
    restingEvent(tick, market, ts, order, address, event, status, order.units);
    leaveBook(state, tick, market, order, ts);
    return false;
  });
}

function restingEvent(
  tick: Tick,
  market: MarketState,
  ts: number,
  order: RestingOrder,
  user: string,
  event: OrderFields['event'],
  status: string,
  remaining: number,
): void {
  const { szDecimals } = market.spec;
  emitOrderEvent(tick, market, ts, {
    event,
    oid: order.oid,
    user,
    side: order.side,
    status,
    limitPrice: order.priceText,
    size: formatUnits(remaining, szDecimals),
    origSize: formatUnits(order.units, szDecimals),
    orderType: 'Limit',
    tif: order.tif,
    reduceOnly: order.reduceOnly,
    cloid: order.cloid,
  });
}

/** A trader's resting order leaves the book (filled, canceled). */
function leaveBook(state: SimState, tick: Tick, market: MarketState, order: RestingOrder, ts: number): void {
  const inBook = market.book.orders.get(order.oid);
  if (inBook) removeOrder(state, tick, market, inBook, ts);
}

export function restOrder(state: SimState, tick: Tick, market: MarketState, order: RestingOrder, ms: number): void {
  market.resting.push(order);
  const address = state.wallets.traders[order.trader]!.address;
  restingEvent(tick, market, tick.startMs + ms, order, address, 'placed', 'open', order.units);
  restInBook(state, tick, market, order, address, tick.startMs + ms);
}

/** The trader cancels, or now and then (and always when `forced`) the venue does for want of margin. */
export function cancelResting(state: SimState, tick: Tick, market: MarketState, order: RestingOrder, ms: number, forced = tick.rng.chance(0.05)): void {
  const index = market.resting.indexOf(order);
  if (index < 0) return;
  market.resting.splice(index, 1);
  const address = state.wallets.traders[order.trader]!.address;
  restingEvent(tick, market, tick.startMs + ms, order, address, forced ? 'force_canceled' : 'canceled', forced ? 'marginCanceled' : 'canceled', order.units);
  leaveBook(state, tick, market, order, tick.startMs + ms);
}

/**
 * The price ran through a resting order: a sweeping bot takes it at its limit price. The fill is
 * recorded from the trader's (maker's) side, so it pays the maker fee or earns the rebate. A fill never
 * flips a position; the part that would is canceled.
 */
export function fillResting(state: SimState, tick: Tick, market: MarketState, order: RestingOrder, ms: number): boolean {
  const index = market.resting.indexOf(order);
  if (index < 0 || inLiquidation(state, order.trader, market)) return false;
  market.resting.splice(index, 1);
  const { rng } = tick;
  const ts = tick.startMs + ms;
  const address = state.wallets.traders[order.trader]!.address;
  const holding = state.positions.get(positionKey(order.trader, market));
  const buy = order.side === 'B';
  const opposing = holding !== undefined && holding.units > 0 !== buy;
  const units = Math.min(order.units, opposing ? Math.abs(holding.units) : order.reduceOnly ? 0 : order.units);
  const rest = order.units - units;
  if (units > 0) {
    const sweeper = rng.pick(state.wallets.sweepers);
    const sweeperOid = state.nextOid++;
    const hash = `0x${rng.hex(64)}`;
    recordFill(state, tick, {
      market,
      trader: order.trader,
      units: buy ? units : -units,
      price: order.price,
      priceText: order.priceText,
      ts,
      crossed: false,
      hash,
      oid: order.oid,
      counterparty: sweeper,
      cloid: order.cloid,
    });
    restingEvent(tick, market, ts, order, address, 'filled', rest === 0 ? 'filled' : 'open', rest);
    const size = formatUnits(units, market.spec.szDecimals);
    emitOrderEvent(tick, market, ts, {
      event: 'filled',
      oid: sweeperOid,
      user: sweeper,
      side: opposite(order.side),
      status: 'filled',
      limitPrice: order.priceText,
      size: '0',
      origSize: size,
      orderType: 'Limit',
      tif: 'Ioc',
    });
  }
  if (rest > 0) {
    const reduceOnly = order.reduceOnly;
    restingEvent(tick, market, ts, order, address, reduceOnly ? 'force_canceled' : 'canceled', reduceOnly ? 'reduceOnlyCanceled' : 'canceled', rest);
  }
  // In the book: the fill takes its size off the order, then whatever is left is canceled.
  const inBook = market.book.orders.get(order.oid);
  if (inBook && units > 0 && rest > 0) reduceOrder(state, tick, market, inBook, units, ts);
  leaveBook(state, tick, market, order, ts);
  return true;
}
