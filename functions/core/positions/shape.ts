/**
 * Positions as clients read them (reference §3 Positions): stored snapshot rows and change legs
 * turned into Position, MarketPosition, PositionChange rows and account and market summaries.
 * A member a venue does not have is absent; null means unknown (no mark, no entry, margin never
 * captured), and a total over any unpriced position is null, never a partial sum.
 */
import type { Row } from '#ports/sql.ts';
import { dexOf } from '../venues.ts';
import { ZERO, abs, fixed, mul, roundedText, text, weightedAverage, type Fixed } from './fixed.ts';
import { NUMBERED_FAMILIES, PRICE_PLACES, type ChangeLeg, type PositionFamily, type SnapshotRow } from './engine.ts';

type AccountKind = NonNullable<SnapshotRow['account_kind']>;

const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
const shown = (value: string | null | undefined) => (value == null ? null : roundedText(value, PRICE_PLACES));
const sideOf = (size: string) => (size.startsWith('-') ? 'short' : 'long') as 'long' | 'short';
const FEE_TOKEN: Readonly<Record<PositionFamily, string>> = { perpx: 'USDC', hip3: 'USDC', altx: 'USDC', 'altx-rh': 'USDG' };

export type Quality = 'complete' | 'partial' | 'degraded';

/** Rows built on legs the venue has not finalized are preliminary: the read is degraded. */
export function qualityOf(family: PositionFamily, rows: readonly Pick<SnapshotRow, 'quality' | 'finalized'>[]): Quality {
  if (NUMBERED_FAMILIES.has(family) && rows.some((r) => r.finalized === false)) return 'degraded';
  return rows.some((r) => r.quality !== 'complete') ? 'partial' : 'complete';
}

/** A wallet or account position row (`snapshotTs` on history rows). */
export function positionOf(family: PositionFamily, row: SnapshotRow, snapshotTs?: number) {
  const numbered = NUMBERED_FAMILIES.has(family);
  const dex = family === 'hip3' ? dexOf(row.symbol) : undefined;
  return {
    ...(snapshotTs !== undefined && { snapshot_ts: iso(snapshotTs)! }),
    ...(numbered && { account_index: row.account, account_kind: row.account_kind ?? 'user' }),
    symbol: row.symbol,
    coin: row.symbol,
    ...(dex !== undefined && { dex }),
    size: row.size,
    side: sideOf(row.size),
    entry_price: shown(row.entry_price),
    mark_price: row.mark_price ?? null,
    mark_time: iso(row.mark_time),
    position_value: row.position_value ?? null,
    unrealized_pnl: shown(row.unrealized_pnl),
    // Margin and leverage are not in the fills: unknown until venue-published account state is archived.
    return_on_equity: null,
    leverage: { type: 'unknown' as const, value: null },
    max_leverage: row.max_leverage ?? null,
    margin_used: null,
    liquidation_price: null,
    liquidation_price_status: 'unavailable' as const,
    cum_funding: { all_time: shown(row.funding_all_time), since_open: shown(row.funding_since_open), since_change: shown(row.funding_since_change) },
    opened_at: iso(row.opened_at),
    snapshot_as_of: iso(row.ts),
    quality: row.quality,
    ...(numbered && {
      initial_margin_fraction: null,
      allocated_margin: null,
      margin_mode: 'unknown',
      mark_source: 'mark_price',
      finalized: row.finalized ?? true,
    }),
  };
}
export type PositionRow = ReturnType<typeof positionOf>;

/** A market or bulk row: the account key plus the position's valuation. */
export function marketPositionOf(family: PositionFamily, row: SnapshotRow, withSnapshotTs = false) {
  const dex = family === 'hip3' ? dexOf(row.symbol) : undefined;
  return {
    ...(withSnapshotTs && { snapshot_ts: iso(row.ts)! }),
    ...(NUMBERED_FAMILIES.has(family) ? { account_index: row.account, account_kind: row.account_kind ?? 'user' } : { user_address: row.account }),
    symbol: row.symbol,
    coin: row.symbol,
    ...(dex !== undefined && { dex }),
    size: row.size,
    side: sideOf(row.size),
    entry_price: shown(row.entry_price),
    mark_price: row.mark_price ?? null,
    position_value: row.position_value ?? null,
    unrealized_pnl: shown(row.unrealized_pnl),
    leverage_type: 'unknown',
    liquidation_price: null,
    quality: row.quality,
  };
}
export type MarketPositionRow = ReturnType<typeof marketPositionOf>;

