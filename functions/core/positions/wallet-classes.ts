/**
 * Wallet classification (`/wallets/classify`, core and hip3): one UTC day of a family's wallets,
 * each with metrics from its fills (its position legs: holding times, liquidations too), its
 * order events and its trades (TWAP, priority gas, builder), and the class the archive's rule gives (CLASS_RULE in
 * schemas/wallet-classes.ts). Filtered, sorted and offset-paged as the reference service's route is.
 * The metrics come from the per-wallet statistics compaction derives (wallet-stats.ts), so a call
 * reads rows per wallet and market of the day, not the day's fills and order events.
 */
import { AppError } from '../errors.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { Row } from '#ports/sql.ts';
import type { Family } from '../venues.ts';
import { isPositionFamily } from './engine.ts';
import { latestSnapshotAt } from './store.ts';
import { readWalletStats, type WalletStats } from './wallet-stats.ts';
import {
  CLASS_THRESHOLDS as T,
  WALLET_SORTS,
  type ClassifiedWallet,
  type WalletClass,
  type WalletClassification,
  type WalletMetrics,
  type WalletSort,
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
    cancel_rate: share(num(orders?.canceled), totalOrders),
    fill_rate: share(num(orders?.filled), totalOrders),
    order_to_trade_ratio: share(totalOrders, totalFills),
    ioc_ratio: share(num(orders?.ioc), totalOrders),
    post_only_ratio: share(num(orders?.alo), totalOrders),
    tpsl_ratio: share(num(orders?.tpsl), totalOrders),
    trigger_order_ratio: share(num(orders?.triggers), totalOrders),
    uses_tpsl: num(orders?.tpsl) > 0,
    uses_cloid: num(orders?.cloids) > 0,
    cloid_ratio: share(num(orders?.cloids), totalOrders),
    avg_order_size_usd: opt(orders?.avg_order_usd),
    max_order_size_usd: opt(orders?.max_order_usd),
    median_cancel_speed_ms: opt(orders?.cancel_speed),
    unique_coins_traded: new Set([...symbolsOf(orders), ...symbolsOf(fills)]).size,
    total_fills: totalFills,
    total_volume_usd: buy + sell,
    maker_ratio: share(num(fills?.maker_fills), num(fills?.known_side_fills)),
    long_short_ratio: share(buy, sell),
    buy_volume_usd: buy,
    sell_volume_usd: sell,
    total_fees_usd: num(fills?.fees),
    realized_pnl_usd: num(fills?.pnl),
    liquidation_count: num(fills?.liquidations),
    max_single_fill_usd: opt(fills?.max_fill),
    unique_fill_coins: symbolsOf(fills).length,
    active_hours: num(fills?.hours),
    avg_holding_ms: opt(fills?.avg_hold),
    uses_twap: twapFills > 0,
    twap_fills: twapFills,
    twap_fill_ratio: share(twapFills, totalFills),
    uses_priority_gas: num(trades?.priority_gas) > 0,
    total_priority_gas_paid: num(trades?.priority_gas),
    uses_builder: trades?.top_builder != null,
    top_builder: trades?.top_builder == null ? undefined : String(trades.top_builder),
    total_builder_fees_paid: num(trades?.builder_fees),
  });
}

export interface ClassifyRequest {
  family: Family;
  min_orders: number;
  min_volume_usd: number;
  sort: WalletSort;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
  uses_twap?: boolean;
  uses_priority_gas?: boolean;
  min_cancel_rate?: number;
  max_cancel_rate?: number;
  date?: string;
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

/** Why the day's metrics may not be final yet: legs the positions job has not built, orders still counted per hour. */
function noticeOf(built: number | undefined, to: number, orders: WalletStats['read']): string | undefined {
  const notes: string[] = [];
  if (built === undefined || built < to) {
    const through = built === undefined ? 'not built yet' : `built through ${new Date(built).toISOString()}`;
    notes.push(`The day's position legs are ${through}: fills after that are not counted yet.`);
  }
  if (orders.hourly)
    notes.push(
      "Orders are counted per compacted hour (the day is not folded yet, or a market's day is too big to fold): an order with events in more than one hour counts once in each.",
    );
  return notes.length > 0 ? notes.join(' ') : undefined;
}

/**
 * The page, and a notice when the day is not final: the positions job has not yet built the whole
 * day (fills after its newest snapshot are not counted yet; a fresh local cloud builds them once
 * its older days are in), or its orders are still counted per compacted hour. `read` says what
 * the call read (for tests and benchmarks).
 */
export async function classifyWallets(
  deps: ArchiveDeps,
  req: ClassifyRequest,
  now: number,
): Promise<{ data: WalletClassification; meta: { notice?: string }; read: Record<'fills' | 'orders' | 'trades', WalletStats['read']> }> {
  const { from, to, date } = dayOf(req.date, now);
  const built = isPositionFamily(req.family) ? await latestSnapshotAt(deps, req.family, now) : undefined;
  const [fills, orders, trades] = await Promise.all([
    readWalletStats(deps, 'wallet_fill_stats', req.family, from),
    readWalletStats(deps, 'wallet_order_stats', req.family, from),
    readWalletStats(deps, 'wallet_trade_stats', req.family, from),
  ]);
  const addresses = new Set([...fills.rows.keys(), ...orders.rows.keys(), ...trades.rows.keys()]);
  const wallets = [...addresses]
    .map((address) => {
      const metrics = metricsOf(fills.rows.get(address), orders.rows.get(address), trades.rows.get(address));
      return { address, class: classOf(metrics), metrics, period: '24h' as const };
    })
    .filter((w) => matches(w, req));
  const data = { wallets: sortWallets(wallets, req.sort, req.order).slice(req.offset, req.offset + req.limit), total: wallets.length, date };
  const notice = noticeOf(built, to, orders.read);
  return { data, meta: notice === undefined ? {} : { notice }, read: { fills: fills.read, orders: orders.read, trades: trades.read } };
}
