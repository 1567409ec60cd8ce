import { ARCHIVE_GAP_MS, archiveGaps } from '../detect/minute-detectors.ts';
import { DAY_MS, MINUTE_MS, timesOf, type MinuteContext } from '../detect/minute-reads.ts';
import type { Candidate } from '../detect/candidate.ts';
import { MARKET_VENUES, declaration, minute, type EventDefinition, type Venue } from './declare.ts';

/** Gaps detected and resolved, found together once per run: one stream per venue (symbols are ignored), so the previous tick is the venue's. */
export function archiveGapsOfRun(ctx: MinuteContext, venues: readonly Venue[]): Promise<Candidate[]> {
  return ctx.shared('archive-gaps', async () => archiveGaps(await timesOf(ctx, 'trades', venues, ctx.from - ARCHIVE_GAP_MS - MINUTE_MS, DAY_MS, 'venue'), ctx.from, ctx.to));
}

export const gapDeclaration = <T extends 'archive.gap_detected' | 'archive.gap_resolved'>(type: T) => declaration({
  type, live: true, description: type.endsWith('detected') ? 'An ingestion stream stalled beyond its cadence' : 'A stalled stream resumed',
  scope: 'public', venues: MARKET_VENUES, scopeKeys: ['venue'], params: {},
  metrics: { venue: { type: 'enum', values: MARKET_VENUES }, stream: { type: 'text' }, gap_s: { type: 'number', unit: 's' } },
});

export default {
  declaration: gapDeclaration('archive.gap_detected'),
  detection: minute({ params: [], detect: async (ctx) => (await archiveGapsOfRun(ctx, MARKET_VENUES)).filter((c) => c.type === 'archive.gap_detected') }),
} satisfies EventDefinition<'archive.gap_detected'>;