/**
 * `marketPositionOf` as SQL over stored snapshot rows, for pages read as columns (bulk): the same
 * members in the same order, each with its expression; entry and PnL are rounded afterwards
 * (`roundColumns`). The Arrow stream's columns are these names.
 */
export function marketPositionColumns(family: PositionFamily): readonly (readonly [name: string, sql: string])[] {
  return [
    ...(NUMBERED_FAMILIES.has(family)
      ? ([
          ['account_index', 'account'],
          ['account_kind', "coalesce(account_kind, 'user')"],
        ] as const)
      : ([['user_address', 'account']] as const)),
    ['symbol', 'symbol'],
    ['coin', 'symbol'],
    ...(family === 'hip3' ? ([['dex', "split_part(symbol, ':', 1)"]] as const) : []),
    ['size', 'size'],
    ['side', "CASE WHEN starts_with(size, '-') THEN 'short' ELSE 'long' END"],
    ['entry_price', 'entry_price'],
    ['mark_price', 'mark_price'],
    ['position_value', 'position_value'],
    ['unrealized_pnl', 'unrealized_pnl'],
    ['leverage_type', "'unknown'"],
    ['liquidation_price', 'CAST(NULL AS VARCHAR)'],
    ['quality', 'quality'],
  ];
}

/** Shown entry prices and PnL, in place, in columns read with `marketPositionColumnsSql`. */
export function roundColumns(columns: Record<string, unknown[]>): Record<string, (string | null)[]> {
  for (const name of ['entry_price', 'unrealized_pnl']) columns[name] = columns[name]!.map((v) => shown(v as string | null));
  return columns as Record<string, (string | null)[]>;
}

/** A stored change leg as a PositionChange row. */
export function changeOf(family: PositionFamily, leg: Row, accountKind: AccountKind = 'user') {
  const numbered = NUMBERED_FAMILIES.has(family);
  const dex = family === 'hip3' ? dexOf(String(leg.symbol)) : undefined;
  const str = (value: unknown) => (value == null ? null : String(value));
  const fee = str(leg.fee);
  const notional = text(mul(fixed(String(leg.price)), fixed(String(leg.size))));
  return {
    timestamp: iso(Number(leg.ts))!,
    ...(numbered && { account_index: String(leg.account), account_kind: accountKind }),
    symbol: String(leg.symbol),
    coin: String(leg.symbol),
    ...(dex !== undefined && { dex }),
    side: leg.side as 'B' | 'A',
    price: String(leg.price),
    size: String(leg.size),
    start_position: String(leg.start_position),
    end_position: String(leg.end_position),
    entry_price_after: shown(str(leg.entry_price_after)),
    event_type: leg.event_type as ChangeLeg['event_type'],
    cause: leg.cause as ChangeLeg['cause'],
    ...(leg.direction != null && { direction: String(leg.direction) }),
    ...(leg.closed_pnl != null && { closed_pnl: String(leg.closed_pnl) }),
    fee,
    fee_token: str(leg.fee_token) ?? FEE_TOKEN[family],
    ...(leg.crossed != null && { crossed: Boolean(leg.crossed), is_maker: !leg.crossed }),
    trade_id: Number(leg.trade_id),
    order_id: leg.order_id == null ? null : Number(leg.order_id),
    opened_at: iso(leg.opened_at == null ? null : Number(leg.opened_at)),
    continuity: leg.continuity as ChangeLeg['continuity'],
    ...(numbered && {
      finalized: leg.finalized !== false,
      position_size_before: String(leg.start_position),
      position_size_after: String(leg.end_position),
      fee_rate: fee === null || fixed(notional) === ZERO ? null : text((fixed(fee) * 10n ** 18n) / fixed(notional), PRICE_PLACES),
      fee_usdc: fee,
      usdc_amount: notional,
    }),
  };
}
export type ChangeRow = ReturnType<typeof changeOf>;

/** The exact sum of values, or null when any is unknown. */
function total(values: readonly (string | null | undefined)[]): Fixed | null {
  let sum = ZERO;
  for (const value of values) {
    if (value == null) return null;
    sum += fixed(value);
  }
  return sum;
}
const shownTotal = (value: Fixed | null, places?: number) => (value === null ? null : text(value, places));

