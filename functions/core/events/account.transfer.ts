import { batch, declaration, maxAge, usd, type EventDefinition } from './declare.ts';
import { iso, sqlRound } from './kit/format.ts';
import type { Candidate } from './kit/candidate.ts';
import type { TransferRecord } from '#schemas/datasets.ts';

/**
 * One `account.transfer` per ledger row of a watched address (a send is one row per side). The
 * ledger has no public route, so the payload carries the transfer whole and no `api_url`.
 */
export function transferCandidates(rows: readonly TransferRecord[], watched: ReadonlySet<string>): Candidate<'account.transfer'>[] {
  return rows
    .filter((r) => watched.has(r.user_address))
    .map((r) => {
      const fields = {
        venue: r.family,
        address: r.user_address,
        token: r.symbol,
        amount: Number(r.amount),
        kind: r.kind,
        role: r.role,
        usdc_value: sqlRound(Number(r.usdc_value), 2),
        timestamp: iso(r.ts),
      };
      return {
        type: 'account.transfer',
        key: `transfer:${r.family}:${r.tx_hash}:${r.user_address}:${r.role}`,
        occurredAt: r.ts,
        venue: r.family,
        symbol: r.symbol,
        address: r.user_address,
        metrics: fields,
        data: { ...fields, counterparty: r.counterparty ?? null, tx_hash: r.tx_hash },
      };
    });
}

export default {
  declaration: declaration({
    type: 'account.transfer',
    live: true,
    description: 'A transfer by a watched address',
    scope: 'addresses',
    venues: ['perpx', 'spot'],
    scopeKeys: ['venue', 'symbols', 'addresses'],
    params: maxAge(),
    latencyClass: 'seconds',
    notionalMetric: 'usdc_value',
    metrics: {
      venue: { type: 'enum', values: ['perpx', 'spot'] },
      address: { type: 'text' },
      token: { type: 'text' },
      amount: { type: 'number' },
      kind: { type: 'text' },
      role: { type: 'enum', values: ['source', 'destination'] },
      usdc_value: usd('Transfer value in USDC'),
      timestamp: { type: 'timestamp' },
    },
  }),
  detection: batch({ reads: 'transfers', addressColumn: 'user_address', detect: transferCandidates }),
  preview: { dryRun: true, estimate: { metric: 'usdc_value', rollup: 'transfer_rollups_1h' } },
} satisfies EventDefinition<'account.transfer'>;
