/** Market data: instruments, trades, candles, trigger orders, order flow, outcomes. */
import * as v from 'valibot';
import { familiesOf } from '#schemas/datasets.ts';
import { CAPPED_BOOK_FAMILIES } from '../core/venues.ts';
import { CandleSchema, CandlesQuery, InstrumentSchema, OrderFlowQuery, OrderFlowSchema, OutcomeSchema, OutcomesQuery, QuestionSchema, QuestionsQuery, SpotPairSchema, outcomePath, questionPath, slugPath, RecentTradesQuery, TradeSchema, TradesQuery, TriggerOrderSchema, TriggerOrdersQuery, symbolPath, userPath } from '#schemas/market.ts';
import { CvdBucketSchema, CvdQuery, OrderHistoryEventSchema, OrderHistoryQuery, SpotTwapQuery, SpotTwapSchema } from '#schemas/flow-analytics.ts';
import { WalletClassificationSchema, WalletClassifyQuery } from '#schemas/wallet-classes.ts';
import { operationGroup, page } from './operation.ts';

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

/**
 * Market data per venue family. A route's families are the families that have its dataset (the
 * dataset registry's coverage), recent trades included: every family with trades serves its
 * newest ones (SPEC "Trades" names core, hip4 and altx; the reference service adds hip3 and spot).
 */
