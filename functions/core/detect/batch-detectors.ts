/**
 * Detectors run on each ingested batch (and by dry-run and estimate over the archive, so they see
 * the same occurrences): the `seconds` class (account fills and transfers, market liquidations,
 * liquidated accounts, node upgrades) and watched accounts' engine cancels and TWAPs, which need
 * nothing but the batch. Pure: one dataset's records in, candidates out; the event registry
 * (core/events/) says which detector reads which dataset, and relative metrics are added by
 * `withReferences`.
 *
 * Collapsing: the fills of one order sweep (one address, market, side and instant) are one
 * `account.fill`; the fills of one liquidation cascade (one account, market and instant) are one
 * `market.liquidation` and one `account.liquidated`.
 */
import type { ChainEventRecord, LiquidationRecord, OrderEventRecord, TradeRecord, TransferRecord, TwapRecord } from '../../../schemas/datasets.ts';
import { FAMILY_PREFIX } from '../venues.ts';
import type { Family } from '../venues.ts';
import { groupBy } from './group.ts';
import type { Candidate } from './candidate.ts';
import { roundAsSql } from './rounding.ts';

/** Involuntary engine cancels (order statuses); submission-time rejects never reach the order book. */
export const ENGINE_CANCELS: ReadonlySet<string> = new Set([
  'reduceOnlyCanceled', 'selfTradeCanceled', 'siblingFilledCanceled', 'openInterestCapCanceled', 'marginCanceled', 'liquidatedCanceled', 'scheduledCancel',
]);

