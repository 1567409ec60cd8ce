import { minute, type EventDefinition } from './declare.ts';
import { ingestStallsOfRun, stallDeclaration } from './ingest.stall.ts';

export default {
  declaration: stallDeclaration('ingest.recovered'),
  detection: minute<{ threshold_s: number }>({
    params: ['threshold_s'], detect: async (ctx, sets) => (await ingestStallsOfRun(ctx, sets)).filter((c) => c.type === 'ingest.recovered'),
  }),
} satisfies EventDefinition<'ingest.recovered'>;
