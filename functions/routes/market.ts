/** Market data: instruments, trades, candles, trigger orders, order flow, outcomes. */
import * as v from 'valibot';
import { familiesOf } from '#schemas/datasets.ts';
import { InstrumentSchema, OutcomeSchema, OutcomesQuery, QuestionSchema, QuestionsQuery, SpotPairSchema, outcomePath, questionPath, slugPath, symbolPath, userPath } from '#schemas/market.ts';
import { SpotTwapQuery, SpotTwapSchema } from '#schemas/flow-analytics.ts';
import { WalletClassificationSchema, WalletClassifyQuery } from '#schemas/wallet-classes.ts';
import { operationGroup, page } from './operation.ts';
import { ACTIVITY_OPERATIONS, PERPX_PERPETUALS } from './market-activity.ts';

/**
 * Market data per venue family. A route's families are the families that have its dataset (the
 * dataset registry's coverage), recent trades included: every family with trades serves its
 * newest ones (SPEC "Trades" names core, hip4 and altx; the reference service adds hip3 and spot).
 */
export const MARKET_OPERATIONS = operationGroup('market', {
  ...ACTIVITY_OPERATIONS,
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