export const MARKET_OPERATIONS = operationGroup('market', {
  trades: {
    datatype: 'trades',
    suffix: '/trades/{symbol}', families: familiesOf('trades'), summary: 'Trades (fills) in a time window, oldest first', tags: ['Trades'], billed: true,
    legacy: [{ path: '/v1/trades/{symbol}', operationId: 'getLegacyTrades' }, { path: '/v1/trades/{symbol}/cursor', operationId: 'getLegacyTradesCursor' }],
    pathParams: symbolPath, query: TradesQuery, response: page(v.array(TradeSchema), 'A page of trades'),
  },
  recentTrades: {
    datatype: 'trades',
    suffix: '/trades/{symbol}/recent', families: familiesOf('trades'), summary: 'The newest trades, newest first', tags: ['Trades'], billed: true,
    pathParams: symbolPath, query: RecentTradesQuery, response: page(v.array(TradeSchema), 'The newest trades'),
  },
  cvd: {
    datatype: 'cvd',
    suffix: '/cvd/{symbol}', families: PERPX_PERPETUALS.filter((family) => familiesOf('trades').includes(family)), summary: 'Cumulative volume delta: taker buy and sell notional per bucket and their running difference', tags: ['Trades'], billed: true,
    pathParams: symbolPath, query: CvdQuery, response: page(v.array(CvdBucketSchema), 'Buckets with trades, oldest first; cumulative_delta restarts on every page'),
  },
  candles: {
    datatype: 'candles',
    suffix: '/candles/{symbol}', families: familiesOf('candles_1m'), summary: 'Candles rolled up on demand from 1-minute candles', tags: ['Candles'], billed: true,
    pathParams: symbolPath, query: CandlesQuery, response: page(v.array(CandleSchema), 'A page of candles; a missing bar is not a zero bar'),
  },
  orderHistory: {
    datatype: 'order_history',
    suffix: '/orders/{symbol}/history', families: familiesOf('order_events'), summary: 'Order events (placements, fills, cancels, triggers), oldest first', tags: ['Orders'], billed: true,
    pathParams: symbolPath, query: OrderHistoryQuery, response: page(v.array(OrderHistoryEventSchema), 'A page of order events'),
  },
  triggerOrders: {
    datatype: 'trigger_orders',
    suffix: '/orders/{symbol}/tpsl', families: DERIVATIVE_ORDER_FAMILIES, summary: 'Trigger orders (take-profit / stop-loss)', tags: ['Orders'], billed: true,
    pathParams: symbolPath, query: TriggerOrdersQuery, response: page(v.array(TriggerOrderSchema), 'A page of trigger-order rows'),
  },
  orderFlow: {
    datatype: 'order_flow',
    suffix: '/orders/{symbol}/flow', families: DERIVATIVE_ORDER_FAMILIES, summary: 'Order-event counts per time bucket', tags: ['Orders'], billed: true,
    pathParams: symbolPath, query: OrderFlowQuery, response: page(v.array(OrderFlowSchema), 'Order-flow buckets'),
  },
  instruments: {
    datatype: 'instruments',
    suffix: '/instruments', families: familiesOf('instruments'), summary: 'The instrument registry (point in time: now)', tags: ['Instruments'], billed: true,
    legacy: [{ path: '/v1/instruments', operationId: 'getLegacyInstruments' }],
    response: page(v.array(InstrumentSchema), 'Every listed instrument'),
  },
  instrument: {
    datatype: 'instruments',
    suffix: '/instruments/{symbol}', families: familiesOf('instruments'), summary: 'One instrument of the registry', tags: ['Instruments'], billed: true,
    legacy: [{ path: '/v1/instruments/{symbol}', operationId: 'getLegacyInstrument' }],
    pathParams: symbolPath, response: page(InstrumentSchema, 'The instrument'),
  },
  spotPairs: {
    datatype: 'instruments',
    suffix: '/pairs', families: ['spot'], summary: 'Spot pairs of the token registry (point in time: now)', tags: ['Instruments'], billed: true,
    response: page(v.array(SpotPairSchema), 'Every listed pair, by pair index'),
  },
  spotTwap: {
    datatype: 'twap',
    suffix: '/twap/{symbol}', families: ['spot'], summary: 'TWAP statuses of a pair, oldest first, with the notional their fills executed', tags: ['Trades'], billed: true,
    pathParams: symbolPath, query: SpotTwapQuery, response: page(v.array(SpotTwapSchema), 'A page of TWAP statuses'),
  },
  spotTwapUser: {
    datatype: 'twap',
    suffix: '/twap/user/{user}', families: ['spot'], summary: 'A wallet\'s TWAP statuses on every pair, oldest first', tags: ['Trades'], billed: true,
    pathParams: userPath, query: SpotTwapQuery, response: page(v.array(SpotTwapSchema), 'A page of TWAP statuses'),
  },
  spotPair: {
    datatype: 'instruments',
    suffix: '/pairs/{symbol}', families: ['spot'], summary: 'One spot pair', tags: ['Instruments'], billed: true,
    pathParams: symbolPath, response: page(SpotPairSchema, 'The pair'),
  },
  outcomes: {
    datatype: 'instruments',
    suffix: '/outcomes', families: ['hip4'], summary: 'Outcome markets, both sides each, by id', tags: ['Instruments'], billed: true,
    query: OutcomesQuery, response: page(v.array(OutcomeSchema), 'A page of outcomes (without aggregated_oi)'),
  },
  outcome: {
    datatype: 'instruments',
    suffix: '/outcomes/{outcome_id}', families: ['hip4'], summary: 'One outcome market, with the open interest of both sides', tags: ['Instruments'], billed: true,
    pathParams: outcomePath, response: page(OutcomeSchema, 'The outcome'),
  },
  outcomeBySlug: {
    datatype: 'instruments',
    suffix: '/outcomes/by-slug/{slug}', families: ['hip4'], summary: 'The outcome market with this slug (its own or a side\'s), with the open interest of both sides', tags: ['Instruments'], billed: true,
    pathParams: slugPath, response: page(OutcomeSchema, 'The outcome'),
  },
  walletClassify: {
    datatype: 'wallet_classify',
    suffix: '/wallets/classify', families: PERPX_PERPETUALS, summary: 'A day\'s wallets with metrics from their fills, positions and orders, and their class; offset-paged', tags: ['Positions'], billed: true,
    query: WalletClassifyQuery, response: page(WalletClassificationSchema, 'The page of wallets, how many match, and the day'),
  },
  questions: {
    datatype: 'questions',
    suffix: '/questions', families: ['hip4'], summary: 'Questions: outcome markets grouped under one ballot, by id', tags: ['Instruments'], billed: true,
    query: QuestionsQuery, response: page(v.array(QuestionSchema), 'A page of questions'),
  },
  question: {
    datatype: 'questions',
    suffix: '/questions/{question_id}', families: ['hip4'], summary: 'One question: its named outcomes, its fallback and which have settled', tags: ['Instruments'], billed: true,
    pathParams: questionPath, response: page(QuestionSchema, 'The question'),
  },
});
