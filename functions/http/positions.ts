/** Route group `positions`: wallet and account positions, change log and history, market, summary and bulk reads. */
import { bulkInArrow, positionsFamily, required, requiredRange } from '../core/positions/request.ts';
import { positionsArrow } from '../core/positions/arrow.ts';
import * as read from '../core/positions/read.ts';
import * as historyRead from '../core/positions/history-read.ts';
import * as marketRead from '../core/positions/market-read.ts';
import { POSITIONS_OPERATIONS } from '../routes/positions.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { oneRequestView } from '../core/archive/files.ts';
import { clock } from '../shared/deps.ts';
import { familyOf, httpRouteGroup, ok, type RequestContext } from '../shared/http.ts';
import { ARROW_CONTENT_TYPE, ARROW_SCHEMA_VERSION } from '#schemas/positions.ts';

const deps = () => oneRequestView(archiveDeps());

const venue = (ctx: RequestContext, query: { dex?: string; include_system?: boolean } = {}) => positionsFamily(familyOf(ctx), query);

const asPage = <T>(page: read.PositionsPage<T>) => ok(page.data, { nextCursor: page.nextCursor, meta: page.meta });

type Params = { address?: string; account_index?: string };
type AccountInput<Q> = { params: Params; query: Q };
type RangeQuery = { start?: number; end?: number; symbol?: string; dex?: string; cursor?: string; limit: number };
type SnapshotQuery = Omit<read.AccountRequest, 'routeId' | 'family' | 'account'> & { timestamp?: number };
const accountOf = (params: Params) => (params.address ?? params.account_index!).toLowerCase();
/** The request of an account read: its route, family (checked against the query) and account. */
function accountRequest(ctx: RequestContext, params: Params, query: { dex?: string }) {
  return { routeId: ctx.route.operationId, family: venue(ctx, query), account: accountOf(params) };
}

const positions = async ({ params, query }: AccountInput<SnapshotQuery>, ctx: RequestContext) => {
  const page = await read.walletPositions(deps(), { ...accountRequest(ctx, params, query), ...query }, clock.now());
  // One object answers, but the rows billed are its positions: 1 credit per 1,000.
  return ok(page.data, { nextCursor: page.nextCursor, meta: page.meta, creditMultiplier: Math.max(1, Math.ceil(page.data.positions.length / 1000)) });
};
const changes = async ({ params, query }: AccountInput<RangeQuery>, ctx: RequestContext) =>
  asPage(await read.walletChanges(deps(), { ...accountRequest(ctx, params, query), ...requiredRange(query) }, clock.now()));
const history = async ({ params, query }: AccountInput<RangeQuery>, ctx: RequestContext) =>
  asPage(await historyRead.walletHistory(deps(), { ...accountRequest(ctx, params, query), ...requiredRange(query) }, clock.now()));
const summary = async ({ params, query }: AccountInput<{ dex?: string }>, ctx: RequestContext) =>
  asPage(await read.accountSummaries(deps(), { family: venue(ctx, query), account: accountOf(params), dex: query.dex }, clock.now()));
const summaryHistory = async ({ params, query }: AccountInput<Omit<RangeQuery, 'symbol'>>, ctx: RequestContext) => {
  const req = { ...accountRequest(ctx, params, query), ...requiredRange(query) };
  // The numbered venues serve at most a month of hours a page.
  const limit = req.family === 'altx' || req.family === 'altx-rh' ? Math.min(query.limit, 744) : query.limit;
  return asPage(await historyRead.accountHistory(deps(), { ...req, limit }, clock.now()));
};
function marketRequest<Q extends { include_system?: boolean }>(ctx: RequestContext, symbol: string, query: Q) {
  return { routeId: ctx.route.operationId, family: venue(ctx, query), symbol, ...query };
}

export const handler = httpRouteGroup(POSITIONS_OPERATIONS, {
  walletPositions: positions,
  walletPositionChanges: changes,
  walletPositionHistory: history,
  walletAccount: summary,
  walletAccountHistory: summaryHistory,
  accountPositions: positions,
  accountPositionChanges: changes,
  accountPositionHistory: history,
  accountSummary: (input, ctx) => summary({ ...input, query: {} }, ctx),
  accountSummaryHistory: summaryHistory,
  marketPositions: async ({ params, query }, ctx) => asPage(await marketRead.marketPositions(deps(), marketRequest(ctx, params.symbol, query), clock.now())),
  marketPositionsSummary: async ({ params, query }, ctx) =>
    asPage(await marketRead.marketSummaries(deps(), marketRequest(ctx, params.symbol, query), clock.now())),
  bulkPositions: async ({ query, headers }, ctx) => {
    const family = venue(ctx, query);
    const arrow = bulkInArrow(query, headers.accept, ARROW_CONTENT_TYPE);
    const page = await marketRead.bulkPositions(deps(), { routeId: ctx.route.operationId, family, ...query, hour: required(query.hour, 'hour') }, clock.now());
    if (!arrow) return ok(marketRead.rowsOfColumns(page.columns, page.count), { nextCursor: page.nextCursor, meta: page.meta });
    return {
      kind: 'binary',
      body: positionsArrow(family, page.columns),
      contentType: ARROW_CONTENT_TYPE,
      rows: page.count,
      headers: { 'x-count': String(page.count), 'x-schema-version': ARROW_SCHEMA_VERSION, ...(page.nextCursor && { 'x-next-cursor': page.nextCursor }) },
    };
  },
  l1Accounts: async ({ query }, ctx) => asPage(await read.accountsOfL1(deps(), { routeId: ctx.route.operationId, ...query }, clock.now())),
  positionsFreshness: async () => ok(await read.positionsFreshness(deps(), clock.now())),
});
