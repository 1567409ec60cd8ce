/** Route group `positions`: wallet and account positions, change log and history, market, summary and bulk reads. */
import { AppError } from '../core/errors.ts';
import { isPositionFamily, type PositionFamily } from '../core/positions/engine.ts';
import { positionsArrow } from '../core/positions/arrow.ts';
import * as read from '../core/positions/read.ts';
import * as marketRead from '../core/positions/market-read.ts';
import { POSITIONS_OPERATIONS } from '../routes/positions.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { oneRequestView } from '../core/archive/files.ts';
import { clock } from '../shared/deps.ts';
import { familyOf, httpRouteGroup, ok, type RequestContext } from '../shared/http.ts';
import { ARROW_CONTENT_TYPE, ARROW_SCHEMA_VERSION } from '#schemas/positions.ts';

const deps = () => oneRequestView(archiveDeps());

/** The family, with `dex` (hip3 only) and `include_system` (altx families only) refused where they do not apply. */
function venue(ctx: RequestContext, query: { dex?: string; include_system?: boolean } = {}): PositionFamily {
  const family = familyOf(ctx);
  if (!isPositionFamily(family)) throw new AppError('unsupported_for_venue', `${family} has no positions.`);
  if (query.dex !== undefined && family !== 'hip3') throw new AppError('invalid_parameter', 'dex applies to hip3 positions only.', { param: 'dex' });
  if (query.include_system !== undefined && family !== 'altx' && family !== 'altx-rh') {
    throw new AppError('invalid_parameter', 'include_system applies to altx and altx-rh positions only.', { param: 'include_system' });
  }
  return family;
}

function required<T>(value: T | undefined, param: string): T {
  if (value === undefined) throw new AppError('invalid_parameter', `${param} is required.`, { param });
  return value;
}

const asPage = <T>(page: read.PositionsPage<T>) => ok(page.data, { nextCursor: page.nextCursor, meta: page.meta });
const range = <Q extends { start?: number; end?: number }>(query: Q) => ({ ...query, start: required(query.start, 'start'), end: required(query.end, 'end') });

type AccountInput<Q> = { params: { address?: string; account_index?: string }; query: Q };
const accountOf = (params: AccountInput<unknown>['params']) => (params.address ?? params.account_index!).toLowerCase();

const positions = async ({ params, query }: AccountInput<Omit<read.AccountRequest, 'routeId' | 'family' | 'account'> & { timestamp?: number }>, ctx: RequestContext) => {
  const page = await read.walletPositions(deps(), { routeId: ctx.route.operationId, family: venue(ctx, query), account: accountOf(params), ...query }, clock.now());
  // One object answers, but the rows billed are its positions: 1 credit per 1,000.
  return ok(page.data, { nextCursor: page.nextCursor, meta: page.meta, creditMultiplier: Math.max(1, Math.ceil(page.data.positions.length / 1000)) });
};
const changes = async ({ params, query }: AccountInput<{ start?: number; end?: number; symbol?: string; dex?: string; cursor?: string; limit: number }>, ctx: RequestContext) =>
  asPage(await read.walletChanges(deps(), { routeId: ctx.route.operationId, family: venue(ctx, query), account: accountOf(params), ...range(query) }, clock.now()));
const history = async ({ params, query }: AccountInput<{ start?: number; end?: number; symbol?: string; dex?: string; cursor?: string; limit: number }>, ctx: RequestContext) =>
  asPage(await read.walletHistory(deps(), { routeId: ctx.route.operationId, family: venue(ctx, query), account: accountOf(params), ...range(query) }, clock.now()));
const summary = async ({ params, query }: AccountInput<{ dex?: string }>, ctx: RequestContext) =>
  asPage(await read.accountSummaries(deps(), { family: venue(ctx, query), account: accountOf(params), dex: query.dex }, clock.now()));
const summaryHistory = async ({ params, query }: AccountInput<{ start?: number; end?: number; dex?: string; cursor?: string; limit: number }>, ctx: RequestContext) => {
  const family = venue(ctx, query);
  // The numbered venues serve at most a month of hours a page.
  const limit = family === 'altx' || family === 'altx-rh' ? Math.min(query.limit, 744) : query.limit;
  return asPage(await read.accountHistory(deps(), { routeId: ctx.route.operationId, family, account: accountOf(params), ...range(query), limit }, clock.now()));
};

export const handler = httpRouteGroup(POSITIONS_OPERATIONS, {
  walletPositions: positions, walletPositionChanges: changes, walletPositionHistory: history, walletAccount: summary, walletAccountHistory: summaryHistory,
  accountPositions: positions, accountPositionChanges: changes, accountPositionHistory: history,
  accountSummary: (input, ctx) => summary({ ...input, query: {} }, ctx), accountSummaryHistory: summaryHistory,
  marketPositions: async ({ params, query }, ctx) =>
    asPage(await marketRead.marketPositions(deps(), { routeId: ctx.route.operationId, family: venue(ctx, query), symbol: params.symbol, ...query }, clock.now())),
  marketPositionsSummary: async ({ params, query }, ctx) =>
    asPage(await marketRead.marketSummaries(deps(), { routeId: ctx.route.operationId, family: venue(ctx, query), symbol: params.symbol, ...query }, clock.now())),
  bulkPositions: async ({ query, headers }, ctx) => {
    const family = venue(ctx, query);
    const arrow = query.format === 'arrow' || (query.format === undefined && (headers.accept ?? '').includes(ARROW_CONTENT_TYPE));
    if (!arrow && query.limit > 2000) throw new AppError('invalid_parameter', 'limit must be at most 2000 for JSON pages (Arrow pages hold up to 50,000).', { param: 'limit' });
    const page = await marketRead.bulkPositions(deps(), { routeId: ctx.route.operationId, family, ...query, hour: required(query.hour, 'hour') }, clock.now());
    if (!arrow) return ok(marketRead.rowsOfColumns(page.columns, page.count), { nextCursor: page.nextCursor, meta: page.meta });
    return {
      kind: 'binary', body: positionsArrow(family, page.columns), contentType: ARROW_CONTENT_TYPE, rows: page.count,
      headers: { 'x-count': String(page.count), 'x-schema-version': ARROW_SCHEMA_VERSION, ...(page.nextCursor && { 'x-next-cursor': page.nextCursor }) },
    };
  },
  l1Accounts: async ({ query }, ctx) => asPage(await read.accountsOfL1(deps(), { routeId: ctx.route.operationId, ...query }, clock.now())),
  positionsFreshness: async () => ok(await read.positionsFreshness(deps(), clock.now())),
});
