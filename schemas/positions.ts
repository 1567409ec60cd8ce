/**
 * Parameters and response shapes of the positions routes (SPEC "Account and market positions";
 * reference §2.1, §2.5 and §3 Positions). Financial values are decimal strings, counts integers;
 * null means unknown, never zero; members a venue does not have are absent.
 */
import * as v from 'valibot';
import { booleanParam, enumParam, epochMsParam, integerParam, stringParam } from './params.ts';

const time = v.pipe(v.string(), v.description('RFC 3339 UTC'));
const decimal = v.pipe(v.string(), v.description('decimal string'));
const nullableDecimal = v.nullable(decimal);
const count = v.pipe(v.number(), v.integer());
const quality = v.picklist(['complete', 'partial', 'degraded']);
const accountKind = v.picklist(['user', 'settlement', 'insurance', 'system']);

export const addressPath = {
  address: stringParam({ description: 'Wallet address: 0x and 40 hex digits, any case', pattern: /^0x[0-9a-fA-F]{40}$/, required: true }),
};
export const accountIndexPath = { account_index: stringParam({ description: 'Account index: a non-negative integer', pattern: /^\d{1,20}$/, required: true }) };

const cursor = {
  cursor: stringParam({
    description: 'meta.next_cursor of the previous page, every other parameter unchanged (cursors expire after 24 hours)',
    maxLength: 1024,
  }),
};
const symbol = { symbol: stringParam({ description: 'Only this market', maxLength: 64 }) };
const dex = { dex: stringParam({ description: 'hip3 only: one builder dex (refused elsewhere)', maxLength: 12, pattern: /^[a-z0-9]{1,12}$/ }) };
const includeSystem = { include_system: booleanParam('altx, altx-rh only: also settlement, insurance and system accounts (refused elsewhere)') };
const range = {
  start: epochMsParam('Window start, epoch ms (required; [start, end))'),
  end: epochMsParam('Window end, epoch ms (required; exclusive)'),
};
const hour = (description: string) => ({ hour: epochMsParam(description) });

export const WalletPositionsQuery = {
  timestamp: epochMsParam('As of this instant, epoch ms (default: the latest snapshot)'),
  ...symbol,
  ...dex,
  ...cursor,
  limit: integerParam({ min: 1, max: 5000, default: 500, description: 'Positions per page' }),
};
export const WalletRangeQuery = {
  ...range,
  ...symbol,
  ...dex,
  ...cursor,
  limit: integerParam({ min: 1, max: 5000, default: 500, description: 'Rows per page' }),
};
export const AccountQuery = { ...dex };
export const AccountHistoryQuery = {
  ...range,
  ...dex,
  ...cursor,
  limit: integerParam({ min: 1, max: 5000, default: 500, description: 'Hourly summaries per page (altx families: at most 744)' }),
};
export const MarketPositionsQuery = {
  ...hour('An exact UTC hour, epoch ms (default: the latest snapshot)'),
  side: enumParam(['long', 'short'], { description: 'Only longs or only shorts' }),
  min_value: v.pipe(
    v.optional(v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/, 'must be a non-negative number'), v.transform(Number))),
    v.description('Only positions worth at least this much (quote currency)'),
    v.metadata({ openapi: { type: 'number', minimum: 0 } }),
  ),
  ...includeSystem,
  ...cursor,
  limit: integerParam({ min: 1, max: 2000, default: 100, description: 'Positions per page' }),
};
export const MarketSummaryQuery = {
  start: epochMsParam('Window start, epoch ms (omit start and end for the latest snapshot)'),
  end: epochMsParam('Window end, epoch ms (exclusive; required when paging)'),
  ...includeSystem,
  ...cursor,
  limit: integerParam({ min: 1, max: 2000, default: 100, description: 'Hourly summaries per page (at most 168 are served a page)' }),
};
export const BulkPositionsQuery = {
  ...hour('The exact UTC hour of the snapshot, epoch ms (required)'),
  ...includeSystem,
  ...cursor,
  format: enumParam(['json', 'arrow'], { description: '`arrow`: an Arrow IPC stream (also with Accept: application/vnd.apache.arrow.stream)' }),
  limit: integerParam({ min: 1, max: 50_000, default: 1000, description: 'Positions per page (JSON at most 2000; Arrow at most 50,000)' }),
};
export const L1AccountsQuery = {
  l1_address: stringParam({ description: 'The L1 (0x) address', pattern: /^0x[0-9a-fA-F]{40}$/, required: true }),
  ...cursor,
  limit: integerParam({ min: 1, max: 5000, default: 500, description: 'Accounts per page' }),
};

const CumFundingSchema = v.strictObject({ all_time: nullableDecimal, since_open: nullableDecimal, since_change: nullableDecimal });

export const PositionSchema = v.strictObject({
  snapshot_ts: v.optional(time),
  account_index: v.optional(v.string()),
  account_kind: v.optional(accountKind),
  symbol: v.string(),
  coin: v.string(),
  dex: v.optional(v.string()),
  size: decimal,
  side: v.picklist(['long', 'short']),
  entry_price: nullableDecimal,
  mark_price: nullableDecimal,
  mark_time: v.nullable(time),
  position_value: nullableDecimal,
  unrealized_pnl: nullableDecimal,
  return_on_equity: nullableDecimal,
  leverage: v.strictObject({ type: v.picklist(['cross', 'isolated', 'unknown']), value: nullableDecimal }),
  max_leverage: v.nullable(count),
  margin_used: nullableDecimal,
  liquidation_price: nullableDecimal,
  liquidation_price_status: v.picklist(['exact', 'not_published_cross', 'changed_since_snapshot', 'unavailable']),
  cum_funding: CumFundingSchema,
  opened_at: v.nullable(time),
  snapshot_as_of: v.nullable(time),
  quality,
  initial_margin_fraction: v.optional(nullableDecimal),
  allocated_margin: v.optional(nullableDecimal),
  margin_mode: v.optional(v.string()),
  mark_source: v.optional(v.string()),
  finalized: v.optional(v.boolean()),
});

