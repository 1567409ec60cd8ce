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

/** market.pga_payment's floor and daily cap (see core/events/kit/reads.ts PGA, which uses these). */
export const PGA_MIN_AMOUNT = 1.5;
export const PGA_PER_DAY = 50;

/** The bucket of an event whose value is zero, negative or missing (counted, but below every edge). */
export const NO_VALUE_BUCKET = -1_000_000;

/**
 * The estimable types' hourly rollups (issue 23), one entry per derived dataset: `events` turns
 * the source's rows into one row per event the type's detector finds (`family, symbol, ts, value`,
 * plus `address` for per-wallet rollups), computed as the detector computes it; `rollupSql` then
 * counts them per symbol (and wallet), UTC hour and value bucket. The derived datasets' columns
 * are declared in schemas/datasets.ts; compaction derives each from its source like candles.
 */
export const ROLLUPS = {
  /** market.liquidation: the fills of one account, market and instant are one event, its notional the sum of size x price to cents. */
  liquidation_rollups_1h: {
    source: 'liquidations',
    perWallet: false,
    events: (source: string) => `SELECT family, symbol, ts, round(sum(CAST(size AS DOUBLE) * CAST(price AS DOUBLE) ORDER BY trade_id), 2) AS value
      FROM ${source} GROUP BY family, symbol, liquidated_user, ts`,
  },
  /** account.liquidated: the same events, kept per liquidated wallet. */
  account_liquidation_rollups_1h: {
    source: 'liquidations',
    perWallet: true,
    events: (
      source: string,
    ) => `SELECT family, symbol, liquidated_user AS address, ts, round(sum(CAST(size AS DOUBLE) * CAST(price AS DOUBLE) ORDER BY trade_id), 2) AS value
      FROM ${source} GROUP BY family, symbol, liquidated_user, ts`,
  },
  /** account.fill: the fills of one address, market, side and instant are one event (an order sweep). */
  fill_rollups_1h: {
    source: 'trades',
    perWallet: true,
    events: (
      source: string,
    ) => `SELECT family, symbol, user_address AS address, ts, round(sum(CAST(size AS DOUBLE) * CAST(price AS DOUBLE) ORDER BY trade_id), 2) AS value
      FROM ${source} WHERE user_address IS NOT NULL AND user_address <> '' GROUP BY family, symbol, user_address, side, ts`,
  },
  /** account.transfer: one event per ledger row (a send is a row per side), its value usdc_value to cents. */
  transfer_rollups_1h: {
    source: 'transfers',
    perWallet: true,
    events: (source: string) => `SELECT family, symbol, user_address AS address, ts, round(CAST(usdc_value AS DOUBLE), 2) AS value FROM ${source}`,
  },
} as const;
export type RollupDataset = keyof typeof ROLLUPS;

/**
 * Events per symbol (and wallet), UTC hour and value bucket (floor(16 log10 value); values of
 * zero or less in NO_VALUE_BUCKET), with the largest value of each cell.
 */
export function rollupSql(rollup: RollupDataset, source: string): string {
  const { events, perWallet } = ROLLUPS[rollup];
  const keys = `family, symbol, ${perWallet ? 'address, ' : ''}(ts // 3600000) * 3600000`;
  return `SELECT ${keys} AS ts,
      CASE WHEN value > 0 THEN CAST(floor(log10(value) * ${ROLLUP_BUCKETS_PER_DECADE}) AS INTEGER) ELSE ${NO_VALUE_BUCKET} END AS bucket,
      count(*) AS events,
      max(value) AS max_notional
    FROM (${events(source)})
    GROUP BY ${keys}, bucket`;
}

/**
 * Reductions (issue 23): derived datasets that keep, per symbol and UTC hour, only the source rows
 * a param-free minute detector needs, so an estimate runs the detector itself over the lookback
 * (exact) reading a small share of the rows. `rows` must be computable per symbol and hour (the
 * reduction of a slot is the union of its symbols' and hours' reductions), because compaction
 * rebuilds a slot a few symbols at a time and the reader reduces uncovered hours of the raw
 * source with the same SQL. Every symbol-hour with source rows also gets one `marker` row (no
 * payload), so a slot is written, and counts as covered, even when it keeps no row.
 */
