/**
 * The L4 book at an instant shaped in DuckDB (issue 43): the checkpoint's resting orders, one row
 * each (`l4_checkpoint_orders`), joined with the diffs after it netted per order (orderbook-net.ts),
 * ordered and rendered as the response's JSON in one query. At 51,000 orders, parsing the JSON
 * checkpoint and building the response object by object was most of the read's time.
 *
 * An order's state at the instant, from its kept diffs (K, in (block, seq) order):
 *   - K holds a removal (a `remove` or a `new` of size 0): it rests no more;
 *   - K holds a placement (a `new` of non-zero size; at most one, K's first): it rests as placed,
 *     queued after the checkpoint's orders of its price in the order of the placements, replacing
 *     any checkpoint order of that oid;
 *   - otherwise (updates only) the checkpoint's order, if it held one: an update names no other;
 *   - and its size is its last update's, unless an update took it to 0 (it rests no more, and a
 *     later update names an order the book no longer holds).
 * That is what replaying the kept diffs on L4Book gives (property-tested against it in
 * `test/integration/l4-netted-replay.test.ts`). A window the netting cannot take (a queue jump,
 * or an order placed and gone inside it that the checkpoint held) answers `undefined`, and so does
 * a checkpoint whose orders are not columnar yet: the caller then replays in JavaScript.
 */
import type { ArchiveDeps } from '#ports/archive.ts';
import type { SqlValue } from '#ports/sql.ts';
import type { Family } from '../venues.ts';
import { windowSource } from '../archive/read.ts';
import { isoSql } from './shape.ts';
import { BY_ORDER, WINDOW } from './orderbook-net.ts';

/** The checkpoint a book starts from: its time and the (block, seq) of the last diff it includes. */
export interface CheckpointHead {
  ts: number;
  block_number: number;
  seq: number;
}

export interface L4Shape {
  symbol: string;
  at: number;
  depth: number | undefined;
}

const NO_DIFFS = `SELECT NULL::BIGINT AS ts, NULL::BIGINT AS block_number, NULL::BIGINT AS seq, NULL::BIGINT AS oid, NULL::VARCHAR AS user_address,
  NULL::VARCHAR AS side, NULL::VARCHAR AS price, NULL::VARCHAR AS diff_type, NULL::VARCHAR AS new_size, NULL::BIGINT AS insert_before WHERE false`;

const ZERO = (size: string) => `coalesce(TRY_CAST(${size} AS DOUBLE), 0) = 0`;

/** The per-order fold of the kept diffs, then the resting orders (checkpoint's first within a price: `grp` 0, by rank; placed ones `grp` 1, by position). */
const BOOK = `
  k AS MATERIALIZED (
    SELECT w.* FROM w JOIN o USING (oid)
    WHERE o.last_reset IS NULL OR (NOT o.ends_gone AND w.pos >= o.last_reset) OR (o.ends_gone AND NOT o.has_new AND w.pos = o.last_reset)),
  f AS (
    SELECT oid,
      bool_or(diff_type = 'remove' OR (diff_type = 'new' AND ${ZERO('new_size')}) OR (diff_type = 'update' AND ${ZERO('new_size')})) AS gone,
      min(pos) FILTER (WHERE diff_type = 'new') AS p_pos,
      arg_min(side, pos) FILTER (WHERE diff_type = 'new') AS p_side, arg_min(price, pos) FILTER (WHERE diff_type = 'new') AS p_price,
      arg_min(user_address, pos) FILTER (WHERE diff_type = 'new') AS p_user, arg_min(ts, pos) FILTER (WHERE diff_type = 'new') AS p_ts,
      arg_min(new_size, pos) FILTER (WHERE diff_type = 'new') AS p_size,
      arg_max(new_size, pos) FILTER (WHERE diff_type = 'update') AS u_size
    FROM k GROUP BY oid),
  book AS (
    SELECT ck.side, ck.price, 0 AS grp, ck.rank AS q, ck.oid, ck.user_address, coalesce(f.u_size, ck.size) AS size, ck.placed_at
    FROM ck LEFT JOIN f USING (oid) WHERE f.oid IS NULL OR (f.p_pos IS NULL AND NOT f.gone)
    UNION ALL
    SELECT p_side, p_price, 1, p_pos, oid, p_user, coalesce(u_size, p_size), p_ts FROM f WHERE p_pos IS NOT NULL AND NOT gone)`;

