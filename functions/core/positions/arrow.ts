/**
 * Bulk and market positions as an Arrow IPC stream (SPEC rule 9): one record batch of the page's
 * rows, every member a nullable UTF-8 column named as in the JSON rows, so a client reading the
 * stream with apache-arrow or DuckDB gets the JSON route's rows, members in the same order.
 */
import { Table, Utf8, tableToIPC, vectorFromArray } from 'apache-arrow';
import { NUMBERED_FAMILIES, type PositionFamily } from './engine.ts';
import type { MarketPositionRow } from './shape.ts';

/** The columns of a family's rows, in JSON member order (hip3 adds `dex`; numbered venues key by account index). */
export function arrowColumns(family: PositionFamily): (keyof MarketPositionRow | 'user_address' | 'account_index' | 'account_kind' | 'dex')[] {
  return [
    ...(NUMBERED_FAMILIES.has(family) ? ['account_index', 'account_kind'] as const : ['user_address'] as const),
    'symbol', 'coin', ...(family === 'hip3' ? ['dex'] as const : []),
    'size', 'side', 'entry_price', 'mark_price', 'position_value', 'unrealized_pnl', 'leverage_type', 'liquidation_price', 'quality',
  ];
}

export function positionsArrow(family: PositionFamily, rows: readonly MarketPositionRow[]): Uint8Array {
  const columns = Object.fromEntries(arrowColumns(family).map((name) => [
    name, vectorFromArray(rows.map((row) => (row as Record<string, unknown>)[name] as string | null ?? null), new Utf8()),
  ]));
  return tableToIPC(new Table(columns), 'stream');
}
