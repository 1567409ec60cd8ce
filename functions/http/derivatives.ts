/** Route group `derivatives`: open interest and funding, history and current, per family. */
import { currentSample, seriesPage, seriesSymbol } from '../core/market/series.ts';
import { DERIVATIVES_OPERATIONS } from '../routes.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { clock } from '../shared/deps.ts';
import { familyOf, httpRouteGroup, ok, okRows, type RequestContext } from '../shared/http.ts';

const market = (symbol: string, ctx: RequestContext) => ({ family: familyOf(ctx), symbol: seriesSymbol(familyOf(ctx), symbol) });

export const handler = httpRouteGroup(DERIVATIVES_OPERATIONS, {
  openInterest: async ({ params, query }, ctx) => {
    const { family, symbol } = market(params.symbol, ctx);
    const rows = await seriesPage(archiveDeps(), 'open_interest', { routeId: ctx.route.operationId, family, symbol, ...query }, clock.now());
    return okRows(rows, { symbol, venue: family, ...(query.interval && { interval: query.interval }) });
  },
  openInterestCurrent: async ({ params }, ctx) => {
    const { family, symbol } = market(params.symbol, ctx);
    const { row, ageMs } = await currentSample(archiveDeps(), 'open_interest', family, symbol, clock.now());
    return ok(row, { meta: { symbol, venue: family, age_ms: ageMs } });
  },
  funding: async ({ params, query }, ctx) => {
    const { family, symbol } = market(params.symbol, ctx);
    const rows = await seriesPage(archiveDeps(), 'funding', { routeId: ctx.route.operationId, family, symbol, ...query }, clock.now());
    return okRows(rows, { symbol, venue: family, ...(query.interval && { interval: query.interval }) });
  },
  fundingCurrent: async ({ params }, ctx) => {
    const { family, symbol } = market(params.symbol, ctx);
    const { row, ageMs } = await currentSample(archiveDeps(), 'funding', family, symbol, clock.now());
    return ok(row, { meta: { symbol, venue: family, age_ms: ageMs } });
  },
});
