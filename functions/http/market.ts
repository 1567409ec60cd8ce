/**
 * Route group `market`: trades, recent trades, candles, trigger orders, order flow and instruments
 * for every venue family, including the deprecated un-prefixed routes. Each route of the group names
 * its action and family in the route table; this file maps the parsed input onto the core.
 */
import { AppError } from '../core/errors.ts';
import type { Family } from '../core/venues.ts';
import {
  candlesPage, instruments, orderFlowPage, recentTradesPage, tradesPage, triggerOrdersPage,
  type CandlesRequest, type TradesRequest, type TriggerOrdersRequest,
} from '../core/market/queries.ts';
import type { FlowInterval } from '../../schemas/intervals.ts';
import { ROUTES, type MarketAction } from '../routes.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { clock } from '../shared/deps.ts';
import { httpRouteGroup, ok, okRows, type RouteImplementation, type RouteInput } from '../shared/http.ts';

/** The query as the route's schemas parsed it (the shell validated it against exactly these). */
const queryOf = <T>(input: RouteInput) => input.query as T;
type Parsed<T> = Omit<T, 'routeId' | 'family' | 'symbol'>;

const actions: Record<Exclude<MarketAction, 'breadthCurrent' | 'breadthHistory'>, (family: Family) => RouteImplementation> = {
  trades: (family) => async (input, ctx) => okRows(await tradesPage(archiveDeps(), {
    routeId: ctx.route.operationId, family, symbol: String(input.params.symbol), ...queryOf<Parsed<TradesRequest>>(input),
  }, clock.now()), { symbol: input.params.symbol, venue: family }),

  recentTrades: (family) => async (input) => okRows(await recentTradesPage(archiveDeps(), {
    family, symbol: String(input.params.symbol), ...queryOf<{ limit: number; side?: 'buy' | 'sell' }>(input),
  }, clock.now()), { symbol: input.params.symbol, venue: family }),

  candles: (family) => async (input, ctx) => {
    const query = queryOf<Parsed<CandlesRequest>>(input);
    const page = await candlesPage(archiveDeps(), { routeId: ctx.route.operationId, family, symbol: String(input.params.symbol), ...query }, clock.now());
    // hip4 candle prices are probabilities and quote volumes are in USDH.
    const units = family === 'hip4' ? { price_unit: 'probability', quote_currency: 'USDH' } : {};
    return okRows(page, { symbol: input.params.symbol, venue: family, interval: query.interval, ...units });
  },

  triggerOrders: (family) => async (input, ctx) => okRows(await triggerOrdersPage(archiveDeps(), {
    routeId: ctx.route.operationId, family, symbol: String(input.params.symbol), ...queryOf<Parsed<TriggerOrdersRequest>>(input),
  }, clock.now()), { symbol: input.params.symbol, venue: family }),

  orderFlow: (family) => async (input) => {
    const query = queryOf<{ start?: number; end?: number; interval: FlowInterval; limit: number }>(input);
    const page = await orderFlowPage(archiveDeps(), { family, symbol: String(input.params.symbol), ...query }, clock.now());
    return okRows(page, { symbol: input.params.symbol, venue: family, interval: query.interval });
  },

  instruments: (family) => async () => ok(await instruments(archiveDeps(), family, clock.now()), { meta: { venue: family } }),

  instrument: (family) => async (input) => {
    const found = (await instruments(archiveDeps(), family, clock.now())).find((i) => i.symbol === input.params.symbol);
    if (!found) throw new AppError('not_found', `No instrument ${String(input.params.symbol)} on ${family}.`, { param: 'symbol' });
    return ok(found, { meta: { venue: family } });
  },
};

export const handler = httpRouteGroup('market', Object.fromEntries(
  ROUTES.filter((route) => route.group === 'market').map((route) => [route.operationId, actions[route.action as keyof typeof actions](route.family!)]),
));
