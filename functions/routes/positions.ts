/** Positions: wallets (addressed families) and accounts (numbered families), markets and summaries. */
import * as v from 'valibot';
import { familiesOf } from '#schemas/datasets.ts';
import type { Family } from '../core/venues.ts';
import { symbolPath } from '#schemas/market.ts';
import {
  AccountHistoryQuery,
  AccountQuery,
  AccountSummarySchema,
  BulkPositionsQuery,
  L1AccountsQuery,
  L1AccountsSchema,
  MarketPositionSchema,
  MarketPositionsQuery,
  MarketSummaryQuery,
  MarketSummarySchema,
  PositionChangeSchema,
  PositionSchema,
  PositionsFreshnessSchema,
  WalletPositionsQuery,
  WalletPositionsSchema,
  WalletRangeQuery,
  accountIndexPath,
  addressPath,
} from '#schemas/positions.ts';
import { operationGroup, page } from './operation.ts';

/** Positions are keyed by account index where the venue numbers its accounts (the families with an account registry), by wallet address elsewhere. */
const NUMBERED = familiesOf('accounts');
const ADDRESSED = familiesOf('position_changes').filter((family) => !NUMBERED.includes(family));

export const positions = (suffix: string, families: readonly Family[]) => ({ suffix, families, tags: ['Positions'], billed: true });

export const wallet = (suffix: string) => ({ ...positions(`/wallets/{address}${suffix}`, ADDRESSED), pathParams: addressPath });

export const account = (suffix: string) => ({ ...positions(`/accounts/{account_index}${suffix}`, NUMBERED), pathParams: accountIndexPath });

/**
 * Account and market positions (SPEC "Account and market positions"): core and hip3 key accounts by
 * wallet address, altx and altx-rh by account index; spot and hip4 have none.
 */
export const POSITIONS_OPERATIONS = operationGroup('positions', {
  walletPositions: {
    datatype: 'positions',
    ...wallet('/positions'),
    summary: "A wallet's positions: the latest snapshot, an hourly snapshot, or reconstructed at any instant",
    query: WalletPositionsQuery,
    response: page(WalletPositionsSchema, 'Positions, the account summary on the first page, and account_seen when there are none'),
  },
  walletPositionChanges: {
    datatype: 'positions',
    ...wallet('/positions/changes'),
    summary: "A wallet's change log in [start, end): one leg per fill with the position before and after",
    query: WalletRangeQuery,
    response: page(v.array(PositionChangeSchema), 'Legs, oldest first, clamped to meta.built_through'),
  },
  walletPositionHistory: {
    datatype: 'positions',
    ...wallet('/positions/history'),
    summary: "A wallet's positions at each hourly snapshot in [start, end)",
    query: WalletRangeQuery,
    response: page(v.array(PositionSchema), 'Hourly position rows with snapshot_ts; a page covers at most 168 hours'),
  },
  walletAccount: {
    datatype: 'positions',
    ...wallet('/account'),
    summary: "A wallet's account summary at the latest snapshot (hip3: one row per dex unless dex is given)",
    query: AccountQuery,
    response: page(v.array(AccountSummarySchema), 'Account summaries'),
  },
  walletAccountHistory: {
    datatype: 'positions',
    ...wallet('/account/history'),
    summary: "A wallet's account summary at each hourly snapshot in [start, end)",
    query: AccountHistoryQuery,
    response: page(v.array(AccountSummarySchema), 'Hourly account summaries'),
  },
  accountPositions: {
    datatype: 'positions',
    ...account('/positions'),
    summary: "An account's positions: the latest snapshot, an hourly snapshot, or reconstructed at any instant",
    query: WalletPositionsQuery,
    response: page(WalletPositionsSchema, 'Positions, the account summary on the first page, and account_seen when there are none'),
  },
  accountPositionChanges: {
    datatype: 'positions',
    ...account('/positions/changes'),
    summary: "An account's change log in [start, end), with finality",
    query: WalletRangeQuery,
    response: page(v.array(PositionChangeSchema), 'Legs, oldest first, clamped to meta.built_through'),
  },
  accountPositionHistory: {
    datatype: 'positions',
    ...account('/positions/history'),
    summary: "An account's positions at each hourly snapshot in [start, end)",
    query: WalletRangeQuery,
    response: page(v.array(PositionSchema), 'Hourly position rows with snapshot_ts; a page covers at most 168 hours'),
  },
  accountSummary: {
    datatype: 'positions',
    ...account('/account'),
    summary: "An account's position aggregates at the latest snapshot",
    response: page(v.array(AccountSummarySchema), 'One account summary'),
  },
  accountSummaryHistory: {
    datatype: 'positions',
    ...account('/account/history'),
    summary: "An account's position aggregates at each hourly snapshot in [start, end)",
    query: AccountHistoryQuery,
    response: page(v.array(AccountSummarySchema), 'Hourly account summaries'),
  },
  marketPositions: {
    datatype: 'positions',
    ...positions('/positions/{symbol}', [...ADDRESSED, ...NUMBERED]),
    pathParams: symbolPath,
    query: MarketPositionsQuery,
    summary: 'Every open position in one market at a snapshot, largest value first; meta.totals on the first page',
    response: page(v.array(MarketPositionSchema), 'Positions; a page stays on its snapshot (409 snapshot_advanced once it is replaced)'),
  },
  marketPositionsSummary: {
    datatype: 'positions',
    ...positions('/positions/{symbol}/summary', [...ADDRESSED, ...NUMBERED]),
    pathParams: symbolPath,
    query: MarketSummaryQuery,
    summary: 'Long/short counts, sizes, values, average entries and top-10 shares: the latest snapshot, or each hour of a window',
    response: page(v.array(MarketSummarySchema), 'Summaries, oldest first; a page covers at most 168 hours'),
  },
  bulkPositions: {
    datatype: 'positions',
    ...positions('/positions', [...ADDRESSED, ...NUMBERED]),
    query: BulkPositionsQuery,
    summary: 'Every open position at one hourly snapshot, by account and market: JSON, or an Arrow IPC stream (format=arrow)',
    response: page(v.array(MarketPositionSchema), 'Positions (Arrow: the same rows, metadata in x-count, x-next-cursor, x-schema-version)'),
  },
  l1Accounts: {
    datatype: 'accounts',
    ...positions('/accounts', ['altx']),
    query: L1AccountsQuery,
    summary: 'The account indexes an L1 address owns (altx mainnet only)',
    response: page(L1AccountsSchema, 'The L1 address, its account count and the accounts, oldest first'),
  },
  positionsFreshness: {
    method: 'GET',
    path: '/v1/data-quality/positions',
    tags: ['Positions'],
    billed: true,
    summary: 'Per venue: the newest live and hourly positions snapshots, their age, and how far the change log is built and finalized',
    response: page(v.array(PositionsFreshnessSchema), 'One row per venue'),
  },
});
