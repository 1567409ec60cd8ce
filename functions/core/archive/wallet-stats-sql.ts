/**
 * Per-wallet statistics for wallet classification (`/wallets/classify`, issue 45): three derived
 * datasets, one per source (position legs, order events, trades), each keyed by family, symbol,
 * wallet and slot (the compacted hour, or the folded day: `slot_hours` 1 or 24). `derive` turns
 * the source's rows of a slot into the dataset's rows, `combine` turns any set of those rows of
 * one UTC day (a day row, hour rows, rows derived on the fly from hours not compacted yet) into
 * one row per wallet, with the columns core/positions/wallet-classes.ts `metricsOf` reads.
 *
 * Every statistic is kept so that rows of disjoint slots combine exactly: counts and sums add,
 * extremes take the extreme, active hours are a bit mask of the day's hours, the top builder is
 * kept as a count per builder, the median cancel speed as the distribution of speeds (JSON pairs
 * [ms, orders]). One exception: an order is one order per slot, so until its day is folded into
 * a day row, an order with events in two compacted hours counts in each (docs/newer-routes.md).
 */

const NOTIONAL = 'abs(CAST(price AS DOUBLE) * CAST(size AS DOUBLE))';
const slotOf = (slotHours: number) => `(ts // ${slotHours * 3_600_000}) * ${slotHours * 3_600_000}`;

/**
 * A wallet's fills are its position legs (one per fill and side, maker and taker alike: a trade
 * row names its maker only as `maker_address`).
 */
export function walletFillStatsSql(source: string, slotHours: number): string {
  return `SELECT family, symbol, account AS address, ${slotOf(slotHours)} AS ts, ${slotHours} AS slot_hours, count(*) AS fills,
      coalesce(sum(${NOTIONAL}) FILTER (WHERE side = 'B'), 0) AS buy_volume, coalesce(sum(${NOTIONAL}) FILTER (WHERE side = 'A'), 0) AS sell_volume,
      count(*) FILTER (WHERE crossed = false) AS maker_fills, count(crossed) AS known_side_fills, max(${NOTIONAL}) AS max_fill,
      coalesce(sum(CAST(fee AS DOUBLE)), 0) AS fees, coalesce(sum(CAST(closed_pnl AS DOUBLE)), 0) AS pnl,
      bit_or(CAST(1 AS INTEGER) << CAST((ts // 3600000) % 24 AS INTEGER)) AS hour_mask, count(*) FILTER (WHERE cause = 'liquidation') AS liquidations,
      CAST(sum(ts - opened_at) FILTER (WHERE event_type IN ('close', 'flip') AND opened_at IS NOT NULL) AS BIGINT) AS hold_ms,
      count(*) FILTER (WHERE event_type IN ('close', 'flip') AND opened_at IS NOT NULL) AS holds
    FROM ${source} GROUP BY family, symbol, account, ${slotOf(slotHours)}`;
}

/** One wallet's fills over the rows: `avg_hold` is the mean time positions closed that day were held. */
export function combineFillStatsSql(rows: string): string {
  return `SELECT lower(address) AS address, CAST(sum(fills) AS BIGINT) AS fills, sum(buy_volume) AS buy_volume, sum(sell_volume) AS sell_volume,
      CAST(sum(maker_fills) AS BIGINT) AS maker_fills, CAST(sum(known_side_fills) AS BIGINT) AS known_side_fills, max(max_fill) AS max_fill,
      sum(fees) AS fees, sum(pnl) AS pnl, bit_count(bit_or(hour_mask)) AS hours, string_agg(DISTINCT symbol, ' ') AS symbols,
      CAST(sum(liquidations) AS BIGINT) AS liquidations, CASE WHEN sum(holds) > 0 THEN sum(hold_ms) / sum(holds) END AS avg_hold, count(*) AS pieces
    FROM ${rows} GROUP BY lower(address)`;
}

/**
 * A wallet's orders of one symbol and slot: each order's events in the slot make one order
 * (canceled, filled, IOC, ... if any event says so; its notional from its first event), and the
 * placement-to-cancel times of orders placed and canceled in the slot, as [ms, orders] pairs.
 */
export function walletOrderStatsSql(source: string, slotHours: number): string {
  return `WITH per_order AS (
      SELECT family, symbol, user_address AS address, ${slotOf(slotHours)} AS slot, oid,
        arg_min(abs(CAST(limit_price AS DOUBLE) * CAST(orig_size AS DOUBLE)), ts) AS notional,
        bool_or(event IN ('canceled', 'force_canceled')) AS canceled, bool_or(event = 'filled') AS filled,
        bool_or(tif = 'Ioc') AS ioc, bool_or(tif = 'Alo') AS alo, bool_or(is_position_tpsl) AS tpsl, bool_or(is_trigger) AS trig,
        bool_or(cloid IS NOT NULL) AS has_cloid, min(ts) FILTER (WHERE event = 'placed') AS placed_at, min(ts) FILTER (WHERE event = 'canceled') AS canceled_at
      FROM ${source} WHERE user_address IS NOT NULL GROUP BY family, symbol, user_address, oid, ${slotOf(slotHours)}),
    speeds AS (
      SELECT family, symbol, address, slot, CAST(to_json(list([ms, n] ORDER BY ms)) AS VARCHAR) AS cancel_speeds FROM (
        SELECT family, symbol, address, slot, canceled_at - placed_at AS ms, count(*) AS n FROM per_order WHERE canceled_at >= placed_at GROUP BY ALL)
      GROUP BY ALL),
    counts AS (
      SELECT family, symbol, address, slot, count(*) AS orders, count(*) FILTER (WHERE canceled) AS canceled, count(*) FILTER (WHERE filled) AS filled,
        count(*) FILTER (WHERE ioc) AS ioc, count(*) FILTER (WHERE alo) AS alo, count(*) FILTER (WHERE tpsl) AS tpsl, count(*) FILTER (WHERE trig) AS triggers,
        count(*) FILTER (WHERE has_cloid) AS cloids, sum(notional) AS notional_sum, count(notional) AS notionals, max(notional) AS max_notional
      FROM per_order GROUP BY ALL)
    SELECT c.family, c.symbol, c.address, c.slot AS ts, ${slotHours} AS slot_hours, c.* EXCLUDE (family, symbol, address, slot), s.cancel_speeds
    FROM counts c LEFT JOIN speeds s ON c.family = s.family AND c.symbol = s.symbol AND c.address = s.address AND c.slot = s.slot`;
}

