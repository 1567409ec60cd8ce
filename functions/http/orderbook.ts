/** Route group `orderbook`: native snapshots, order-level (L4) books and diffs, full-depth L2, per family. */
import { bookSymbol, l2Book, l2DiffsPage, l2History, l4Book, l4DiffsPage, l4History, nativeBook, nativeBookHistory, type BookHistoryRequest } from '../core/market/orderbook.ts';
import { ORDERBOOK_OPERATIONS } from '../routes.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { clock } from '../shared/deps.ts';
import { familyOf, httpRouteGroup, ok, okRows, type RequestContext } from '../shared/http.ts';
import type { ArchiveDeps } from '../ports/archive.ts';
import type { BookRequest } from '../core/market/orderbook.ts';
import type { JsonRows } from '../core/market/queries.ts';

type SymbolParams = { params: { symbol: string } };

const market = (symbol: string, ctx: RequestContext) => ({ family: familyOf(ctx), symbol: bookSymbol(familyOf(ctx), symbol) });

/** One book at `timestamp` (default now). */
const snapshot = <T>(read: (deps: ArchiveDeps, req: BookRequest) => Promise<T>) =>
  async ({ params, query }: SymbolParams & { query: { timestamp?: number; depth?: number } }, ctx: RequestContext) => {
    const { family, symbol } = market(params.symbol, ctx);
    const book = await read(archiveDeps(), { family, symbol, at: query.timestamp ?? clock.now(), ...(query.depth !== undefined && { depth: query.depth }) });
    return ok(book, { meta: { symbol, venue: family } });
  };

/** A cursor-paged window. */
const history = <T>(read: (deps: ArchiveDeps, req: BookHistoryRequest, now: number) => Promise<JsonRows<T>>) =>
  async ({ params, query }: SymbolParams & { query: Omit<BookHistoryRequest, 'routeId' | 'family' | 'symbol'> }, ctx: RequestContext) => {
    const { family, symbol } = market(params.symbol, ctx);
    return okRows(await read(archiveDeps(), { routeId: ctx.route.operationId, family, symbol, ...query }, clock.now()), { symbol, venue: family });
  };

export const handler = httpRouteGroup(ORDERBOOK_OPERATIONS, {
  orderbook: snapshot(nativeBook),
  orderbookHistory: history(nativeBookHistory),
  l2Orderbook: snapshot(l2Book),
  l2OrderbookHistory: history(l2History),
  l2OrderbookDiffs: history(l2DiffsPage),
  l4Orderbook: snapshot(l4Book),
  l4OrderbookDiffs: history(l4DiffsPage),
  l4OrderbookHistory: history(l4History),
});