/** Parameter names of a window source renamed (`$s_x` to `$<prefix>_x`), so two sources share a statement. */
function renamed(source: { sql: string; params: Record<string, SqlValue> }, prefix: string) {
  const params = Object.fromEntries(Object.entries(source.params).map(([k, v]) => [k.replace(/^s_/, `${prefix}_`), v]));
  return { sql: source.sql.replace(/\$s_(\w+)/g, `$${prefix}_$1`), params };
}

/** A decimal's canonical text (no trailing fractional zeros, no lone dot), as core/book/decimal.ts writes it. */
const canonical = (decimal: string) => `rtrim(rtrim(CAST(${decimal} AS VARCHAR), '0'), '.')`;

/** An exact decimal sum as a JSON number: the canonical text parsed, as `Number(sumDecimals(...))` does. */
const sumNumber = (column: string) => `CAST(${canonical(`coalesce(sum(CAST(${column} AS DECIMAL(38, 18))), 0)`)} AS DOUBLE)`;

/**
 * The statement's common part: the checkpoint's orders (`ck`), the window's diffs (`w`, `o`), the
 * resting orders (`book`), and `refused` (true when the window cannot be netted); undefined when
 * the checkpoint has no order rows.
 */
async function bookStatement(deps: ArchiveDeps, family: Family, head: CheckpointHead, symbol: string, at: number) {
  const orders = await windowSource(deps, { dataset: 'l4_checkpoint_orders', family, symbol, from: head.ts, to: head.ts });
  if (!orders) return undefined;
  const ck = renamed(orders, 'c');
  const diffs = await windowSource(deps, { dataset: 'l4_diffs', family, symbol, from: head.ts, to: at });
  const window = WINDOW.replace('SOURCE', diffs?.sql ?? NO_DIFFS);
  return {
    ctes: `WITH ck AS MATERIALIZED (SELECT side, rank, oid, user_address, price, size, placed_at FROM (${ck.sql})),
      w AS MATERIALIZED (${window}), o AS MATERIALIZED (${BY_ORDER}), ${BOOK}`,
    checks: `(SELECT count(*) FROM ck) AS n_ck, coalesce((SELECT bool_or(insert_before IS NOT NULL) FROM w), false)
      OR EXISTS (SELECT 1 FROM o JOIN ck USING (oid) WHERE o.ends_gone AND o.has_new) AS refused`,
    params: { ...ck.params, ...diffs?.params, d_block: head.block_number, d_seq: head.seq },
  };
}

interface Checked {
  n_ck: number | bigint;
  refused: boolean;
}

/** Whether the statement's answer stands: no order rows for the checkpoint (not derived yet, or an empty book, which the JSON sides give as cheaply) or a window the netting cannot take do not. */
const stands = (row: Checked | undefined): row is Checked => row !== undefined && Number(row.n_ck) > 0 && !row.refused;

/**
 * The L4 snapshot's JSON text at `shape.at` from `head`, or undefined when it must be replayed in
 * JavaScript (see above). `depth` keeps that many orders a side; counts and totals are the whole side's.
 */
export async function l4BookJson(deps: ArchiveDeps, family: Family, head: CheckpointHead, shape: L4Shape): Promise<string | undefined> {
  const statement = await bookStatement(deps, family, head, shape.symbol, shape.at);
  if (!statement) return undefined;
  const side = (name: string) => `coalesce((SELECT orders FROM lists WHERE side = '${name}'), [])`;
  const of = (name: string, what: 'n' | 'total') => `coalesce((SELECT ${what} FROM sides WHERE side = '${name}'), 0)`;
  // Counts, totals and the touch are over the whole side; only the orders a page shows are ranked
  // into lists and rendered (at venue depth, building and rendering every order was most of the read).
  const [row] = await deps.sql.query<Checked & { crossed: boolean | null; json: string }>({
    sql: `${statement.ctes}, sides AS (
        SELECT side, count(*) AS n, ${sumNumber('size')} AS total,
          CASE WHEN side = 'B' THEN max(CAST(price AS DOUBLE)) ELSE min(CAST(price AS DOUBLE)) END AS best
        FROM book GROUP BY side),
      shown AS (
        SELECT *, row_number() OVER (PARTITION BY side ORDER BY CASE WHEN side = 'B' THEN -CAST(price AS DOUBLE) ELSE CAST(price AS DOUBLE) END, grp, q) AS r
        FROM book ${shape.depth === undefined ? '' : 'QUALIFY r <= $depth'}),
      lists AS (
        SELECT side, list({'oid': oid, 'user_address': user_address, 'side': side, 'price': CAST(price AS DOUBLE), 'size': CAST(size AS DOUBLE),
            'timestamp': ${isoSql('placed_at')}, 'timestamp_ms': placed_at} ORDER BY r) AS orders
        FROM shown GROUP BY side)
      SELECT ${statement.checks},
        (SELECT max(best) FILTER (WHERE side = 'B') >= min(best) FILTER (WHERE side = 'A') FROM sides) AS crossed,
        to_json({'coin': $coin, 'timestamp': $at_iso, 'checkpoint_timestamp': $ck_iso, 'diffs_applied': (SELECT count(*) FROM w),
          'last_block_number': coalesce((SELECT arg_max(block_number, pos) FROM w), $d_block),
          'bids': ${side('B')}, 'asks': ${side('A')}, 'bid_count': ${of('B', 'n')}, 'ask_count': ${of('A', 'n')},
          'total_bid_size': ${of('B', 'total')}::DOUBLE, 'total_ask_size': ${of('A', 'total')}::DOUBLE})::VARCHAR AS json`,
    params: {
      ...statement.params,
      coin: shape.symbol,
      at_iso: new Date(shape.at).toISOString(),
      ck_iso: new Date(head.ts).toISOString(),
      ...(shape.depth !== undefined && { depth: shape.depth }),
    },
  });
  if (!stands(row)) return undefined;
  // Present only when crossed, as the JavaScript book reports it.
  return row.crossed ? `${row.json.slice(0, -1)},"is_crossed":true}` : row.json;
}

