/**
 * Wallet classification (issue 45): the reference service's `/wallets/classify` parameters and
 * shape (reference §2.1, §3), with its metrics and a class derived from the archive's own fills,
 * positions and order events over one UTC day. The real service's method is not public; the rule
 * here is the archive's own, stated in CLASS_RULE.
 */
import * as v from 'valibot';
import { booleanParam, enumParam, integerParam, numberParam, stringParam } from './params.ts';

/** The sort keys the reference client sends; pairs name the same metric (`total_volume` = `total_volume_usd`). */
export const WALLET_SORTS = {
  total_orders: 'total_orders',
  total_fills: 'total_fills',
  total_volume: 'total_volume_usd',
  total_volume_usd: 'total_volume_usd',
  cancel_rate: 'cancel_rate',
  fill_rate: 'fill_rate',
  maker_ratio: 'maker_ratio',
  avg_order_size_usd: 'avg_order_size_usd',
  avg_order_notional: 'avg_order_size_usd',
  max_order_size_usd: 'max_order_size_usd',
  max_order_notional: 'max_order_size_usd',
  active_hours: 'active_hours',
  unique_coins: 'unique_coins_traded',
  total_fees: 'total_fees_usd',
  total_fees_usd: 'total_fees_usd',
  realized_pnl: 'realized_pnl_usd',
  realized_pnl_usd: 'realized_pnl_usd',
  median_cancel_speed_ms: 'median_cancel_speed_ms',
  twap_fills: 'twap_fills',
  total_priority_gas: 'total_priority_gas_paid',
  total_priority_gas_paid: 'total_priority_gas_paid',
  total_builder_fees: 'total_builder_fees_paid',
  total_builder_fees_paid: 'total_builder_fees_paid',
} as const;
export type WalletSort = keyof typeof WALLET_SORTS;

/** The classes, in the order the rule tries them; the first that holds is the wallet's. */
export const WALLET_CLASSES = ['market_maker', 'high_frequency', 'whale', 'position_trader', 'retail'] as const;
export type WalletClass = (typeof WALLET_CLASSES)[number];

/** The thresholds of the rule (one UTC day of the wallet's fills on the family). */
export const CLASS_THRESHOLDS = {
  activeFills: 100,
  makerRatio: 0.7,
  fastHoldMs: 10 * 60_000,
  whaleVolumeUsd: 1_000_000,
  slowHoldMs: 4 * 3_600_000,
} as const;

export const CLASS_RULE =
  'The first that holds over the day: market_maker, at least 100 fills of which at least 70% were maker fills; '
  + 'high_frequency, at least 100 fills and positions closed that day held under 10 minutes on average; whale, at least 1,000,000 USD of fills; '
  + 'position_trader, positions closed that day held 4 hours or more on average; retail, any other wallet with a fill or an order that day.';

const date = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

export const WalletClassifyQuery = {
  min_orders: integerParam({ min: 0, max: 1_000_000_000, default: 100, description: 'Only wallets with at least this many orders that day' }),
  min_volume_usd: numberParam({ min: 0, max: 1e15, default: 0, description: 'Only wallets with at least this fill volume (USD) that day' }),
  sort: enumParam(Object.keys(WALLET_SORTS) as [WalletSort, ...WalletSort[]], {
    default: 'total_orders',
    description: 'Metric to sort by (a wallet without it sorts last)',
  }),
  order: enumParam(['asc', 'desc'], { default: 'desc', description: 'Sort order' }),
  limit: integerParam({ min: 1, max: 1000, default: 100, description: 'Wallets per page' }),
  offset: integerParam({ min: 0, max: 100_000, default: 0, description: 'Wallets to skip (page against total)' }),
  uses_twap: booleanParam('Only wallets that did (true) or did not (false) fill TWAP slices that day'),
  uses_priority_gas: booleanParam('Only wallets that did (true) or did not (false) pay priority gas that day'),
  min_cancel_rate: numberParam({ min: 0, max: 1, description: 'Minimum cancel rate, 0 to 1 (wallets without orders are left out)' }),
  max_cancel_rate: numberParam({ min: 0, max: 1, description: 'Maximum cancel rate, 0 to 1 (wallets without orders are left out)' }),
  date: stringParam({ description: 'The UTC day, YYYY-MM-DD (default yesterday)', maxLength: 10, pattern: date }),
};

