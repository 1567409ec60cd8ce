/**
 * Wallet classification (`/wallets/classify`, core and hip3): one UTC day of a family's wallets,
 * each with metrics from its fills (its position legs: holding times, liquidations too), its
 * order events and its trades (TWAP, priority gas, builder), and the class the archive's rule gives (CLASS_RULE in
 * schemas/wallet-classes.ts). Filtered, sorted and offset-paged as the reference service's route is.
 */
import { AppError } from '../errors.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { Row } from '#ports/sql.ts';
import { windowSource } from '../archive/read.ts';
import type { Family } from '../venues.ts';
import { isPositionFamily } from './engine.ts';
import { latestSnapshotAt } from './store.ts';
import {
  CLASS_THRESHOLDS as T, WALLET_SORTS, type ClassifiedWallet, type WalletClass, type WalletClassification, type WalletMetrics, type WalletSort,
} from '#schemas/wallet-classes.ts';

const DAY = 86_400_000;

/** The rule: the first class whose condition the day's metrics meet. */
export function classOf(m: Pick<WalletMetrics, 'total_fills' | 'maker_ratio' | 'avg_holding_ms' | 'total_volume_usd'>): WalletClass {
  const active = m.total_fills >= T.activeFills;
  if (active && m.maker_ratio !== undefined && m.maker_ratio >= T.makerRatio) return 'market_maker';
  if (active && m.avg_holding_ms !== undefined && m.avg_holding_ms < T.fastHoldMs) return 'high_frequency';
  if (m.total_volume_usd >= T.whaleVolumeUsd) return 'whale';
  if (m.avg_holding_ms !== undefined && m.avg_holding_ms >= T.slowHoldMs) return 'position_trader';
  return 'retail';
}

const num = (value: unknown) => (value == null ? 0 : Number(value));
const opt = (value: unknown) => (value == null ? undefined : Number(value));
const share = (part: number, whole: number) => (whole > 0 ? part / whole : undefined);
const symbolsOf = (row: Row | undefined) => (row?.symbols ? String(row.symbols).split(' ') : []);
/** Members whose value is undefined are left out (absent, never null). */
const defined = <O extends object>(o: O) => Object.fromEntries(Object.entries(o).filter(([, value]) => value !== undefined)) as O;

/** A wallet's metrics from its rows of the three aggregates (any may be missing: no fill, no order, no TWAP, gas or builder fill). */
export function metricsOf(fills: Row | undefined, orders: Row | undefined, trades: Row | undefined): WalletMetrics {
  const totalOrders = num(orders?.orders);
  const totalFills = num(fills?.fills);
  const [buy, sell] = [num(fills?.buy_volume), num(fills?.sell_volume)];
  const twapFills = num(trades?.twap_fills);
  return defined({
    total_orders: totalOrders,
    cancel_rate: share(num(orders?.canceled), totalOrders), fill_rate: share(num(orders?.filled), totalOrders),
    order_to_trade_ratio: share(totalOrders, totalFills),
    ioc_ratio: share(num(orders?.ioc), totalOrders), post_only_ratio: share(num(orders?.alo), totalOrders),
    tpsl_ratio: share(num(orders?.tpsl), totalOrders), trigger_order_ratio: share(num(orders?.triggers), totalOrders),
    uses_tpsl: num(orders?.tpsl) > 0, uses_cloid: num(orders?.cloids) > 0, cloid_ratio: share(num(orders?.cloids), totalOrders),
    avg_order_size_usd: opt(orders?.avg_order_usd), max_order_size_usd: opt(orders?.max_order_usd), median_cancel_speed_ms: opt(orders?.cancel_speed),
    unique_coins_traded: new Set([...symbolsOf(orders), ...symbolsOf(fills)]).size,
    total_fills: totalFills, total_volume_usd: buy + sell, maker_ratio: share(num(fills?.maker_fills), num(fills?.known_side_fills)),
    long_short_ratio: share(buy, sell), buy_volume_usd: buy, sell_volume_usd: sell,
    total_fees_usd: num(fills?.fees), realized_pnl_usd: num(fills?.pnl), liquidation_count: num(fills?.liquidations),
    max_single_fill_usd: opt(fills?.max_fill), unique_fill_coins: symbolsOf(fills).length, active_hours: num(fills?.hours),
    avg_holding_ms: opt(fills?.avg_hold),
    uses_twap: twapFills > 0, twap_fills: twapFills, twap_fill_ratio: share(twapFills, totalFills),
    uses_priority_gas: num(trades?.priority_gas) > 0, total_priority_gas_paid: num(trades?.priority_gas),
    uses_builder: trades?.top_builder != null, top_builder: trades?.top_builder == null ? undefined : String(trades.top_builder),
    total_builder_fees_paid: num(trades?.builder_fees),
  });
}