/**
 * One wallet's orders over the rows. The median cancel speed is that of the merged distribution:
 * the mean of the speeds at the middle positions (one when the count is odd), as DuckDB's median.
 * `hourly`: some of them are counted per hour (hour rows, not a day's).
 */
export function combineOrderStatsSql(rows: string): string {
  return `WITH r AS (SELECT *, lower(address) AS wallet FROM ${rows}),
    speeds AS (
      SELECT wallet, p[1] AS ms, sum(p[2]) AS n
      FROM (SELECT wallet, unnest(json_transform(cancel_speeds, '[["BIGINT"]]')) AS p FROM r WHERE cancel_speeds IS NOT NULL) GROUP BY ALL),
    ranked AS (SELECT wallet, ms, sum(n) OVER (PARTITION BY wallet ORDER BY ms) AS upto, sum(n) OVER (PARTITION BY wallet) AS total FROM speeds),
    medians AS (
      SELECT wallet, (min(ms) FILTER (WHERE upto >= (total - 1) // 2 + 1) + min(ms) FILTER (WHERE upto >= total // 2 + 1)) / 2 AS cancel_speed
      FROM ranked GROUP BY wallet)
    SELECT r.wallet AS address, CAST(sum(orders) AS BIGINT) AS orders, CAST(sum(canceled) AS BIGINT) AS canceled, CAST(sum(filled) AS BIGINT) AS filled,
      CAST(sum(ioc) AS BIGINT) AS ioc, CAST(sum(alo) AS BIGINT) AS alo, CAST(sum(tpsl) AS BIGINT) AS tpsl, CAST(sum(triggers) AS BIGINT) AS triggers,
      CAST(sum(cloids) AS BIGINT) AS cloids, CASE WHEN sum(notionals) > 0 THEN sum(notional_sum) / sum(notionals) END AS avg_order_usd,
      max(max_notional) AS max_order_usd, any_value(m.cancel_speed) AS cancel_speed, string_agg(DISTINCT symbol, ' ') AS symbols, count(*) AS pieces,
      bool_or(slot_hours < 24) AS hourly
    FROM r LEFT JOIN medians m ON r.wallet = m.wallet GROUP BY r.wallet`;
}

/**
 * What only a taker's trade row says (TWAP slice, priority gas, builder fee), per builder so the
 * top one is found over any rows. Every trade of a wallet counts in `marked` only when it says one
 * of these: the others keep a slot's row (a file per slot) and add nothing.
 */
export function walletTradeStatsSql(source: string, slotHours: number): string {
  return `SELECT family, symbol, user_address AS address, ${slotOf(slotHours)} AS ts, ${slotHours} AS slot_hours, builder_address,
      count(*) FILTER (WHERE twap_id IS NOT NULL OR priority_gas IS NOT NULL OR builder_address IS NOT NULL) AS marked,
      count(twap_id) AS twap_fills, coalesce(sum(CAST(priority_gas AS DOUBLE)), 0) AS priority_gas,
      coalesce(sum(CAST(builder_fee AS DOUBLE)), 0) AS builder_fees, count(*) AS builder_trades
    FROM ${source} WHERE user_address IS NOT NULL GROUP BY family, symbol, user_address, ${slotOf(slotHours)}, builder_address`;
}

/**
 * One wallet's trades over the rows; the top builder is the one of most of its trades (ties: the
 * lowest address). `marked` 0: no trade the wallet's metrics count (the reader leaves it out).
 */
export function combineTradeStatsSql(rows: string): string {
  return `SELECT wallet AS address, CAST(sum(marked) AS BIGINT) AS marked, CAST(sum(twap_fills) AS BIGINT) AS twap_fills, sum(priority_gas) AS priority_gas,
      sum(builder_fees) AS builder_fees, first(builder_address ORDER BY trades DESC, builder_address) FILTER (WHERE builder_address IS NOT NULL) AS top_builder,
      CAST(sum(pieces) AS BIGINT) AS pieces
    FROM (SELECT lower(address) AS wallet, builder_address, sum(marked) AS marked, sum(twap_fills) AS twap_fills, sum(priority_gas) AS priority_gas,
            sum(builder_fees) AS builder_fees, sum(builder_trades) AS trades, count(*) AS pieces
          FROM ${rows} GROUP BY ALL)
    GROUP BY wallet`;
}

/** The three datasets: each one's source, derivation and combination. */
export const WALLET_STATS = {
  wallet_fill_stats: { source: 'position_changes', derive: walletFillStatsSql, combine: combineFillStatsSql },
  wallet_order_stats: { source: 'order_events', derive: walletOrderStatsSql, combine: combineOrderStatsSql },
  wallet_trade_stats: { source: 'trades', derive: walletTradeStatsSql, combine: combineTradeStatsSql },
} as const;
export type WalletStatsDataset = keyof typeof WALLET_STATS;
