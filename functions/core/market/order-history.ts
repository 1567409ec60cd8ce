/**
 * Order history: the order events of one market in a window, oldest first, filtered by kind
 * (`status`), order type and wallet. The reference service's filter names are kept; they map onto
 * the archive's closed event set and trigger flags, so a filter is a bound parameter or a fixed
 * predicate, never text from the request.
 */
import { AppError } from '../errors.ts';
import type { Family } from '../venues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { page, startPage, windowPage, type JsonRows, type WindowParams } from './queries.ts';
import { ORDER_HISTORY_PROJECTION } from './shape.ts';
import type { OrderHistoryEvent, OrderHistoryStatus, OrderHistoryType } from '#schemas/flow-analytics.ts';

export interface OrderHistoryRequest extends WindowParams {
  routeId: string;
  family: Family;
  symbol: string;
  status?: OrderHistoryStatus;
  order_type?: OrderHistoryType;
  triggered?: boolean;
  user?: string;
}

/** The archive's event for each status a client filters on: a resting (`open`) order is one just placed. */
const EVENT_OF_STATUS: Record<OrderHistoryStatus, string> = {
  open: 'placed',
  filled: 'filled',
  canceled: 'canceled',
  triggered: 'triggered',
  force_canceled: 'force_canceled',
};

const TYPE_PREDICATE: Record<OrderHistoryType, string> = {
  limit: 'NOT is_trigger',
  trigger: 'is_trigger AND NOT is_position_tpsl',
  tpsl: 'is_position_tpsl',
};

/** The SQL filter of a request's filters (bound parameters for its values). */
export function orderHistoryFilter(
  req: Pick<OrderHistoryRequest, 'status' | 'order_type' | 'triggered' | 'user'>,
): { sql: string; params: Record<string, string> } | undefined {
  if (req.status !== undefined && req.triggered !== undefined && (req.status === 'triggered') !== req.triggered) {
    throw new AppError('invalid_parameter', `status=${req.status} and triggered=${req.triggered} exclude each other; send one.`, { param: 'triggered' });
  }
  const where: string[] = [];
  const params: Record<string, string> = {};
  if (req.status !== undefined) {
    where.push('event = $q_event');
    params.q_event = EVENT_OF_STATUS[req.status];
  }
  if (req.triggered !== undefined) where.push(req.triggered ? `event = 'triggered'` : `event <> 'triggered'`);
  if (req.order_type !== undefined) where.push(`(${TYPE_PREDICATE[req.order_type]})`);
  if (req.user !== undefined) {
    where.push('user_address = $q_user');
    params.q_user = req.user.toLowerCase();
  }
  return where.length ? { sql: where.join(' AND '), params } : undefined;
}

export async function orderHistoryPage(deps: ArchiveDeps, req: OrderHistoryRequest, now: number): Promise<JsonRows<OrderHistoryEvent>> {
  const filters = { status: req.status, order_type: req.order_type, triggered: req.triggered, user: req.user?.toLowerCase() };
  const paging = startPage('order_events', req, req.symbol, filters, now);
  if ('done' in paging) return paging.done;
  const result = await windowPage(
    deps,
    {
      dataset: 'order_events',
      family: req.family,
      symbol: req.symbol,
      limit: req.limit,
      filter: orderHistoryFilter(req),
      projection: ORDER_HISTORY_PROJECTION,
    },
    paging,
  );
  return page(result, paging);
}
