/** The market group's trading activity: trades, CVD, candles and order events, spread into it in place. */
import * as v from 'valibot';
import { familiesOf } from '#schemas/datasets.ts';
import {
  CandleSchema,
  CandlesQuery,
  OrderFlowQuery,
  OrderFlowSchema,
  RecentTradesQuery,
  TradeSchema,
  TradesQuery,
  TriggerOrderSchema,
  TriggerOrdersQuery,
  symbolPath,
} from '#schemas/market.ts';
import { CvdBucketSchema, CvdQuery, OrderHistoryEventSchema, OrderHistoryQuery } from '#schemas/flow-analytics.ts';
import { page, type OperationSpec } from './operation.ts';
import { CAPPED_BOOK_FAMILIES } from '../core/venues.ts';

/**
 * The perpx venue's perpetual families (its capped-book families with funding: core and hip3), where
 * the reference service serves the routes it derives from perpetual flow (CVD, trigger and
 * liquidation levels, wallet classification).
 */
export const PERPX_PERPETUALS = CAPPED_BOOK_FAMILIES.filter((family) => familiesOf('funding').includes(family));

/**
 * The families served TP/SL and order flow: those with order events but spot, whose order events
 * the reference service serves as history only.
 */
const DERIVATIVE_ORDER_FAMILIES = familiesOf('order_events').filter((family) => family !== 'spot');

export const ACTIVITY_OPERATIONS = {
  trades: {
    datatype: 'trades',
    suffix: '/trades/{symbol}',
    families: familiesOf('trades'),
    summary: 'Trades (fills) in a time window, oldest first',
    tags: ['Trades'],
    billed: true,
    legacy: [
      { path: '/v1/trades/{symbol}', operationId: 'getLegacyTrades' },
      { path: '/v1/trades/{symbol}/cursor', operationId: 'getLegacyTradesCursor' },
    ],
    pathParams: symbolPath,
    query: TradesQuery,
    response: page(v.array(TradeSchema), 'A page of trades'),
  },
  recentTrades: {
    datatype: 'trades',
    suffix: '/trades/{symbol}/recent',
    families: familiesOf('trades'),
    summary: 'The newest trades, newest first',
    tags: ['Trades'],
    billed: true,
    pathParams: symbolPath,
    query: RecentTradesQuery,
    response: page(v.array(TradeSchema), 'The newest trades'),
  },
  cvd: {
    datatype: 'cvd',
    suffix: '/cvd/{symbol}',
    families: PERPX_PERPETUALS.filter((family) => familiesOf('trades').includes(family)),
    summary: 'Cumulative volume delta: taker buy and sell notional per bucket and their running difference',
    tags: ['Trades'],
    billed: true,
    pathParams: symbolPath,
    query: CvdQuery,
    response: page(v.array(CvdBucketSchema), 'Buckets with trades, oldest first; cumulative_delta restarts on every page'),
  },
  candles: {
    datatype: 'candles',
    suffix: '/candles/{symbol}',
    families: familiesOf('candles_1m'),
    summary: 'Candles rolled up on demand from 1-minute candles',
    tags: ['Candles'],
    billed: true,
    pathParams: symbolPath,
    query: CandlesQuery,
    response: page(v.array(CandleSchema), 'A page of candles; a missing bar is not a zero bar'),
  },
  orderHistory: {
    datatype: 'order_history',
    suffix: '/orders/{symbol}/history',
    families: familiesOf('order_events'),
    summary: 'Order events (placements, fills, cancels, triggers), oldest first',
    tags: ['Orders'],
    billed: true,
    pathParams: symbolPath,
    query: OrderHistoryQuery,
    response: page(v.array(OrderHistoryEventSchema), 'A page of order events'),
  },
  triggerOrders: {
    datatype: 'trigger_orders',
    suffix: '/orders/{symbol}/tpsl',
    families: DERIVATIVE_ORDER_FAMILIES,
    summary: 'Trigger orders (take-profit / stop-loss)',
    tags: ['Orders'],
    billed: true,
    pathParams: symbolPath,
    query: TriggerOrdersQuery,
    response: page(v.array(TriggerOrderSchema), 'A page of trigger-order rows'),
  },
  orderFlow: {
    datatype: 'order_flow',
    suffix: '/orders/{symbol}/flow',
    families: DERIVATIVE_ORDER_FAMILIES,
    summary: 'Order-event counts per time bucket',
    tags: ['Orders'],
    billed: true,
    pathParams: symbolPath,
    query: OrderFlowQuery,
    response: page(v.array(OrderFlowSchema), 'Order-flow buckets'),
  },
} as const satisfies Readonly<Record<string, OperationSpec>>;