export const MarketPositionSchema = v.strictObject({
  snapshot_ts: v.optional(time),
  user_address: v.optional(v.string()),
  account_index: v.optional(v.string()),
  account_kind: v.optional(accountKind),
  symbol: v.string(),
  coin: v.string(),
  dex: v.optional(v.string()),
  size: decimal,
  side: v.picklist(['long', 'short']),
  entry_price: nullableDecimal,
  mark_price: nullableDecimal,
  position_value: nullableDecimal,
  unrealized_pnl: nullableDecimal,
  leverage_type: v.string(),
  liquidation_price: nullableDecimal,
  quality,
});

export const PositionChangeSchema = v.strictObject({
  timestamp: time,
  account_index: v.optional(v.string()),
  account_kind: v.optional(accountKind),
  symbol: v.string(),
  coin: v.string(),
  dex: v.optional(v.string()),
  side: v.picklist(['B', 'A']),
  price: nullableDecimal,
  size: nullableDecimal,
  start_position: nullableDecimal,
  end_position: nullableDecimal,
  entry_price_after: nullableDecimal,
  event_type: v.picklist(['open', 'increase', 'reduce', 'close', 'flip', 'settlement', 'unchanged']),
  cause: v.picklist(['trade', 'liquidation', 'liquidation_counterparty', 'adl', 'settlement', 'unknown']),
  direction: v.optional(v.string()),
  closed_pnl: v.optional(nullableDecimal),
  realized_pnl: v.optional(decimal),
  fee: nullableDecimal,
  fee_token: v.string(),
  crossed: v.optional(v.boolean()),
  is_maker: v.optional(v.boolean()),
  trade_id: count,
  order_id: v.nullable(count),
  opened_at: v.nullable(time),
  seq: v.optional(count),
  block_number: v.optional(count),
  event_index: v.optional(count),
  continuity: v.picklist(['ok', 'inferred', 'first_seen', 'quarantined']),
  finalized: v.optional(v.boolean()),
  position_size_before: v.optional(decimal),
  position_size_after: v.optional(decimal),
  fee_rate: v.optional(nullableDecimal),
  fee_usdc: v.optional(nullableDecimal),
  usdc_amount: v.optional(decimal),
});

export const AccountSummarySchema = v.strictObject({
  snapshot_ts: v.optional(time),
  account_index: v.optional(v.string()),
  dex: v.optional(v.string()),
  account_value: v.optional(nullableDecimal),
  cross_account_value: v.optional(nullableDecimal),
  collateral: v.optional(nullableDecimal),
  total_margin_used: v.optional(nullableDecimal),
  cross_maintenance_margin_used: v.optional(nullableDecimal),
  withdrawable: v.optional(nullableDecimal),
  total_position_value: nullableDecimal,
  total_unrealized_pnl: nullableDecimal,
  long_value: nullableDecimal,
  short_value: nullableDecimal,
  n_positions: count,
  account_mode: v.optional(v.string()),
  snapshot_as_of: v.optional(v.nullable(time)),
  quality,
});

export const WalletPositionsSchema = v.strictObject({
  positions: v.array(PositionSchema),
  account: v.nullable(AccountSummarySchema),
  account_seen: v.optional(v.picklist(['flat', 'never_seen', 'outside_coverage'])),
});

export const MarketSummarySchema = v.strictObject({
  snapshot_ts: v.nullable(time),
  symbol: v.string(),
  coin: v.string(),
  dex: v.optional(v.string()),
  long_count: count,
  short_count: count,
  long_size: decimal,
  short_size: decimal,
  long_value: nullableDecimal,
  short_value: nullableDecimal,
  long_avg_entry_price: nullableDecimal,
  short_avg_entry_price: nullableDecimal,
  long_positions_with_entry: count,
  short_positions_with_entry: count,
  long_top10_value_share: nullableDecimal,
  short_top10_value_share: nullableDecimal,
  top10_value_share: nullableDecimal,
  quality,
});

export const L1AccountsSchema = v.strictObject({
  l1_address: v.string(),
  total_accounts: count,
  accounts: v.array(v.strictObject({ account_index: v.string(), account_type: count, first_seen: v.nullable(time) })),
});

export const PositionsFreshnessSchema = v.strictObject({
  venue: v.picklist(['perpx', 'altx', 'altx_rh']),
  product: v.picklist(['core', 'hip3', 'altx', 'altx_rh']),
  live_snapshot_ts: v.nullable(time),
  live_age_seconds: v.nullable(count),
  stale: v.boolean(),
  live_quality: v.nullable(quality),
  hourly_snapshot_ts: v.nullable(time),
  built_through: v.nullable(time),
  finalized_through: v.nullable(time),
});

/** Bulk Arrow pages: the IPC stream's content type and schema version (SPEC rule 9). */
export const ARROW_CONTENT_TYPE = 'application/vnd.apache.arrow.stream';
export const ARROW_SCHEMA_VERSION = 'positions.v1';