const count = v.pipe(v.number(), v.integer());
const ratio = v.pipe(v.number(), v.description('0 to 1'));
const usd = v.pipe(v.number(), v.description('USD'));

/** One wallet's day: a metric that has nothing to measure (no orders, no closed position) is absent. */
export const WalletMetricsSchema = v.object({
  total_orders: v.pipe(count, v.description('distinct orders with an event that day')),
  cancel_rate: v.optional(v.pipe(ratio, v.description('share of orders canceled (by the owner or the engine)'))),
  fill_rate: v.optional(v.pipe(ratio, v.description('share of orders with a fill event'))),
  order_to_trade_ratio: v.optional(v.pipe(v.number(), v.description('orders per fill'))),
  ioc_ratio: v.optional(ratio),
  post_only_ratio: v.optional(ratio),
  tpsl_ratio: v.optional(ratio),
  trigger_order_ratio: v.optional(ratio),
  uses_tpsl: v.boolean(),
  uses_cloid: v.boolean(),
  cloid_ratio: v.optional(ratio),
  avg_order_size_usd: v.optional(v.pipe(usd, v.description('limit price x original size, per order'))),
  max_order_size_usd: v.optional(usd),
  median_cancel_speed_ms: v.optional(v.pipe(v.number(), v.description('placement to cancel, for orders placed and canceled that day'))),
  unique_coins_traded: v.pipe(count, v.description('markets with an order or a fill')),
  total_fills: count,
  total_volume_usd: usd,
  maker_ratio: v.optional(v.pipe(ratio, v.description('share of fills that added liquidity'))),
  long_short_ratio: v.optional(v.pipe(v.number(), v.description('buy volume / sell volume'))),
  buy_volume_usd: usd,
  sell_volume_usd: usd,
  total_fees_usd: v.pipe(v.number(), v.description('fees paid, rebates negative')),
  realized_pnl_usd: usd,
  liquidation_count: count,
  max_single_fill_usd: v.optional(usd),
  unique_fill_coins: count,
  active_hours: v.pipe(count, v.description('UTC hours with a fill')),
  avg_holding_ms: v.optional(v.pipe(v.number(), v.description('positions closed that day: time since they opened, on average'))),
  uses_twap: v.boolean(),
  twap_fills: count,
  twap_fill_ratio: v.optional(ratio),
  uses_priority_gas: v.boolean(),
  total_priority_gas_paid: v.number(),
  uses_builder: v.boolean(),
  top_builder: v.optional(v.string()),
  total_builder_fees_paid: usd,
});
export type WalletMetrics = v.InferOutput<typeof WalletMetricsSchema>;

export const ClassifiedWalletSchema = v.object({
  address: v.string(),
  class: v.pipe(v.picklist(WALLET_CLASSES), v.description(CLASS_RULE)),
  metrics: WalletMetricsSchema,
  period: v.pipe(v.literal('24h'), v.description("the metrics' lookback: the UTC day of `date`")),
});
export type ClassifiedWallet = v.InferOutput<typeof ClassifiedWalletSchema>;

export const WalletClassificationSchema = v.object({
  wallets: v.array(ClassifiedWalletSchema),
  total: v.pipe(count, v.description('wallets matching the filters; page with offset')),
  date: v.pipe(v.string(), v.description('YYYY-MM-DD')),
});
export type WalletClassification = v.InferOutput<typeof WalletClassificationSchema>;
