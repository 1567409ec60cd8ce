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