const NOTIONAL = 'abs(CAST(price AS DOUBLE) * CAST(size AS DOUBLE))';
/**
 * A wallet's fills are its position legs (one per fill and side, maker and taker alike: a trade row
 * names its maker only as `maker_address`); what only the taker's trade row says (TWAP slice,
 * priority gas, builder fee) comes from the trades (TRADES_SQL).
 */
const FILLS_SQL = (source: string) => `SELECT account AS address, count(*) AS fills,
  coalesce(sum(${NOTIONAL}) FILTER (WHERE side = 'B'), 0) AS buy_volume, coalesce(sum(${NOTIONAL}) FILTER (WHERE side = 'A'), 0) AS sell_volume,
  count(*) FILTER (WHERE crossed = false) AS maker_fills, count(crossed) AS known_side_fills, max(${NOTIONAL}) AS max_fill,
  coalesce(sum(CAST(fee AS DOUBLE)), 0) AS fees, coalesce(sum(CAST(closed_pnl AS DOUBLE)), 0) AS pnl,
  count(DISTINCT ts // 3600000) AS hours, string_agg(DISTINCT symbol, ' ') AS symbols, count(*) FILTER (WHERE cause = 'liquidation') AS liquidations,
  avg(ts - opened_at) FILTER (WHERE event_type IN ('close', 'flip') AND opened_at IS NOT NULL) AS avg_hold
FROM (${source}) GROUP BY account`;
const TRADES_SQL = (source: string) => `SELECT user_address AS address, count(twap_id) AS twap_fills,
  coalesce(sum(CAST(priority_gas AS DOUBLE)), 0) AS priority_gas, coalesce(sum(CAST(builder_fee AS DOUBLE)), 0) AS builder_fees, mode(builder_address) AS top_builder
FROM (${source}) WHERE user_address IS NOT NULL AND (twap_id IS NOT NULL OR priority_gas IS NOT NULL OR builder_address IS NOT NULL) GROUP BY user_address`;
const ORDERS_SQL = (source: string) => `WITH per_order AS (
  SELECT user_address AS address, oid, any_value(symbol) AS symbol,
    arg_min(abs(CAST(limit_price AS DOUBLE) * CAST(orig_size AS DOUBLE)), ts) AS notional,
    bool_or(event IN ('canceled', 'force_canceled')) AS canceled, bool_or(event = 'filled') AS filled,
    bool_or(tif = 'Ioc') AS ioc, bool_or(tif = 'Alo') AS alo, bool_or(is_position_tpsl) AS tpsl, bool_or(is_trigger) AS trig,
    bool_or(cloid IS NOT NULL) AS has_cloid, min(ts) FILTER (WHERE event = 'placed') AS placed_at, min(ts) FILTER (WHERE event = 'canceled') AS canceled_at
  FROM (${source}) WHERE user_address IS NOT NULL GROUP BY user_address, oid)
SELECT address, count(*) AS orders, count(*) FILTER (WHERE canceled) AS canceled, count(*) FILTER (WHERE filled) AS filled,
  count(*) FILTER (WHERE ioc) AS ioc, count(*) FILTER (WHERE alo) AS alo, count(*) FILTER (WHERE tpsl) AS tpsl, count(*) FILTER (WHERE trig) AS triggers,
  count(*) FILTER (WHERE has_cloid) AS cloids, avg(notional) AS avg_order_usd, max(notional) AS max_order_usd,
  median(canceled_at - placed_at) FILTER (WHERE canceled_at >= placed_at) AS cancel_speed, string_agg(DISTINCT symbol, ' ') AS symbols
FROM per_order GROUP BY address`;