export const REDUCTIONS = {
  /** market.funding_flip compares settled (on-the-hour) rates only: the running predictions between hours are dropped. */
  funding_rates_1h: {
    source: 'funding',
    rows: (source: string) => `SELECT family, symbol, ts, funding_rate FROM ${source} WHERE ts % 3600000 = 0`,
  },
  /**
   * market.pga_payment takes the first 50 payments of 1.5 native tokens or more of each UTC day:
   * those are among the first 50 of their symbol and hour, which is all this keeps.
   */
  pga_payments_1h: {
    source: 'trades',
    rows: (source: string) => `SELECT family, symbol, ts, trade_id, user_address, CAST(priority_gas AS DOUBLE) AS amount FROM ${source}
      WHERE priority_gas IS NOT NULL AND CAST(priority_gas AS DOUBLE) >= ${PGA_MIN_AMOUNT}
      QUALIFY row_number() OVER (PARTITION BY family, symbol, ts // 3600000 ORDER BY ts, trade_id) <= ${PGA_PER_DAY}`,
  },
  /**
   * oracle.jump compares each oracle update with the one before it, and fires from a 0.1% move up:
   * per symbol and hour, the updates that move at least that much from the one before, the ones
   * before those, and the hour's first and last update (whose neighbours are in other hours), each
   * with the time and price of the update before it in the hour (null for the first).
   */
  oracle_moves_1h: {
    source: 'open_interest',
    rows: (source: string) => `SELECT family, symbol, ts, oracle_price, prev_ts, prev_price FROM (
        SELECT family, symbol, ts, oracle_price, lag(ts) OVER w AS prev_ts, lag(oracle_price) OVER w AS prev_price,
          CAST(oracle_price AS DOUBLE) AS p, lag(CAST(oracle_price AS DOUBLE)) OVER w AS pp, lead(CAST(oracle_price AS DOUBLE)) OVER w AS np
        FROM ${source} WHERE CAST(oracle_price AS DOUBLE) > 0
        WINDOW w AS (PARTITION BY family, symbol, ts // 3600000 ORDER BY ts))
      WHERE pp IS NULL OR np IS NULL OR abs(p / pp - 1) >= ${ORACLE_MOVE_PREFILTER} OR abs(np / p - 1) >= ${ORACLE_MOVE_PREFILTER}`,
  },
  /**
   * market.liquidation_burst sums fills over trailing windows of whole minutes judged at minute ends:
   * per market, minute (the fills in (end - 1 min, end]) and UTC hour, one row of their summed
   * notional and count, at the time of the minute's first fill (any time inside the minute is
   * inside the same windows).
   */
  liquidation_minutes_1h: {
    source: 'liquidations',
    rows: (source: string) => `SELECT family, symbol, min(ts) AS ts, sum(CAST(price AS DOUBLE) * CAST(size AS DOUBLE)) AS notional, count(*) AS fills
      FROM ${source} GROUP BY family, symbol, (ts - 1) // 60000, ts // 3600000`,
  },
} as const;
export type ReductionDataset = keyof typeof REDUCTIONS;

/** Moves kept by oracle_moves_1h: a little under oracle.jump's lowest threshold (0.1%), so none that could fire is dropped. */
export const ORACLE_MOVE_PREFILTER = 0.00099;

/** A reduction's rows plus one marker row per symbol and hour of the source (see REDUCTIONS). */
export function reductionSql(reduction: ReductionDataset, source: string): string {
  return `SELECT * FROM (${REDUCTIONS[reduction].rows(source)})
    UNION ALL BY NAME
    SELECT family, symbol, min(ts) AS ts, true AS marker FROM ${source} GROUP BY family, symbol, ts // 3600000`;
}

/** market.oi_delta's windows (its `window_s` menu): the crossings rollup keeps each. */
export const OI_DELTA_WINDOWS_S = [300, 900, 3600] as const;
/** market.oi_delta's lowest threshold (percent) and cost floor (open interest in USD). */
export const OI_DELTA_LOWEST_PCT = 0.1;
export const OI_DELTA_FLOOR_USD = 100_000;