/** A full-depth side's levels (JSON text, best first, `depth` of them), its level count, total and best price (canonical). */
export interface ShapedLevels {
  bids: string;
  asks: string;
  bid_levels: number;
  ask_levels: number;
  total_bid_size: number;
  total_ask_size: number;
  best_bid: string | null;
  best_ask: string | null;
}

/**
 * The full-depth L2 book at `shape.at` from `head`: the resting orders aggregated by price in SQL
 * (exact decimal sums, canonical text, as L4Book.levels gives them); undefined as for l4BookJson.
 */
export async function l2Levels(deps: ArchiveDeps, family: Family, head: CheckpointHead, shape: L4Shape): Promise<ShapedLevels | undefined> {
  const statement = await bookStatement(deps, family, head, shape.symbol, shape.at);
  if (!statement) return undefined;
  const levels = (name: string) =>
    `coalesce((SELECT to_json(${shape.depth === undefined ? 'levels' : 'list_slice(levels, 1, $depth)'}) FROM sides WHERE side = '${name}'), '[]')::VARCHAR`;
  const of = (name: string, what: string) => `(SELECT ${what} FROM sides WHERE side = '${name}')`;
  const [row] = await deps.sql.query<Checked & Omit<ShapedLevels, 'bid_levels' | 'ask_levels'> & { bid_levels: number | bigint; ask_levels: number | bigint }>({
    sql: `${statement.ctes},
      lv AS (SELECT side, CAST(price AS DECIMAL(38, 18)) AS px, sum(CAST(size AS DECIMAL(38, 18))) AS sz, count(*) AS n FROM book GROUP BY side, px),
      sides AS (
        SELECT side, count(*) AS n, CAST(${canonical('sum(sz)')} AS DOUBLE) AS total,
          ${canonical("CASE WHEN side = 'B' THEN max(px) ELSE min(px) END")} AS best,
          list({'px': ${canonical('px')}, 'sz': ${canonical('sz')}, 'n': n} ORDER BY CASE WHEN side = 'B' THEN -px ELSE px END) AS levels
        FROM lv GROUP BY side)
      SELECT ${statement.checks}, ${levels('B')} AS bids, ${levels('A')} AS asks,
        coalesce(${of('B', 'n')}, 0) AS bid_levels, coalesce(${of('A', 'n')}, 0) AS ask_levels,
        coalesce(${of('B', 'total')}, 0)::DOUBLE AS total_bid_size, coalesce(${of('A', 'total')}, 0)::DOUBLE AS total_ask_size,
        ${of('B', 'best')} AS best_bid, ${of('A', 'best')} AS best_ask`,
    params: { ...statement.params, ...(shape.depth !== undefined && { depth: shape.depth }) },
  });
  if (!stands(row)) return undefined;
  const { bids, asks, total_bid_size, total_ask_size, best_bid, best_ask } = row;
  return { bids, asks, bid_levels: Number(row.bid_levels), ask_levels: Number(row.ask_levels), total_bid_size, total_ask_size, best_bid, best_ask };
}