/** A REST path covering one instant of a market's trades: where the full rows are. */
export function tradesUrl(family: Family, symbol: string, ts: number): string {
  return `${FAMILY_PREFIX[family]}/trades/${encodeURIComponent(symbol)}?start=${ts}&end=${ts + 1}`;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** As SQL rounds: a notional sent here and the one the hourly rollups bucket are the same number. */
const round = (n: number, digits = 6) => roundAsSql(n, digits);
/** A group's fills in trade id order: sums of floating-point products depend on their order, and the rollups sum in this one. */
const byTradeId = <T extends { trade_id: number }>(fills: readonly T[]) => [...fills].sort((a, b) => a.trade_id - b.trade_id);

/** The trade columns fillCandidates reads (a preview's scan decodes only these). */
export const FILL_COLUMNS = ['family', 'symbol', 'ts', 'trade_id', 'user_address', 'side', 'size', 'price', 'order_id', 'crossed'] as const;

/** One `account.fill` per address, market, side and instant. */
export function fillCandidates(trades: readonly TradeRecord[], watched: ReadonlySet<string>): Candidate[] {
  const mine = trades.filter((t) => t.user_address && watched.has(t.user_address));
  return [...groupBy(mine, (t) => `${t.family}|${t.symbol}|${t.user_address}|${t.side}|${t.ts}`).values()].map((fills) => {
    const first = fills[0]!;
    const family = first.family as Family;
    let size = 0;
    let notional = 0;
    for (const f of byTradeId(fills)) {
      size += Number(f.size);
      notional += Number(f.size) * Number(f.price);
    }
    const side = first.side === 'B' ? 'buy' : 'sell';
    const orderIds = [...new Set(fills.map((f) => f.order_id).filter((id): id is number => typeof id === 'number'))].map(String);
    const taker = fills.some((f) => f.crossed === true);
    return {
      type: 'account.fill', key: `fill:${family}:${first.symbol}:${first.user_address}:${first.side}:${first.ts}:${fills.map((f) => f.trade_id).sort((a, b) => a - b).join(',')}`,
      occurredAt: first.ts, venue: family, symbol: first.symbol, address: first.user_address!,
      metrics: {
        venue: family, symbol: first.symbol, timestamp: iso(first.ts), address: first.user_address!, side, size: round(size), price: round(notional / size),
        notional_usd: round(notional, 2), taker, fill_count: fills.length,
      },
      data: {
        venue: family, symbol: first.symbol, account: first.user_address, side, size: round(size), vwap: round(notional / size), notional_usd: round(notional, 2),
        buy_notional_usd: side === 'buy' ? round(notional, 2) : 0, fill_count: fills.length, order_ids: orderIds, taker,
        timestamp: iso(first.ts), api_url: tradesUrl(family, first.symbol, first.ts),
      },
    };
  });
}

/** The liquidation columns liquidationCandidates reads. */
export const LIQUIDATION_COLUMNS = ['family', 'symbol', 'ts', 'trade_id', 'liquidated_user', 'size', 'price', 'side', 'closed_pnl', 'direction'] as const;

/** One `market.liquidation` (and, for the account, one `account.liquidated`) per account, market and instant. */
export function liquidationCandidates(rows: readonly LiquidationRecord[], watched: ReadonlySet<string>): Candidate[] {
  const out: Candidate[] = [];
  for (const fills of groupBy(rows, (r) => `${r.family}|${r.symbol}|${r.liquidated_user}|${r.ts}`).values()) {
    const first = fills[0]!;
    const family = first.family as Family;
    let notional = 0;
    let closedPnl = 0;
    for (const f of byTradeId(fills)) {
      notional += Number(f.size) * Number(f.price);
      closedPnl += Number(f.closed_pnl ?? 0);
    }
    // The liquidated account sells to close a long and buys to close a short.
    const side = first.side === 'A' ? 'long' : 'short';
    const key = `liq:${family}:${first.symbol}:${first.liquidated_user}:${first.ts}`;
    const common = { venue: family, symbol: first.symbol, timestamp: iso(first.ts), notional_usd: round(notional, 2) };
    const data = {
      ...common, side, closed_pnl: round(closedPnl, 2), liquidated_user: first.liquidated_user, fill_count: fills.length,
      direction: first.direction ?? null, api_url: tradesUrl(family, first.symbol, first.ts),
    };
    out.push({
      type: 'market.liquidation', key, occurredAt: first.ts, venue: family, symbol: first.symbol, address: null,
      metrics: { ...common, side, liquidated_user: first.liquidated_user, direction: first.direction ?? null }, data,
    });
    if (watched.has(first.liquidated_user)) {
      out.push({
        type: 'account.liquidated', key, occurredAt: first.ts, venue: family, symbol: first.symbol, address: first.liquidated_user,
        metrics: { ...common, address: first.liquidated_user }, data: { ...data, account: first.liquidated_user },
      });
    }
  }
  return out;
}

/**
 * One `account.transfer` per ledger row of a watched address (a send is one row per side). The
 * ledger has no public route, so the payload carries the transfer whole and no `api_url`.
 */
export function transferCandidates(rows: readonly TransferRecord[], watched: ReadonlySet<string>): Candidate[] {
  return rows.filter((r) => watched.has(r.user_address)).map((r) => {
    const fields = {
      venue: r.family, address: r.user_address, token: r.symbol, amount: Number(r.amount), kind: r.kind, role: r.role, usdc_value: round(Number(r.usdc_value), 2),
      timestamp: iso(r.ts),
    };
    return {
      type: 'account.transfer', key: `transfer:${r.family}:${r.tx_hash}:${r.user_address}:${r.role}`, occurredAt: r.ts, venue: r.family, symbol: r.symbol,
      address: r.user_address, metrics: fields, data: { ...fields, counterparty: r.counterparty ?? null, tx_hash: r.tx_hash },
    };
  });
}

/** One `account.order_rejected` per engine cancel of a watched address's order. */
export function orderRejectedCandidates(rows: readonly OrderEventRecord[], watched: ReadonlySet<string>): Candidate[] {
  return rows.filter((r) => ENGINE_CANCELS.has(r.status) && watched.has(r.user_address)).map((r) => {
    const family = r.family as Family;
    const fields = { venue: family, symbol: r.symbol, timestamp: iso(r.ts), address: r.user_address, reason: r.status };
    return {
      type: 'account.order_rejected', key: `cancel:${family}:${r.oid}:${r.status}`, occurredAt: r.ts, venue: family, symbol: r.symbol, address: r.user_address,
      metrics: fields,
      data: {
        ...fields, account: r.user_address, oid: r.oid, side: r.side, order_type: r.order_type, size: r.orig_size ?? r.size ?? null,
        limit_price: r.limit_price ?? null, is_trigger: r.is_trigger, api_url: `${FAMILY_PREFIX[family]}/orders/${encodeURIComponent(r.symbol)}/flow?start=${r.ts}&end=${r.ts + 1}`,
      },
    };
  });
}

/** One `account.twap_lifecycle` per status change of a watched address's TWAP. */
export function twapCandidates(rows: readonly TwapRecord[], watched: ReadonlySet<string>): Candidate[] {
  return rows.filter((r) => watched.has(r.user_address)).map((r) => {
    const family = r.family as Family;
    const size = Number(r.size);
    const fields = {
      venue: family, symbol: r.symbol, timestamp: iso(r.ts), address: r.user_address, status: r.status,
      fill_pct: size > 0 ? round((Number(r.executed_size) / size) * 100, 2) : 0,
    };
    return {
      type: 'account.twap_lifecycle', key: `twap:${family}:${r.twap_id}:${r.status}`, occurredAt: r.ts, venue: family, symbol: r.symbol, address: r.user_address,
      metrics: fields, data: { ...fields, account: r.user_address, twap_id: r.twap_id, side: r.side === 'B' ? 'buy' : 'sell', size, executed_size: Number(r.executed_size), api_url: tradesUrl(family, r.symbol, r.ts) },
    };
  });
}

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

/**
 * `chain.upgrade_detected`: `started` when a new node build appears, `completed` when the network
 * has moved to it; both carry the commit as `incident_id`. There is no chain route, so no `api_url`.
 */
export function upgradeCandidates(rows: readonly ChainEventRecord[]): Candidate[] {
  return rows.map((r) => {
    const state = r.kind === 'upgrade_started' ? 'started' : 'completed';
    const startedAt = r.kind === 'upgrade_started' ? r.ts : (r.started_at ?? null);
    const durationS = state === 'completed' && startedAt !== null ? Math.round((r.ts - startedAt) / 1000) : null;
    const fields = { state, commit: r.commit, weekday_utc: WEEKDAYS[new Date(r.ts).getUTCDay()]!, duration_s: durationS };
    return {
      type: 'chain.upgrade_detected', key: `upgrade:${r.commit}:${state}`, occurredAt: r.ts, venue: 'perpx' as const, symbol: null, address: null,
      metrics: fields, data: { ...fields, incident_id: r.commit, started_at: startedAt === null ? null : iso(startedAt), timestamp: iso(r.ts) },
    };
  });
}
