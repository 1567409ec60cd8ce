import { batch, declaration, type EventDefinition } from './declare.ts';
import { iso } from './kit/format.ts';
import type { Candidate } from './kit/candidate.ts';
import type { ChainEventRecord } from '#schemas/datasets.ts';

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

/**
 * `chain.upgrade_detected`: `started` when a new node build appears, `completed` when the network
 * has moved to it; both carry the commit as `incident_id`. There is no chain route, so no `api_url`.
 */
export function upgradeCandidates(rows: readonly ChainEventRecord[]): Candidate<'chain.upgrade_detected'>[] {
  return rows.map((r) => {
    const state = r.kind === 'upgrade_started' ? 'started' : 'completed';
    const startedAt = r.kind === 'upgrade_started' ? r.ts : (r.started_at ?? null);
    const durationS = state === 'completed' && startedAt !== null ? Math.round((r.ts - startedAt) / 1000) : null;
    const fields = { state, commit: r.commit, weekday_utc: WEEKDAYS[new Date(r.ts).getUTCDay()]!, duration_s: durationS };
    return {
      type: 'chain.upgrade_detected',
      key: `upgrade:${r.commit}:${state}`,
      occurredAt: r.ts,
      venue: 'perpx' as const,
      symbol: null,
      address: null,
      metrics: fields,
      data: { ...fields, incident_id: r.commit, started_at: startedAt === null ? null : iso(startedAt), timestamp: iso(r.ts) },
    };
  });
}

export default {
  declaration: declaration({
    type: 'chain.upgrade_detected',
    live: true,
    description: 'A new node build; started and completed share incident_id',
    scope: 'public',
    venues: ['perpx'],
    scopeKeys: ['venue'],
    params: {},
    latencyClass: 'seconds',
    metrics: {
      state: { type: 'enum', values: ['started', 'completed'] },
      commit: { type: 'text' },
      weekday_utc: { type: 'enum', values: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] },
      duration_s: { type: 'number', unit: 's' },
    },
  }),
  detection: batch({ reads: 'chain_events', detect: upgradeCandidates }),
} satisfies EventDefinition<'chain.upgrade_detected'>;
