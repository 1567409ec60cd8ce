/**
 * Market-data pages over the archive: trades, candles rolled up from 1-minute candles, trigger
 * orders and order flow (the instrument registry is instruments.ts). Pure functions of their ports;
 * the HTTP group (functions/http/market.ts) only maps requests onto them.
 */
import { AppError } from '../errors.ts';
import { isSymbolOf, type Family } from '../venues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { readWholeRuns, readWindowJson, type JsonWindowRequest, type JsonWindowResult } from '../archive/read-pages.ts';
import { windowSource } from '../archive/read.ts';
import { coverageNotice } from '../archive/coverage.ts';
import {
  CURSOR_PARTS,
  checkInWindow,
  decodeCursor,
  encodeCursor,
  formatTransparentCursor,
  parseTransparentCursor,
  requestFingerprint,
  transparentSpelling,
  type CursorForm,
  type Position,
} from './cursor.ts';
import type { Dataset } from '#schemas/datasets.ts';
import { FLOW_INTERVALS, type FlowInterval } from '#schemas/intervals.ts';
import type { OrderFlowBucket, Trade, TradeSide, TriggerOrder } from '#schemas/market.ts';
import { FLOW_PROJECTION, TRIGGER_ORDER_PROJECTION, tradeProjection } from './shape.ts';

export const DAY = 86_400_000;

/**
 * A page of rows rendered by DuckDB as JSON objects joined by commas, spliced into the response
 * unparsed. `Row` names the shape the SQL projection renders (shape.ts); the route contract test
 * checks real pages against the published schema, since the compiler cannot see into SQL.
 */
export interface JsonRows<Row> {
  json: string;
  count: number;
  nextCursor: string | null;
  /** Members the page adds to `meta` (e.g. `coverage_from` and `notice` before coverage). */
  meta?: Record<string, unknown>;
  /** Never set: carries `Row` so a handler's output type-checks against its route's schema. */
  readonly rowType?: Row;
}

export const EMPTY = { json: '', count: 0, nextCursor: null } as const;

export interface WindowParams {
  start?: number;
  end?: number;
  cursor?: string;
  limit: number;
  /** The route's transparent cursor form (functions/routes.ts); absent, its cursors are opaque. */
  cursorForm?: CursorForm;
}

/** The window a request asks for: `start` defaults to 24 hours before now and `end` to now. */
export function resolveWindow(params: Pick<WindowParams, 'start' | 'end'>, now: number): [number, number] {
  const end = params.end ?? now;
  const start = params.start ?? now - DAY;
  if (start > end) throw new AppError('invalid_time_range', 'start must not be after end.', { param: 'start' });
  return [start, end];
}

/** Fingerprint of a request for its cursors: everything but `limit` and `cursor`. */
export function fingerprintOf(routeId: string, symbol: string, params: Record<string, unknown>): string {
  const { limit: _limit, cursor: _cursor, ...rest } = params;
  return requestFingerprint({ routeId, symbol, ...rest });
}

/** A windowed page begun: its window, the position it resumes after, and how it spells the next cursor. */
export interface Paging {
  window: [number, number];
  /** The cursor's position: rows after it are served. */
  after?: Position;
  /** The route's transparent cursor form, if it has one. */
  form?: CursorForm;
  /** The next cursor, after a page whose last row is at `last`. */
  cursorAt(last: Position): string;
}

/**
 * Where a windowed page starts. A transparent cursor is a position in the window the request
 * names, `[floor(start), end]` (`floor`: the start of the bucket holding `start`, on routes whose
 * buckets may open before it); an opaque cursor, or one a route with a transparent form sealed
 * before it had one, carries its window and is bound to the request's other parameters.
 */
export function beginPaging(
  req: WindowParams & { routeId: string },
  key: string,
  filters: Record<string, unknown>,
  now: number,
  floor: (start: number) => number = (start) => start,
): Paging {
  const fingerprint = fingerprintOf(req.routeId, key, { start: req.start, end: req.end, ...filters });
  const form = req.cursorForm;
  const cursorAt = (window: [number, number]) => (last: Position) =>
    form ? formatTransparentCursor(form, last) : encodeCursor(fingerprint, { window, position: last });
  if (req.cursor === undefined) {
    const window = resolveWindow(req, now);
    return { window, form, cursorAt: cursorAt(window) };
  }
  if (form && transparentSpelling(req.cursor)) {
    const window = resolveWindow(req, now);
    const after = parseTransparentCursor(form, req.cursor);
    checkInWindow(after, floor(window[0]), window[1]);
    return { window, after, form, cursorAt: cursorAt(window) };
  }
  const state = decodeCursor(req.cursor, fingerprint);
  return { window: state.window, after: state.position, form, cursorAt: cursorAt(state.window) };
}

/**
 * What every windowed page starts with (beginPaging, for the route, `key` and `filters`); or, as
 * `done`, the empty answer for a window wholly before the dataset's coverage in the family (with
 * `coverage_from` and `notice`) or for a symbol in the wrong form for its family (it matches nothing).
 */
export function startPage(
  dataset: Dataset,
  req: WindowParams & { routeId: string; family: Family; symbol?: string },
  key: string,
  filters: Record<string, unknown>,
  now: number,
  floor?: (start: number) => number,
): Paging | { done: JsonRows<never> } {
  const paging = beginPaging(req, key, filters, now, floor);
  const notice = coverageNotice(dataset, req.family, paging.window[1]);
  if (notice) return { done: { ...EMPTY, meta: notice } };
  if (req.symbol !== undefined && !isSymbolOf(req.family, req.symbol)) return { done: EMPTY };
  return paging;
}

