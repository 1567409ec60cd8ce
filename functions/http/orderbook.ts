/** Route group `orderbook`: native snapshots and history, order-level books (L4, altx L3) and diffs, full-depth L2, per family. */
import {
  bookSymbol,
  granularityMultiplier,
  l2BookText,
  l2History,
  l3Book,
  l3History,
  l4BookText,
  l4History,
  type BookHistoryRequest,
  type BookRequest,
} from '../core/market/orderbook.ts';
import { l2DiffsPage, l4DiffsPage } from '../core/market/orderbook-diffs.ts';
import { nativeBook, nativeBookHistory } from '../core/market/orderbook-native.ts';
import { ORDERBOOK_OPERATIONS } from '../routes/orderbook.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { oneRequestView } from '../core/archive/files.ts';
import { clock } from '../shared/deps.ts';
import { cursorRoute, familyOf, httpRouteGroup, ok, okJson, okRows, type RequestContext } from '../shared/http.ts';
import type { ArchiveDeps } from '../ports/archive.ts';
import type { JsonRows } from '../core/market/queries.ts';
import type { FullDepthBook, L4Snapshot } from '#schemas/orderbook.ts';

type SymbolParams = { params: { symbol: string } };

/** A book reads its datasets several times; the manifest is asked once per request. */
const deps = () => oneRequestView(archiveDeps());

const market = (symbol: string, ctx: RequestContext) => ({ family: familyOf(ctx), symbol: bookSymbol(familyOf(ctx), symbol) });

/** One book at `timestamp` (default now). */
const snapshot =
  <T, Q extends { timestamp?: number }>(read: (deps: ArchiveDeps, req: BookRequest & Omit<Q, 'timestamp'>) => Promise<T>) =>
  async ({ params, query: { timestamp, ...rest } }: SymbolParams & { query: Q }, ctx: RequestContext) => {
    const { family, symbol } = market(params.symbol, ctx);
    return ok(await read(deps(), { family, symbol, at: timestamp ?? clock.now(), ...rest }), { meta: { symbol, venue: family } });
  };

/** One book at `timestamp` (default now), already JSON text. */
const text =
  <T>(read: (deps: ArchiveDeps, req: BookRequest) => Promise<string>) =>
  async ({ params, query: { timestamp, ...rest } }: SymbolParams & { query: { timestamp?: number; depth?: number } }, ctx: RequestContext) => {
    const { family, symbol } = market(params.symbol, ctx);
    return okJson<T>(await read(deps(), { family, symbol, at: timestamp ?? clock.now(), ...rest }), { symbol, venue: family });
  };

/** A cursor-paged window. */
const history =
  <T, R extends BookHistoryRequest>(read: (deps: ArchiveDeps, req: R, now: number) => Promise<JsonRows<T>>) =>
  async ({ params, query }: SymbolParams & { query: Omit<R, 'routeId' | 'cursorForm' | 'family' | 'symbol'> }, ctx: RequestContext) => {
    const { family, symbol } = market(params.symbol, ctx);
    return okRows(await read(deps(), { ...cursorRoute(ctx), family, symbol, ...query } as R, clock.now()), { symbol, venue: family });
  };

export const handler = httpRouteGroup(ORDERBOOK_OPERATIONS, {
  orderbook: snapshot(nativeBook),
  orderbookHistory: async ({ params, query }, ctx) => {
    const { family, symbol } = market(params.symbol, ctx);
    const result = await nativeBookHistory(deps(), { ...cursorRoute(ctx), family, symbol, ...query }, clock.now());
    // Finer altx granularities cost more credits per row (tick: per request).
    const creditMultiplier = granularityMultiplier(family, query.granularity);
    const meta = { symbol, venue: family };
    return 'tick' in result ? ok(result.tick, { nextCursor: result.nextCursor, meta, creditMultiplier }) : okRows(result.rows, meta, creditMultiplier);
  },
  // Deep books come rendered as JSON text (shaped in DuckDB), spliced into the envelope.
  l2Orderbook: text<FullDepthBook>(l2BookText),
  l2OrderbookHistory: history(l2History),
  l2OrderbookDiffs: history(l2DiffsPage),
  l4Orderbook: text<L4Snapshot>(l4BookText),
  l4OrderbookDiffs: history(l4DiffsPage),
  l4OrderbookHistory: history(l4History),
  l3Orderbook: snapshot(l3Book),
  l3OrderbookHistory: history(l3History),
});
