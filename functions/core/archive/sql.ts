/**
 * Pure SQL builders for the archive. User values are always bound parameters (`$name`); the only
 * identifiers spliced in come from the dataset definitions in schemas/datasets.ts.
 */

/**
 * 1-minute candles from trade rows: open is the first trade and close the last (by time, then
 * trade id), high and low the extremes, volumes and counts summed. A minute without trades yields
 * no row: a missing bar is not a zero bar.
 */
export function candlesFromTradesSql(source: string): string {
  return `SELECT family, symbol, (ts // 60000) * 60000 AS ts,
      first(CAST(price AS DOUBLE) ORDER BY ts, trade_id) AS open,
      max(CAST(price AS DOUBLE)) AS high,
      min(CAST(price AS DOUBLE)) AS low,
      last(CAST(price AS DOUBLE) ORDER BY ts, trade_id) AS close,
      sum(CAST(size AS DOUBLE)) AS volume,
      sum(CAST(price AS DOUBLE) * CAST(size AS DOUBLE)) AS quote_volume,
      count(*) AS trade_count,
      min(ts) AS open_ts,
      max(ts) AS close_ts
    FROM ${source}
    GROUP BY family, symbol, (ts // 60000) * 60000`;
}

/** Buckets a decade of a rollup's notional histogram: bucket b holds [10^(b/16), 10^((b+1)/16)), about 15% wide. */
export const ROLLUP_BUCKETS_PER_DECADE = 16;

/**
 * Liquidation events per symbol, UTC hour and notional bucket, from liquidation rows: the fills of
 * one account, market and instant are one event (as market.liquidation collapses them), its
 * notional the sum of size times price rounded to cents, as the detector computes it.
 */
export function liquidationRollupSql(source: string): string {
  return `SELECT family, symbol, (ts // 3600000) * 3600000 AS ts,
      CAST(floor(log10(notional) * ${ROLLUP_BUCKETS_PER_DECADE}) AS INTEGER) AS bucket,
      count(*) AS events,
      max(notional) AS max_notional
    FROM (SELECT family, symbol, ts, liquidated_user, round(sum(CAST(size AS DOUBLE) * CAST(price AS DOUBLE)), 2) AS notional
          FROM ${source} GROUP BY family, symbol, liquidated_user, ts)
    WHERE notional > 0
    GROUP BY family, symbol, (ts // 3600000) * 3600000, bucket`;
}