export function page(
  result: { json: string; count: number; more: boolean; last?: Position },
  paging: Paging,
): { json: string; count: number; nextCursor: string | null } {
  return { json: result.json, count: result.count, nextCursor: result.more && result.last ? paging.cursorAt(result.last) : null };
}

/**
 * A keyset page of a dataset's window after the paging's position: with a transparent cursor form,
 * one that never ends inside a run of rows sharing the position the form names (readWholeRuns).
 */
export function windowPage(deps: ArchiveDeps, req: Omit<JsonWindowRequest, 'after' | 'from' | 'to'>, paging: Paging): Promise<JsonWindowResult> {
  const read = { ...req, from: paging.window[0], to: paging.window[1], after: paging.after };
  return paging.form ? readWholeRuns(deps, read, CURSOR_PARTS[paging.form]) : readWindowJson(deps, read);
}

export interface TradesRequest extends WindowParams {
  routeId: string;
  family: Family;
  symbol: string;
  side?: TradeSide;
}

const SIDE_CODES: Record<TradeSide, 'B' | 'A'> = { buy: 'B', B: 'B', sell: 'A', A: 'A' };

const sideFilter = (side: TradeSide | undefined) => (side ? { sql: 'side = $q_side', params: { q_side: SIDE_CODES[side] } } : undefined);

export async function tradesPage(deps: ArchiveDeps, req: TradesRequest, now: number): Promise<JsonRows<Trade>> {
  const paging = startPage('trades', req, req.symbol, { side: req.side }, now);
  if ('done' in paging) return paging.done;
  const result = await windowPage(
    deps,
    {
      dataset: 'trades',
      family: req.family,
      symbol: req.symbol,
      limit: req.limit,
      filter: sideFilter(req.side),
      projection: tradeProjection(req.family),
    },
    paging,
  );
  return page(result, paging);
}

/** The newest trades, newest first (no window parameters; the last day is searched). */
export async function recentTradesPage(
  deps: ArchiveDeps,
  req: { family: Family; symbol: string; limit: number; side?: TradeSide },
  now: number,
): Promise<JsonRows<Trade>> {
  if (!isSymbolOf(req.family, req.symbol)) return EMPTY;
  const result = await readWindowJson(deps, {
    dataset: 'trades',
    family: req.family,
    symbol: req.symbol,
    from: now - DAY,
    to: now,
    limit: req.limit,
    filter: sideFilter(req.side),
    projection: tradeProjection(req.family),
    direction: 'desc',
  });
  return { json: result.json, count: result.count, nextCursor: null };
}

export interface TriggerOrdersRequest extends WindowParams {
  routeId: string;
  family: Family;
  symbol: string;
  triggered?: boolean;
  user?: string;
}

/** Trigger orders (TP/SL): their placements, triggers and cancellations. */
export async function triggerOrdersPage(deps: ArchiveDeps, req: TriggerOrdersRequest, now: number): Promise<JsonRows<TriggerOrder>> {
  const paging = startPage('order_events', req, req.symbol, { triggered: req.triggered, user: req.user }, now);
  if ('done' in paging) return paging.done;
  const where = ['is_trigger'];
  const params: Record<string, string> = {};
  if (req.triggered !== undefined) where.push(req.triggered ? `event = 'triggered'` : `event <> 'triggered'`);
  if (req.user !== undefined) {
    where.push('user_address = $q_user');
    params.q_user = req.user.toLowerCase();
  }
  const result = await windowPage(
    deps,
    {
      dataset: 'order_events',
      family: req.family,
      symbol: req.symbol,
      limit: req.limit,
      filter: { sql: where.join(' AND '), params },
      projection: TRIGGER_ORDER_PROJECTION,
    },
    paging,
  );
  return page(result, paging);
}

/** Counts of order-event rows per bucket (not rates, not unique orders); no cursor. */
export async function orderFlowPage(
  deps: ArchiveDeps,
  req: { family: Family; symbol: string; start?: number; end?: number; interval: FlowInterval; limit: number },
  now: number,
): Promise<JsonRows<OrderFlowBucket>> {
  const [from, to] = resolveWindow(req, now);
  const notice = coverageNotice('order_events', req.family, to);
  if (notice) return { ...EMPTY, meta: notice };
  if (!isSymbolOf(req.family, req.symbol)) return EMPTY;
  const source = await windowSource(deps, { dataset: 'order_events', family: req.family, symbol: req.symbol, from, to });
  if (!source) return EMPTY;
  const [result] = await deps.sql.query({
    sql: `WITH buckets AS (
            SELECT ts // $f_width * $f_width AS bucket,
              count(*) FILTER (WHERE event = 'placed' AND NOT is_trigger) AS limit_orders_placed,
              count(*) FILTER (WHERE event = 'canceled') AS orders_canceled,
              count(*) FILTER (WHERE event = 'filled') AS orders_filled,
              count(*) FILTER (WHERE event = 'placed' AND is_trigger AND NOT is_position_tpsl) AS trigger_orders_placed,
              count(*) FILTER (WHERE event = 'placed' AND is_position_tpsl) AS tpsl_orders_placed,
              count(*) FILTER (WHERE event = 'triggered') AS orders_triggered,
              count(*) FILTER (WHERE event = 'force_canceled') AS orders_force_canceled
            FROM (${source.sql}) GROUP BY 1 ORDER BY 1 LIMIT $f_limit)
          SELECT string_agg(to_json(${FLOW_PROJECTION}), ',' ORDER BY bucket) AS json, count(*) AS n FROM buckets`,
    params: { ...source.params, f_width: FLOW_INTERVALS[req.interval], f_limit: req.limit },
  });
  const count = Number(result?.n ?? 0);
  return { json: count > 0 ? String(result!.json) : '', count, nextCursor: null };
}
