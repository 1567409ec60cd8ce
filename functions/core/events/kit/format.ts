/**
 * How detectors shape occurrences, shared by the event types: times as ISO text, the window test,
 * links to the routes that hold the rows, each market's series, and rounding.
 */
import { FAMILY_PREFIX, type Family } from '#core/venues.ts';
import { groupBy } from '#core/group.ts';
import { roundAsSql } from './rounding.ts';

export const iso = (ms: number): string => new Date(ms).toISOString();
export const inWindow = (ts: number, from: number, to: number): boolean => ts >= from && ts < to;
export const instrumentUrl = (family: Family, symbol: string): string => `${FAMILY_PREFIX[family]}/instruments/${encodeURIComponent(symbol)}`;

/** A REST path covering one instant of a market's trades: where the full rows are. */
export function tradesUrl(family: Family, symbol: string, ts: number): string {
  return `${FAMILY_PREFIX[family]}/trades/${encodeURIComponent(symbol)}?start=${ts}&end=${ts + 1}`;
}

/** Each market's rows, oldest first, as [symbol, rows]: one venue's BTC is not another's. */
export function bySymbol<T extends { family: string; symbol: string; ts: number }>(rows: readonly T[]): [string, T[]][] {
  return [...groupBy(rows, (r) => `${r.family}|${r.symbol}`).values()].map((list) => [list[0]!.symbol, list.sort((a, b) => a.ts - b.ts)]);
}

/** Metrics of the minute types, rounded for display. */
export const round = (n: number, digits = 4): number => Number(n.toFixed(digits));
/** Percent moves are compared at a fixed precision, so a move of exactly the threshold fires (3 -> 2.97 is 1%). */
export const percent = (ratio: number): number => round(ratio * 100, 8);

/** As SQL rounds: a notional a batch type sends and the one the hourly rollups bucket are the same number. */
export const sqlRound = (n: number, digits = 6): number => roundAsSql(n, digits);
/** A group's fills in trade id order: sums of floating-point products depend on their order, and the rollups sum in this one. */
export const byTradeId = <T extends { trade_id: number }>(fills: readonly T[]): T[] => [...fills].sort((a, b) => a.trade_id - b.trade_id);
