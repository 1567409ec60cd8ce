/**
 * Wire shapes of market-data rows, written as DuckDB struct expressions over the archive's columns:
 * DuckDB renders each row as JSON itself (see readWindowJson). Only this module writes them.
 */
import type { Family } from '../venues.ts';

/** RFC 3339 UTC with milliseconds, from an epoch-ms column. */
export const isoSql = (column: string) => `(strftime(make_timestamp(${column} * 1000), '%Y-%m-%dT%H:%M:%S.%g') || 'Z')`;

/** A decimal string column as a JSON number (trigger-order rows are numeric per the spec, as is priority gas). */
const num = (column: string) => `TRY_CAST(${column} AS DOUBLE)`;

/**
 * A row as JSON without its null members (a JSON merge patch onto `{}` drops them): a member that
 * does not apply to a row is absent, as clients read optional members, never null.
 */
const withoutNulls = (struct: string) => `json_merge_patch('{}', to_json(${struct}))`;

const TRADE_MEMBERS = `'symbol': symbol, 'coin': symbol, 'side': side, 'price': price, 'size': size,
  'timestamp': ${isoSql('ts')}, 'trade_id': trade_id, 'crossed': crossed, 'fee': fee, 'fee_token': fee_token, 'closed_pnl': closed_pnl,
  'direction': direction, 'start_position': start_position, 'user_address': user_address, 'tx_hash': tx_hash,
  'order_id': order_id, 'cloid': cloid, 'maker_address': maker_address, 'taker_address': taker_address, 'twap_id': twap_id,
  'builder_address': builder_address, 'builder_fee': builder_fee, 'deployer_fee': deployer_fee, 'priority_gas': ${num('priority_gas')}`;

/**
 * Trade rows: decimal strings, `coin` kept as the deprecated alias of `symbol`; members that do not
 * apply (no cloid, no builder, not a TWAP fill, no deployer fee outside hip3) are absent.
 * `priority_gas` is a JSON number (HYPE). altx rows add the venue's `account_index` and `source`:
 * `bucket`, since archived rows are the canonical ones, never the preliminary stream (`ws`).
 */
export function tradeProjection(family: Family): string {
  const altx = family === 'altx' || family === 'altx-rh' ? `, 'account_index': account_index, 'source': 'bucket'` : '';
  return withoutNulls(`{${TRADE_MEMBERS}${altx}}`);
}

/** Trigger-order (TP/SL) rows, with the observed fields of the spec's table. */
export const TRIGGER_ORDER_PROJECTION = `{'timestamp': ${isoSql('ts')}, 'block_time': ${isoSql('ts')}, 'block_number': block_number,
  'seq': seq, 'coin': symbol, 'user_address': user_address, 'status': status, 'event': event, 'side': side,
  'limit_price': ${num('limit_price')}, 'size': ${num('size')}, 'orig_size': ${num('orig_size')}, 'oid': oid,
  'order_type': order_type, 'trigger_condition': trigger_condition, 'trigger_price': ${num('trigger_price')},
  'is_trigger': is_trigger, 'is_position_tpsl': is_position_tpsl, 'reduce_only': reduce_only}`;

/** Candle rows: JSON numbers (sums of doubles rounded to 10 decimals, so no float noise shows). */
export const CANDLE_PROJECTION = `{'timestamp': ${isoSql('bucket')}, 'open': open, 'high': high, 'low': low, 'close': close,
  'volume': round(volume, 10), 'quote_volume': round(quote_volume, 10), 'trade_count': trade_count}`;

/** Order-flow buckets: counts of event rows, nothing about prices, sizes or wallets. */
export const FLOW_PROJECTION = `{'timestamp': ${isoSql('bucket')}, 'limit_orders_placed': limit_orders_placed,
  'orders_canceled': orders_canceled, 'orders_filled': orders_filled, 'trigger_orders_placed': trigger_orders_placed,
  'tpsl_orders_placed': tpsl_orders_placed, 'orders_triggered': orders_triggered, 'orders_force_canceled': orders_force_canceled}`;

/**
 * Open-interest rows: decimal strings; hip4 rows are one side of an outcome (`#N`: outcome N // 10,
 * side N % 10), with probability prices and no oracle price.
 */
export function openInterestProjection(family: Family): string {
  if (family === 'hip4') {
    const n = 'CAST(substr(symbol, 2) AS BIGINT)';
    return withoutNulls(`{'symbol': symbol, 'coin': symbol, 'outcome_id': ${n} // 10, 'side': ${n} % 10, 'timestamp': ${isoSql('ts')},
      'open_interest': open_interest, 'mark_price': mark_price, 'mid_price': mid_price}`);
  }
  return withoutNulls(`{'symbol': symbol, 'coin': symbol, 'timestamp': ${isoSql('ts')}, 'open_interest': open_interest,
    'mark_price': mark_price, 'oracle_price': oracle_price, 'mid_price': mid_price, 'day_ntl_volume': day_ntl_volume}`);
}

