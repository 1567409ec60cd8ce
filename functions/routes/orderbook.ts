/** Order books: native snapshots, L2 diffs, full-depth L2, L3 and L4 books and their history. */
import * as v from 'valibot';
import { familiesOf } from '#schemas/datasets.ts';
import { CAPPED_BOOK_FAMILIES, type Family } from '../core/venues.ts';
import { symbolPath } from '#schemas/market.ts';
import {
  BookHistoryQuery,
  BookQuery,
  FullDepthBookSchema,
  FullDepthHistoryQuery,
  FullDepthQuery,
  L2DiffSchema,
  L2DiffsQuery,
  L3HistoryQuery,
  L3Query,
  L3SnapshotSchema,
  L4DiffSchema,
  L4DiffsQuery,
  L4HistoryQuery,
  L4Query,
  L4SnapshotSchema,
  OrderBookSchema,
  TickHistorySchema,
} from '#schemas/orderbook.ts';
import { operationGroup, page } from './operation.ts';

/** The order-level book is addressed (L4) where the venue's book is the capped perpx one (altx's is L3). */
const L4_FAMILIES = familiesOf('l4_diffs').filter((family) => CAPPED_BOOK_FAMILIES.includes(family));
/** Full-depth L2 is derived from the L4 book of perpetuals (the families with funding): core and hip3. */
const FULL_DEPTH_FAMILIES = L4_FAMILIES.filter((family) => familiesOf('funding').includes(family));

const book = (suffix: string, families: readonly Family[]) => ({ suffix, families, tags: ['Order books'], billed: true, pathParams: symbolPath });

/** Order books: native snapshots, order-level (L4) books and diffs, and full-depth L2 derived from them. */
export const ORDERBOOK_OPERATIONS = operationGroup('orderbook', {
  orderbook: {
    datatype: 'l2_orderbook',
    ...book('/orderbook/{symbol}', familiesOf('l2_snapshots')),
    legacy: [{ path: '/v1/orderbook/{symbol}', operationId: 'getLegacyOrderbook' }],
    summary: 'The native book snapshot at or before an instant (default now)',
    query: BookQuery,
    response: page(OrderBookSchema, 'The book, levels best first; mid, spread and spread_bps when both sides have one'),
  },
  orderbookHistory: {
    datatype: 'l2_orderbook',
    ...book('/orderbook/{symbol}/history', familiesOf('l2_snapshots')),
    legacy: [{ path: '/v1/orderbook/{symbol}/history', operationId: 'getLegacyOrderbookHistory' }],
    summary: 'Native book snapshots in a window, oldest first (altx, altx-rh: finer granularities and tick deltas)',
    query: BookHistoryQuery,
    response: page(v.union([v.array(OrderBookSchema), TickHistorySchema]), 'A page of books; with granularity=tick, the book at start and its deltas'),
  },
  l2Orderbook: {
    datatype: 'l2_full_depth',
    ...book('/orderbook/{symbol}/l2', FULL_DEPTH_FAMILIES),
    summary: 'Full-depth L2 at an instant: the order-level book aggregated by price',
    query: FullDepthQuery,
    response: page(FullDepthBookSchema, 'Every level (or depth per side); counts and totals before truncation'),
  },
  l2OrderbookHistory: {
    datatype: 'l2_full_depth',
    ...book('/orderbook/{symbol}/l2/history', FULL_DEPTH_FAMILIES),
    summary: 'Full-depth L2 at each checkpoint in a window, oldest first',
    query: FullDepthHistoryQuery,
    response: page(v.array(FullDepthBookSchema), 'A page of full-depth books'),
  },
  l2OrderbookDiffs: {
    datatype: 'l2_full_depth',
    ...book('/orderbook/{symbol}/l2/diffs', FULL_DEPTH_FAMILIES),
    summary: 'Full-depth L2 changes: each level a block changed, with its size and order count after it',
    query: L2DiffsQuery,
    response: page(v.array(L2DiffSchema), 'A page of level changes, in block order; a page never splits a block'),
  },
  l4Orderbook: {
    datatype: 'l4_orderbook',
    ...book('/orderbook/{symbol}/l4', L4_FAMILIES),
    summary: 'The order-level book at an instant: every resting order in queue priority',
    query: L4Query,
    response: page(L4SnapshotSchema, 'The book, rebuilt from the newest checkpoint and the diffs after it'),
  },
  l4OrderbookDiffs: {
    datatype: 'l4_orderbook',
    ...book('/orderbook/{symbol}/l4/diffs', L4_FAMILIES),
    summary: 'Order-level diffs (new, update, remove) in block and sequence order',
    query: L4DiffsQuery,
    response: page(v.array(L4DiffSchema), 'A page of diffs'),
  },
  l4OrderbookHistory: {
    datatype: 'l4_orderbook',
    ...book('/orderbook/{symbol}/l4/history', L4_FAMILIES),
    summary: 'Order-level checkpoints in a window, oldest first',
    query: L4HistoryQuery,
    response: page(v.array(L4SnapshotSchema), 'A page of checkpoints'),
  },
  l3Orderbook: {
    datatype: 'l3_orderbook',
    ...book('/l3orderbook/{symbol}', ['altx']),
    summary: "The order-level (L3) book at an instant: at most 250 orders a side, optionally one account's",
    query: L3Query,
    response: page(L3SnapshotSchema, 'Bids then asks, best first, in queue order'),
  },
  l3OrderbookHistory: {
    datatype: 'l3_orderbook',
    ...book('/l3orderbook/{symbol}/history', ['altx']),
    summary: 'L3 books at each checkpoint in a window, oldest first',
    query: L3HistoryQuery,
    response: page(v.array(L3SnapshotSchema), 'A page of L3 books'),
  },
});
