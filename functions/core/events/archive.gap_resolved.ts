import { MARKET_VENUES, minute, type EventDefinition } from './declare.ts';
import { archiveGapsOfRun, gapDeclaration } from './archive.gap_detected.ts';
import { ofType } from './kit/candidate.ts';

export default {
  declaration: gapDeclaration('archive.gap_resolved'),
  detection: minute({ params: [], detect: async (ctx) => ofType(await archiveGapsOfRun(ctx, MARKET_VENUES), 'archive.gap_resolved') }),
  incident: { kind: 'archive_gap', opens: false, params: {} },
} satisfies EventDefinition<'archive.gap_resolved'>;
