import { DAY_MS, MINUTE_MS, timesOf, type MinuteContext } from './kit/reads.ts';
import type { Candidate } from './kit/candidate.ts';
import { MARKET_VENUES, declaration, minute, type EventDefinition, type Venue } from './declare.ts';
import { iso } from './kit/format.ts';
import { groupBy } from '../group.ts';
import type { Tick } from './kit/reads.ts';
import { silences, incidentOf } from './kit/silences.ts';
import { FAMILY_PREFIX } from '../venues.ts';
import { ofType } from './kit/candidate.ts';

/** Archive gaps: a venue's trade stream silent for this long is a gap in the archive. */
export const ARCHIVE_GAP_MS = 5 * MINUTE_MS;

/** `archive.gap_detected` / `archive.gap_resolved`, per venue, from the trade stream's own timestamps. */
export function archiveGaps(ticks: readonly Tick[], from: number, to: number): Candidate<GapType>[] {
  const out: Candidate<GapType>[] = [];
  for (const stream of groupBy(ticks, (t) => t.family).values()) {
    const family = stream[0]!.family;
    const times = stream.map((t) => t.ts).sort((a, b) => a - b);
    for (const s of silences(times, ARCHIVE_GAP_MS, from, to)) {
      const type = s.state === 'stalled' ? 'archive.gap_detected' : 'archive.gap_resolved';
      const incident = incidentOf('gap', family, s.since);
      const fields = { venue: family, stream: 'trades', gap_s: Math.round(((s.until ?? s.at) - s.since) / 1000) };
      out.push({
        type,
        key: `${type}:${incident}`,
        occurredAt: s.at,
        venue: family,
        symbol: null,
        address: null,
        metrics: fields,
        data: {
          ...fields,
          state: s.state === 'stalled' ? 'detected' : 'resolved',
          incident_id: incident,
          gap_id: incident,
          last_data_at: iso(s.since),
          ...(s.until !== undefined && { resumed_at: iso(s.until) }),
          api_url: `${FAMILY_PREFIX[family]}/trades/{symbol}?start=${s.since}&end=${s.until ?? s.at}`,
        },
      });
    }
  }
  return out;
}

/** Gaps detected and resolved, found together once per run: one stream per venue (symbols are ignored), so the previous tick is the venue's. */
export function archiveGapsOfRun(ctx: MinuteContext, venues: readonly Venue[]): Promise<Candidate<GapType>[]> {
  return ctx.shared('archive-gaps', async () =>
    archiveGaps(await timesOf(ctx, 'trades', venues, ctx.from - ARCHIVE_GAP_MS - MINUTE_MS, DAY_MS, 'venue'), ctx.from, ctx.to),
  );
}

/** The two types this module's detector finds together. */
export type GapType = 'archive.gap_detected' | 'archive.gap_resolved';

export const gapDeclaration = <T extends GapType>(type: T) =>
  declaration({
    type,
    live: true,
    description: type.endsWith('detected') ? 'An ingestion stream stalled beyond its cadence' : 'A stalled stream resumed',
    scope: 'public',
    venues: MARKET_VENUES,
    scopeKeys: ['venue'],
    params: {},
    metrics: { venue: { type: 'enum', values: MARKET_VENUES }, stream: { type: 'text' }, gap_s: { type: 'number', unit: 's' } },
  });

export default {
  declaration: gapDeclaration('archive.gap_detected'),
  detection: minute({ params: [], detect: async (ctx) => ofType(await archiveGapsOfRun(ctx, MARKET_VENUES), 'archive.gap_detected') }),
  incident: { kind: 'archive_gap', opens: true, params: {} },
} satisfies EventDefinition<'archive.gap_detected'>;