/** An account's aggregates over its positions at one instant. */
export function accountSummaryOf(
  family: PositionFamily,
  account: string,
  rows: readonly SnapshotRow[],
  ts: number,
  options: { dex?: string; history?: boolean } = {},
) {
  const longs = rows.filter((r) => sideOf(r.size) === 'long');
  const shorts = rows.filter((r) => sideOf(r.size) === 'short');
  const perps = !NUMBERED_FAMILIES.has(family);
  return {
    ...(options.history && { snapshot_ts: iso(ts)! }),
    ...(!perps && { account_index: account }),
    ...(options.dex !== undefined && { dex: options.dex }),
    // Margin state is not in the fills: null outside periods where venue account state was captured.
    ...(perps && {
      account_value: null,
      cross_account_value: null,
      collateral: null,
      total_margin_used: null,
      cross_maintenance_margin_used: null,
      withdrawable: null,
    }),
    total_position_value: shownTotal(total(rows.map((r) => r.position_value))),
    total_unrealized_pnl: shownTotal(total(rows.map((r) => r.unrealized_pnl)), PRICE_PLACES),
    long_value: shownTotal(total(longs.map((r) => r.position_value))),
    short_value: shownTotal(total(shorts.map((r) => r.position_value))),
    n_positions: rows.length,
    ...(perps && { account_mode: 'unknown', snapshot_as_of: iso(ts) }),
    quality: qualityOf(family, rows),
  };
}
export type AccountSummaryRow = ReturnType<typeof accountSummaryOf>;

/** Share of the ten largest values in the total, or null when any value is unknown or the total is zero. */
function top10Share(values: readonly (string | null | undefined)[]): string | null {
  const sum = total(values);
  if (sum === null || sum === ZERO) return null;
  const top = [...values]
    .map((v) => fixed(v!))
    .sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))
    .slice(0, 10)
    .reduce((a, b) => a + b, ZERO);
  return text((top * 10n ** 18n) / sum, PRICE_PLACES);
}

function averageEntry(rows: readonly SnapshotRow[]): { price: string | null; count: number } {
  const priced = rows.filter((r) => r.entry_price != null);
  let weight = ZERO;
  let average = ZERO;
  for (const row of priced) {
    const size = abs(fixed(row.size));
    average = weight === ZERO ? fixed(row.entry_price!) : weightedAverage(average, weight, fixed(row.entry_price!), size);
    weight += size;
  }
  return { price: priced.length === 0 ? null : text(average, PRICE_PLACES), count: priced.length };
}

/** The long/short aggregates of one market's positions at one snapshot. */
export function marketSummaryOf(family: PositionFamily, symbol: string, rows: readonly SnapshotRow[], snapshotTs: number | null) {
  const longs = rows.filter((r) => sideOf(r.size) === 'long');
  const shorts = rows.filter((r) => sideOf(r.size) === 'short');
  const dex = family === 'hip3' ? dexOf(symbol) : undefined;
  const [longEntry, shortEntry] = [averageEntry(longs), averageEntry(shorts)];
  return {
    snapshot_ts: iso(snapshotTs),
    symbol,
    coin: symbol,
    ...(dex !== undefined && { dex }),
    long_count: longs.length,
    short_count: shorts.length,
    long_size: text(longs.reduce((sum, r) => sum + fixed(r.size), ZERO)),
    short_size: text(abs(shorts.reduce((sum, r) => sum + fixed(r.size), ZERO))),
    long_value: shownTotal(total(longs.map((r) => r.position_value))),
    short_value: shownTotal(total(shorts.map((r) => r.position_value))),
    long_avg_entry_price: longEntry.price,
    short_avg_entry_price: shortEntry.price,
    long_positions_with_entry: longEntry.count,
    short_positions_with_entry: shortEntry.count,
    long_top10_value_share: top10Share(longs.map((r) => r.position_value)),
    short_top10_value_share: top10Share(shorts.map((r) => r.position_value)),
    top10_value_share: top10Share(rows.map((r) => r.position_value)),
    quality: qualityOf(family, rows),
  };
}
export type MarketSummaryRow = ReturnType<typeof marketSummaryOf>;
