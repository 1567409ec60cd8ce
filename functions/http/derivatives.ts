/** Route group `derivatives`: open interest, funding (history and current), liquidations and per-market state, per family. */
import { currentSample, seriesPage, seriesSymbol, type Series } from '../core/market/series.ts';
import { marketFreshness, marketSummary } from '../core/market/summary.ts';
import { liquidationVolumePage, liquidationsPage, userLiquidationsPage } from '../core/market/liquidations.ts';
import { triggerLevels, triggerLevelsHistory } from '../core/market/trigger-levels.ts';
import { liquidationLevels, liquidationLevelsHistory } from '../core/market/liquidation-levels.ts';
import { discoveryBoundsOf, externalPrice } from '../core/market/oracle.ts';
import { DERIVATIVES_OPERATIONS } from '../routes/derivatives.ts';
import { AppError } from '../core/errors.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { clock } from '../shared/deps.ts';
import { cursorRoute, familyOf, httpRouteGroup, ok, okRows, type RequestContext } from '../shared/http.ts';
import type { SampleInterval } from '#schemas/intervals.ts';

type HistoryInput = { params: { symbol: string }; query: { start?: number; end?: number; interval?: SampleInterval; limit: number; cursor?: string } };

const market = (symbol: string, ctx: RequestContext) => ({ family: familyOf(ctx), symbol: seriesSymbol(familyOf(ctx), symbol) });
const venueOf = (symbol: string, ctx: RequestContext) => ({ symbol, venue: familyOf(ctx) });
const pagedMarket = (symbol: string, ctx: RequestContext) => ({ ...cursorRoute(ctx), ...market(symbol, ctx) });

const history =
  <S extends Series>(series: S) =>
  async ({ params, query }: HistoryInput, ctx: RequestContext) => {
    const { family, symbol } = market(params.symbol, ctx);
    const rows = await seriesPage(archiveDeps(), series, { ...cursorRoute(ctx), family, symbol, ...query }, clock.now());
    return okRows(rows, { symbol, venue: family, ...(query.interval && { interval: query.interval }) });
  };

const current =
  <S extends Series>(series: S) =>
  async ({ params }: { params: { symbol: string } }, ctx: RequestContext) => {
    const { family, symbol } = market(params.symbol, ctx);
    const { row, ageMs } = await currentSample(archiveDeps(), series, family, symbol, clock.now());
    return ok(row, { meta: { symbol, venue: family, age_ms: ageMs } });
  };

export const handler = httpRouteGroup(DERIVATIVES_OPERATIONS, {
  openInterest: history('open_interest'),
  openInterestCurrent: current('open_interest'),
  funding: history('funding'),
  fundingCurrent: current('funding'),
  liquidations: async ({ params, query }, ctx) => {
    const rows = await liquidationsPage(archiveDeps(), { ...cursorRoute(ctx), family: familyOf(ctx), symbol: params.symbol, ...query }, clock.now());
    return okRows(rows, venueOf(params.symbol, ctx));
  },
  userLiquidations: async ({ params, query: { coin, symbol = coin, ...window } }, ctx) => {
    if (coin !== undefined && symbol !== coin)
      throw new AppError('invalid_parameter', 'symbol and coin name the same filter; send one, or the same value.', { param: 'coin' });
    const rows = await userLiquidationsPage(archiveDeps(), { ...cursorRoute(ctx), family: familyOf(ctx), user: params.user, symbol, ...window }, clock.now());
    return okRows(rows, { venue: familyOf(ctx) });
  },
  liquidationVolume: async ({ params, query }, ctx) => {
    const rows = await liquidationVolumePage(archiveDeps(), { ...cursorRoute(ctx), family: familyOf(ctx), symbol: params.symbol, ...query }, clock.now());
    return okRows(rows, { ...venueOf(params.symbol, ctx), interval: query.interval });
  },
  triggerLevels: async ({ params, query }, ctx) =>
    ok(await triggerLevels(archiveDeps(), { ...market(params.symbol, ctx), ...query }, clock.now()), { meta: venueOf(params.symbol, ctx) }),
  triggerLevelsHistory: async ({ params, query }, ctx) => {
    const { data, nextCursor, meta } = await triggerLevelsHistory(archiveDeps(), { ...pagedMarket(params.symbol, ctx), ...query }, clock.now());
    return ok(data, { nextCursor, meta: { ...venueOf(params.symbol, ctx), ...meta } });
  },
  liquidationLevels: async ({ params, query }, ctx) =>
    ok(await liquidationLevels(archiveDeps(), { ...market(params.symbol, ctx), ...query }, clock.now()), { meta: venueOf(params.symbol, ctx) }),
  liquidationLevelsHistory: async ({ params, query }, ctx) => {
    const { data, nextCursor, meta } = await liquidationLevelsHistory(archiveDeps(), { ...pagedMarket(params.symbol, ctx), ...query }, clock.now());
    return ok(data, { nextCursor, meta: { ...venueOf(params.symbol, ctx), ...meta } });
  },
  oracleExternalPrice: async ({ params }, ctx) => ok(await externalPrice(archiveDeps(), params.symbol, clock.now()), { meta: venueOf(params.symbol, ctx) }),
  oracleDiscoveryBounds: async ({ params }, ctx) =>
    ok(await discoveryBoundsOf(archiveDeps(), params.symbol, clock.now()), { meta: venueOf(params.symbol, ctx) }),
  prices: history('prices'),
  summary: async ({ params }, ctx) => {
    const { family, symbol } = market(params.symbol, ctx);
    return ok(await marketSummary(archiveDeps(), family, symbol, clock.now()), { meta: { symbol, venue: family } });
  },
  freshness: async ({ params }, ctx) => {
    const { family, symbol } = market(params.symbol, ctx);
    return ok(await marketFreshness(archiveDeps(), family, symbol, clock.now()), { meta: { symbol, venue: family } });
  },
});
