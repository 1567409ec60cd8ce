import { declaration, type EventDefinition } from './declare.ts';
import { exportJobCandidate } from './export.job.completed.ts';

export default {
  declaration: declaration({
    type: 'export.job.failed',
    live: true,
    description: 'A bulk export failed',
    scope: 'user',
    venues: [],
    params: {},
    metrics: { job_id: { type: 'text' }, error_message: { type: 'text' } },
  }),
  detection: {
    kind: 'announced',
    by: 'the export job, through the events queue (core/detect/user-events.ts)',
    of: (event) => exportJobCandidate('export.job.failed', event),
  },
} satisfies EventDefinition<'export.job.failed'>;