/** Funding rows: the rate a decimal-string fraction (not annualized), `premium` where the venue has it. */
export const FUNDING_PROJECTION = withoutNulls(
  `{'symbol': symbol, 'coin': symbol, 'timestamp': ${isoSql('ts')}, 'funding_rate': funding_rate, 'premium': premium}`,
);

/** Liquidation fills (core, hip3): `side` is the side liquidated; members the record lacks are absent. */
export const LIQUIDATION_PROJECTION = withoutNulls(`{'symbol': symbol, 'coin': symbol, 'timestamp': ${isoSql('ts')},
  'liquidated_user': liquidated_user, 'liquidator_user': liquidator_user, 'price': price, 'size': size, 'side': side,
  'mark_price': mark_price, 'closed_pnl': closed_pnl, 'direction': direction, 'trade_id': trade_id, 'tx_hash': tx_hash}`);

/** Liquidation volume buckets: USD notionals as JSON numbers (rounded to 4 decimals, so no float noise shows), counts as integers. */
export const LIQUIDATION_VOLUME_PROJECTION = `{'symbol': symbol, 'coin': symbol, 'timestamp': ${isoSql('bucket')},
  'total_usd': round(total_usd, 4), 'long_usd': round(long_usd, 4), 'short_usd': round(short_usd, 4),
  'count': count, 'long_count': long_count, 'short_count': short_count}`;

/** Price snapshots: mark, oracle and mid as the open-interest sample carries them (hip4 has no oracle). */
export const PRICE_PROJECTION = withoutNulls(`{'timestamp': ${isoSql('ts')}, 'mark_price': mark_price, 'oracle_price': oracle_price, 'mid_price': mid_price}`);

/** altx liquidation trades: both accounts and each side's state before the trade; numbers as the venue's client reads them. */
export const ALTX_LIQUIDATION_PROJECTION = `{'symbol': symbol, 'timestamp': ${isoSql('ts')}, 'timestamp_ms': ts, 'transaction_time_us': transaction_time_us,
  'trade_id': trade_id, 'liquidation_type': liquidation_type, 'price': ${num('price')}, 'size': ${num('size')}, 'usd_amount': ${num('usd_amount')},
  'ask_account': ask_account, 'bid_account': bid_account, 'ask_order_id': ask_order_id, 'bid_order_id': bid_order_id, 'is_maker_ask': is_maker_ask,
  'taker_position_size_before': ${num('taker_position_size_before')}, 'maker_position_size_before': ${num('maker_position_size_before')},
  'taker_entry_quote_before': ${num('taker_entry_quote_before')}, 'maker_entry_quote_before': ${num('maker_entry_quote_before')},
  'taker_initial_margin_fraction_before': ${num('taker_initial_margin_fraction_before')}, 'maker_initial_margin_fraction_before': ${num('maker_initial_margin_fraction_before')},
  'taker_allocated_margin_usdc_before': ${num('taker_allocated_margin_usdc_before')}, 'taker_allocated_margin_usdc_after': ${num('taker_allocated_margin_usdc_after')},
  'maker_allocated_margin_usdc_before': ${num('maker_allocated_margin_usdc_before')}, 'maker_allocated_margin_usdc_after': ${num('maker_allocated_margin_usdc_after')},
  'taker_fee': ${num('taker_fee')}, 'maker_fee': ${num('maker_fee')}, 'taker_position_sign_changed': taker_position_sign_changed,
  'maker_position_sign_changed': maker_position_sign_changed, 'block_height': block_height, 'tx_hash': tx_hash, 'raw_json': coalesce(raw_json, ''), 'source': source}`;

/** altx volume buckets: the venue reports no reliable direction, so a total and a count only. */
export const ALTX_LIQUIDATION_VOLUME_PROJECTION = `{'symbol': symbol, 'timestamp': ${isoSql('bucket')}, 'timestamp_ms': bucket,
  'total_usd': round(total_usd, 4), 'count': count}`;

/** Order-history rows: every order event; prices and sizes JSON numbers, members an event lacks absent. */
export const ORDER_HISTORY_PROJECTION = withoutNulls(`{'coin': symbol, 'symbol': symbol, 'timestamp': ${isoSql('ts')}, 'block_time': ${isoSql('ts')},
  'block_number': block_number, 'seq': seq, 'oid': oid, 'user_address': user_address, 'side': side, 'event': event, 'status': status,
  'limit_price': ${num('limit_price')}, 'size': ${num('size')}, 'orig_size': ${num('orig_size')}, 'order_type': order_type, 'tif': tif,
  'reduce_only': reduce_only, 'is_trigger': is_trigger, 'is_position_tpsl': is_position_tpsl,
  'trigger_condition': trigger_condition, 'trigger_price': ${num('trigger_price')}, 'cloid': cloid}`);
