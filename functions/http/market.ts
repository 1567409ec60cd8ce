/**
 * Route group `market`: trades, recent trades, candles, trigger orders, order flow, instruments, spot
 * pairs and hip4 outcomes for every venue family, including the deprecated un-prefixed routes. Each route names its
 * operation and family in the route table; this file maps the typed input onto the core.
 */
import { candlesPage } from '../core/market/candles.ts';
import { cvdPage } from '../core/market/cvd.ts';
import { orderHistoryPage } from '../core/market/order-history.ts';
import { orderFlowPage, recentTradesPage, tradesPage, triggerOrdersPage } from '../core/market/queries.ts';
import { instrument, instruments } from '../core/market/instruments.ts';
import { outcome, outcomeBySlug, outcomesPage, spotPair, spotPairs } from '../core/market/registry-views.ts';
import { question, questionsPage } from '../core/market/questions.ts';
import { classifyWallets } from '../core/positions/wallet-classes.ts';
import { spotTwapPage } from '../core/market/spot-twap.ts';
import { MARKET_OPERATIONS } from '../routes/market.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { clock } from '../shared/deps.ts';
import { cursorRoute, familyOf, httpRouteGroup, ok, okRows, type RequestContext } from '../shared/http.ts';

const twaps = async (req: Parameters<typeof spotTwapPage>[1], meta: object) => {
  const { data, nextCursor, meta: more } = await spotTwapPage(archiveDeps(), req, clock.now());
  return ok(data, { nextCursor, meta: { ...meta, venue: 'spot', ...more } });
};

/** A per-symbol page's request (its route's cursor form, family and symbol, and the query) and meta. */
const symbolRequest = <Q>(ctx: RequestContext, symbol: string, query: Q) => ({ ...cursorRoute(ctx), family: familyOf(ctx), symbol, ...query });
const symbolMeta = (ctx: RequestContext, symbol: string) => ({ symbol, venue: familyOf(ctx) });

const hip4Page = <T>({ data, nextCursor }: { data: T[]; nextCursor: string | null }) => ok(data, { nextCursor, meta: { venue: 'hip4' } });

export const handler = httpRouteGroup(MARKET_OPERATIONS, {
  trades: async ({ params, query }, ctx) =>
    okRows(await tradesPage(archiveDeps(), symbolRequest(ctx, params.symbol, query), clock.now()), symbolMeta(ctx, params.symbol)),
  recentTrades: async ({ params, query }, ctx) => {
    const rows = await recentTradesPage(archiveDeps(), { family: familyOf(ctx), symbol: params.symbol, ...query }, clock.now());
    return okRows(rows, symbolMeta(ctx, params.symbol));
  },
  cvd: async ({ params, query }, ctx) => {
    const { data, nextCursor, meta } = await cvdPage(archiveDeps(), symbolRequest(ctx, params.symbol, query), clock.now());
    return ok(data, { nextCursor, meta: { ...symbolMeta(ctx, params.symbol), interval: query.interval, ...meta } });
  },
  candles: async ({ params, query }, ctx) => {
    const family = familyOf(ctx);
    const page = await candlesPage(archiveDeps(), { ...cursorRoute(ctx), family, symbol: params.symbol, ...query }, clock.now());
    // hip4 candle prices are probabilities and quote volumes are in USDH.
    const units = family === 'hip4' ? { price_unit: 'probability', quote_currency: 'USDH' } : {};
    return okRows(page, { symbol: params.symbol, venue: family, interval: query.interval, ...units });
  },
  triggerOrders: async ({ params, query }, ctx) => {
    const rows = await triggerOrdersPage(archiveDeps(), symbolRequest(ctx, params.symbol, query), clock.now());
    return okRows(rows, symbolMeta(ctx, params.symbol));
  },
  orderHistory: async ({ params, query }, ctx) => {
    const rows = await orderHistoryPage(archiveDeps(), symbolRequest(ctx, params.symbol, query), clock.now());
    return okRows(rows, symbolMeta(ctx, params.symbol));
  },
  orderFlow: async ({ params, query }, ctx) => {
    const page = await orderFlowPage(archiveDeps(), { family: familyOf(ctx), symbol: params.symbol, ...query }, clock.now());
    return okRows(page, { ...symbolMeta(ctx, params.symbol), interval: query.interval });
  },
  instruments: async (_input, ctx) => ok(await instruments(archiveDeps(), familyOf(ctx), clock.now()), { meta: { venue: familyOf(ctx) } }),
  instrument: async ({ params }, ctx) => ok(await instrument(archiveDeps(), familyOf(ctx), params.symbol, clock.now()), { meta: { venue: familyOf(ctx) } }),
  spotPairs: async () => ok(await spotPairs(archiveDeps(), clock.now()), { meta: { venue: 'spot' } }),
  spotTwap: async ({ params, query }, ctx) => twaps({ ...cursorRoute(ctx), symbol: params.symbol, ...query }, { symbol: params.symbol }),
  spotTwapUser: async ({ params, query }, ctx) => twaps({ ...cursorRoute(ctx), user: params.user, ...query }, {}),
  spotPair: async ({ params }) => ok(await spotPair(archiveDeps(), params.symbol, clock.now()), { meta: { venue: 'spot' } }),
  outcomes: async ({ query: { is_settled, ...page } }) => hip4Page(await outcomesPage(archiveDeps(), { isSettled: is_settled, ...page }, clock.now())),
  outcome: async ({ params }) => ok(await outcome(archiveDeps(), params.outcome_id, clock.now()), { meta: { venue: 'hip4' } }),
  outcomeBySlug: async ({ params }) => ok(await outcomeBySlug(archiveDeps(), params.slug, clock.now()), { meta: { venue: 'hip4' } }),
  // A fixed 10 credits a call, as the reference service prices it (reference §7).
  walletClassify: async ({ query }, ctx) => {
    const { data, meta } = await classifyWallets(archiveDeps(), { family: familyOf(ctx), ...query }, clock.now());
    return ok(data, { meta: { venue: familyOf(ctx), ...meta }, creditMultiplier: 10 });
  },
  questions: async ({ query }) => hip4Page(await questionsPage(archiveDeps(), query, clock.now())),
  question: async ({ params }) => ok(await question(archiveDeps(), params.question_id, clock.now()), { meta: { venue: 'hip4' } }),
});