/**
 * market.oi_delta's crossings of the slot starting at `$slot_from`, from open-interest rows that
 * start two hours before it. For each row with a base (the last row at or before its time minus
 * the window, by ASOF join) its move d = round((usd / base usd - 1) x 100, 8), as the detector
 * computes it; the row fires at a threshold T > 0 exactly when |d| >= T > L, where L is the
 * previous row's |move| if that moved the same way and 0 otherwise (the previous state was not
 * this direction at T). So the crossings at any T are #{|d| >= T} - #{L >= T} over the rows with
 * L < |d|: two histograms (`upper`, `lower`, 16 buckets a decade), exact at bucket edges. `first`
 * holds the moves of the rows that fire at the lowest threshold, for the distribution. Rows under
 * the cost floor are left out, as the matcher leaves them. Each market with rows in the slot also
 * gets a `marker` row, so a slot is written, and counts as covered, even when nothing crosses.
 */
export function oiCrossingsSql(source: string, slotHours: number): string {
  const bucket = (v: string) => `CAST(floor(log10(${v}) * ${ROLLUP_BUCKETS_PER_DECADE}) AS INTEGER)`;
  return `WITH rows AS (
      SELECT family, symbol, ts, CAST(open_interest AS DOUBLE) * CAST(coalesce(mark_price, oracle_price, '0') AS DOUBLE) AS usd FROM ${source}),
    asked AS (SELECT r.*, w.window_s, r.ts - w.window_s * 1000 AS base_at FROM rows r CROSS JOIN (SELECT unnest([${OI_DELTA_WINDOWS_S.join(', ')}]) AS window_s) w),
    moves AS (
      SELECT a.family, a.symbol, a.ts, a.window_s, a.usd, CASE WHEN b.usd > 0 THEN round((a.usd / b.usd - 1) * 100, 8) END AS d
      FROM asked a ASOF LEFT JOIN rows b ON a.family = b.family AND a.symbol = b.symbol AND a.base_at >= b.ts),
    judged AS (
      SELECT *, lag(d) OVER w AS prev_d, row_number() OVER w AS n FROM moves
      WINDOW w AS (PARTITION BY family, symbol, window_s ORDER BY ts)),
    firing AS (
      SELECT family, symbol, window_s, CASE WHEN d > 0 THEN 'up' ELSE 'down' END AS direction, abs(d) AS upper,
        CASE WHEN prev_d IS NOT NULL AND sign(prev_d) = sign(d) THEN abs(prev_d) ELSE 0 END AS lower
      FROM judged WHERE ts >= $slot_from AND n > 1 AND d IS NOT NULL AND d <> 0 AND round(usd, 2) >= ${OI_DELTA_FLOOR_USD}),
    kept AS (SELECT * FROM firing WHERE lower < upper)
    SELECT family, symbol, $slot_from AS ts, ${slotHours} AS slot_hours, window_s, direction, kind, bucket, count(*) AS events, max(upper) AS max_delta FROM (
      SELECT *, 'upper' AS kind, ${bucket('upper')} AS bucket FROM kept
      UNION ALL SELECT *, 'lower', ${bucket('lower')} FROM kept WHERE lower > 0
      UNION ALL SELECT *, 'first', ${bucket('upper')} FROM kept WHERE lower < ${OI_DELTA_LOWEST_PCT} AND upper >= ${OI_DELTA_LOWEST_PCT})
    GROUP BY ALL
    UNION ALL BY NAME
    SELECT family, symbol, $slot_from AS ts, ${slotHours} AS slot_hours, 'marker' AS kind, 0 AS events FROM rows WHERE ts >= $slot_from GROUP BY family, symbol`;
}

/**
 * A checkpoint's JSON sides as one row per resting order (`l4_checkpoint_orders`): each order's
 * tuple [oid, owner, price, size, placed-at or null, original size?] read as text, with its place
 * in the side (`rank`, from 0, best first and in queue order within a price).
 */
export function checkpointOrdersSql(source: string): string {
  const side = (name: 'B' | 'A', column: 'bids' | 'asks') => `SELECT family, symbol, ts, block_number, seq, '${name}' AS side,
      unnest(range(len(l))) AS rank, unnest(l) AS o FROM (SELECT *, json_transform(${column}, '[["VARCHAR"]]') AS l FROM ${source})`;
  return `SELECT family, symbol, ts, block_number, seq, side, CAST(rank AS INTEGER) AS rank, CAST(o[1] AS BIGINT) AS oid,
      o[2] AS user_address, o[3] AS price, o[4] AS size, CAST(o[5] AS BIGINT) AS placed_at, o[6] AS orig_size
    FROM (${side('B', 'bids')} UNION ALL ${side('A', 'asks')})`;
}
