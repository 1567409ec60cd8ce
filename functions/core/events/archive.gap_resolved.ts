import { MARKET_VENUES, minute, type EventDefinition } from './declare.ts';
import { archiveGapsOfRun, gapDeclaration } from './archive.gap_detected.ts';

export default {
  declaration: gapDeclaration('archive.gap_resolved'),
  detection: minute({ params: [], detect: async (ctx) => (await archiveGapsOfRun(ctx, MARKET_VENUES)).filter((c) => c.type === 'archive.gap_resolved') }),
} satisfies EventDefinition<'archive.gap_resolved'>;