/** Each wallet's row of one aggregate over the day, by lower-case address. */
async function aggregate(deps: ArchiveDeps, dataset: 'trades' | 'order_events' | 'position_changes', family: Family, from: number, to: number, sql: (source: string) => string): Promise<Map<string, Row>> {
  const source = await windowSource(deps, { dataset, family, from, to });
  if (!source) return new Map();
  const rows = await deps.sql.query<Row>({ sql: sql(source.sql), params: source.params });
  return new Map(rows.map((row) => [String(row.address).toLowerCase(), row]));
}

export interface ClassifyRequest {
  family: Family; min_orders: number; min_volume_usd: number; sort: WalletSort; order: 'asc' | 'desc'; limit: number; offset: number;
  uses_twap?: boolean; uses_priority_gas?: boolean; min_cancel_rate?: number; max_cancel_rate?: number; date?: string;
}

/** The day `date` names (default: yesterday, UTC), refused when it is not a calendar day. */
export function dayOf(date: string | undefined, now: number): { from: number; to: number; date: string } {
  const from = date === undefined ? Math.floor(now / DAY) * DAY - DAY : Date.parse(`${date}T00:00:00Z`);
  if (!Number.isFinite(from) || (date !== undefined && new Date(from).toISOString().slice(0, 10) !== date)) {
    throw new AppError('invalid_parameter', `date ${date} is not a calendar day (YYYY-MM-DD).`, { param: 'date' });
  }
  return { from, to: from + DAY - 1, date: new Date(from).toISOString().slice(0, 10) };
}

/** Whether a classified wallet passes the request's filters. */
export function matches(w: ClassifiedWallet, req: ClassifyRequest): boolean {
  const m = w.metrics;
  if (m.total_orders < req.min_orders || m.total_volume_usd < req.min_volume_usd) return false;
  if (req.uses_twap !== undefined && m.uses_twap !== req.uses_twap) return false;
  if (req.uses_priority_gas !== undefined && m.uses_priority_gas !== req.uses_priority_gas) return false;
  if (req.min_cancel_rate !== undefined && !(m.cancel_rate !== undefined && m.cancel_rate >= req.min_cancel_rate)) return false;
  return req.max_cancel_rate === undefined || (m.cancel_rate !== undefined && m.cancel_rate <= req.max_cancel_rate);
}

/** Sorted by the metric (absent last, either order), then by address, so pages never overlap. */
export function sortWallets(wallets: ClassifiedWallet[], sort: WalletSort, order: 'asc' | 'desc'): ClassifiedWallet[] {
  const key = WALLET_SORTS[sort];
  const sign = order === 'asc' ? 1 : -1;
  return wallets.sort((a, b) => {
    const [x, y] = [a.metrics[key], b.metrics[key]];
    if (x !== y) {
      if (x === undefined) return 1;
      if (y === undefined) return -1;
      return sign * (x - y);
    }
    return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
  });
}

/**
 * The page, and a notice when the positions job has not yet built the whole day: fills after its
 * newest snapshot are not counted yet (a fresh local cloud builds them once its older days are in).
 */
export async function classifyWallets(deps: ArchiveDeps, req: ClassifyRequest, now: number): Promise<{ data: WalletClassification; meta: { notice?: string } }> {
  const { from, to, date } = dayOf(req.date, now);
  const built = isPositionFamily(req.family) ? await latestSnapshotAt(deps, req.family, now) : undefined;
  const [fills, orders, trades] = await Promise.all([
    aggregate(deps, 'position_changes', req.family, from, to, FILLS_SQL),
    aggregate(deps, 'order_events', req.family, from, to, ORDERS_SQL),
    aggregate(deps, 'trades', req.family, from, to, TRADES_SQL),
  ]);
  const addresses = new Set([...fills.keys(), ...orders.keys(), ...trades.keys()]);
  const wallets = [...addresses].map((address) => {
    const metrics = metricsOf(fills.get(address), orders.get(address), trades.get(address));
    return { address, class: classOf(metrics), metrics, period: '24h' as const };
  }).filter((w) => matches(w, req));
  const data = { wallets: sortWallets(wallets, req.sort, req.order).slice(req.offset, req.offset + req.limit), total: wallets.length, date };
  if (built !== undefined && built >= to) return { data, meta: {} };
  const through = built === undefined ? 'not built yet' : `built through ${new Date(built).toISOString()}`;
  return { data, meta: { notice: `The day's position legs are ${through}: fills after that are not counted yet.` } };
}
