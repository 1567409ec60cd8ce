import { batch, common, declaration, maxAge, pct, type EventDefinition } from './declare.ts';
import { iso, tradesUrl, sqlRound } from './kit/format.ts';
import type { Candidate } from './kit/candidate.ts';
import type { Family } from '../venues.ts';
import type { TwapRecord } from '#schemas/datasets.ts';

/** One `account.twap_lifecycle` per status change of a watched address's TWAP. */
export function twapCandidates(rows: readonly TwapRecord[], watched: ReadonlySet<string>): Candidate<'account.twap_lifecycle'>[] {
  return rows
    .filter((r) => watched.has(r.user_address))
    .map((r) => {
      const family = r.family as Family;
      const size = Number(r.size);
      const fields = {
        venue: family,
        symbol: r.symbol,
        timestamp: iso(r.ts),
        address: r.user_address,
        status: r.status,
        fill_pct: size > 0 ? sqlRound((Number(r.executed_size) / size) * 100, 2) : 0,
      };
      return {
        type: 'account.twap_lifecycle',
        key: `twap:${family}:${r.twap_id}:${r.status}`,
        occurredAt: r.ts,
        venue: family,
        symbol: r.symbol,
        address: r.user_address,
        metrics: fields,
        data: {
          ...fields,
          account: r.user_address,
          twap_id: r.twap_id,
          side: r.side === 'B' ? 'buy' : 'sell',
          size,
          executed_size: Number(r.executed_size),
          api_url: tradesUrl(family, r.symbol, r.ts),
        },
      };
    });
}

export default {
  declaration: declaration({
    type: 'account.twap_lifecycle',
    live: true,
    description: "A watched address's TWAP lifecycle",
    scope: 'addresses',
    venues: ['perpx', 'hip3', 'spot'],
    scopeKeys: ['venue', 'symbols', 'addresses'],
    params: maxAge(),
    metrics: {
      ...common(['perpx', 'hip3', 'spot']),
      address: { type: 'text' },
      status: { type: 'enum', values: ['activated', 'finished', 'terminated'] },
      fill_pct: pct('Share of the TWAP filled'),
    },
  }),
  detection: batch({ reads: 'twaps', addressColumn: 'user_address', detect: twapCandidates }),
} satisfies EventDefinition<'account.twap_lifecycle'>;
