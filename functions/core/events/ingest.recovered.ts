import { minute, type EventDefinition } from './declare.ts';
import { DEFAULT_STALL_THRESHOLD_S, ingestStallsOfRun, stallDeclaration } from './ingest.stall.ts';
import { ofType } from './kit/candidate.ts';

export default {
  declaration: stallDeclaration('ingest.recovered'),
  detection: minute<{ threshold_s: number }, 'ingest.recovered'>({
    params: ['threshold_s'],
    detect: async (ctx, sets) => ofType(await ingestStallsOfRun(ctx, sets), 'ingest.recovered'),
  }),
  incident: { kind: 'ingest_stall', opens: false, params: { threshold_s: DEFAULT_STALL_THRESHOLD_S } },
} satisfies EventDefinition<'ingest.recovered'>;
