import { batch, common, declaration, maxAge, type EventDefinition } from './declare.ts';
import { iso } from './kit/format.ts';
import type { Candidate } from './kit/candidate.ts';
import { FAMILY_PREFIX, type Family } from '../venues.ts';
import type { OrderEventRecord } from '#schemas/datasets.ts';

/** Involuntary engine cancels (order statuses); submission-time rejects never reach the order book. */
export const ENGINE_CANCELS: ReadonlySet<string> = new Set([
  'reduceOnlyCanceled',
  'selfTradeCanceled',
  'siblingFilledCanceled',
  'openInterestCapCanceled',
  'marginCanceled',
  'liquidatedCanceled',
  'scheduledCancel',
]);

/** One `account.order_rejected` per engine cancel of a watched address's order. */
export function orderRejectedCandidates(rows: readonly OrderEventRecord[], watched: ReadonlySet<string>): Candidate<'account.order_rejected'>[] {
  return rows
    .filter((r) => ENGINE_CANCELS.has(r.status) && watched.has(r.user_address))
    .map((r) => {
      const family = r.family as Family;
      const fields = { venue: family, symbol: r.symbol, timestamp: iso(r.ts), address: r.user_address, reason: r.status };
      return {
        type: 'account.order_rejected',
        key: `cancel:${family}:${r.oid}:${r.status}`,
        occurredAt: r.ts,
        venue: family,
        symbol: r.symbol,
        address: r.user_address,
        metrics: fields,
        data: {
          ...fields,
          account: r.user_address,
          oid: r.oid,
          side: r.side,
          order_type: r.order_type,
          size: r.orig_size ?? r.size ?? null,
          limit_price: r.limit_price ?? null,
          is_trigger: r.is_trigger,
          api_url: `${FAMILY_PREFIX[family]}/orders/${encodeURIComponent(r.symbol)}/flow?start=${r.ts}&end=${r.ts + 1}`,
        },
      };
    });
}

export default {
  // Found per ingested batch, so it arrives faster than its declared `minutes` class promises.
  declaration: declaration({
    type: 'account.order_rejected',
    live: true,
    description: "An involuntary engine cancel of a watched address's order",
    scope: 'addresses',
    venues: ['perpx', 'hip3'],
    scopeKeys: ['venue', 'symbols', 'addresses'],
    params: maxAge(),
    metrics: { ...common(['perpx', 'hip3']), address: { type: 'text' }, reason: { type: 'enum', values: [...ENGINE_CANCELS] } },
  }),
  detection: batch({ reads: 'order_events', addressColumn: 'user_address', detect: orderRejectedCandidates }),
} satisfies EventDefinition<'account.order_rejected'>;
