/** Route group `derivatives`: open interest and funding, history and current, per family. */
import { currentSample, seriesPage, seriesSymbol, type SeriesDataset } from '../core/market/series.ts';
import { DERIVATIVES_OPERATIONS } from '../routes.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { clock } from '../shared/deps.ts';
import { familyOf, httpRouteGroup, ok, okRows, type RequestContext } from '../shared/http.ts';
import type { SampleInterval } from '../../schemas/intervals.ts';

type HistoryInput = { params: { symbol: string }; query: { start?: number; end?: number; interval?: SampleInterval; limit: number; cursor?: string } };

const market = (symbol: string, ctx: RequestContext) => ({ family: familyOf(ctx), symbol: seriesSymbol(familyOf(ctx), symbol) });

const history = <D extends SeriesDataset>(dataset: D) => async ({ params, query }: HistoryInput, ctx: RequestContext) => {
  const { family, symbol } = market(params.symbol, ctx);
  const rows = await seriesPage(archiveDeps(), dataset, { routeId: ctx.route.operationId, family, symbol, ...query }, clock.now());
  return okRows(rows, { symbol, venue: family, ...(query.interval && { interval: query.interval }) });
};

const current = <D extends SeriesDataset>(dataset: D) => async ({ params }: { params: { symbol: string } }, ctx: RequestContext) => {
  const { family, symbol } = market(params.symbol, ctx);
  const { row, ageMs } = await currentSample(archiveDeps(), dataset, family, symbol, clock.now());
  return ok(row, { meta: { symbol, venue: family, age_ms: ageMs } });
};

export const handler = httpRouteGroup(DERIVATIVES_OPERATIONS, {
  openInterest: history('open_interest'),
  openInterestCurrent: current('open_interest'),
  funding: history('funding'),
  fundingCurrent: current('funding'),
});
