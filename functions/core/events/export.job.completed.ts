import { declaration, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({ type: 'export.job.completed', live: true, description: 'A bulk export finished', scope: 'user', venues: [], params: {}, metrics: { job_id: { type: 'text' } } }),
  detection: { kind: 'announced', by: 'the export job, through the events queue (core/detect/user-events.ts)' },
} satisfies EventDefinition<'export.job.completed'>;
