import type { UserEventMessage } from '#schemas/messages.ts';
import { declaration, type EventDefinition } from './declare.ts';
import type { Candidate } from './kit/candidate.ts';

type ExportJobType = 'export.job.completed' | 'export.job.failed';

/** The export job's end as the type its status names, once per job and status; undefined for other messages. */
export function exportJobCandidate<T extends ExportJobType>(type: T, event: UserEventMessage): Candidate<T> | undefined {
  if (event.type !== 'export.job.v1' || type !== `export.job.${event.status}`) return undefined;
  const error = event.error_message !== undefined && { error_message: event.error_message };
  return {
    type,
    key: `export:${event.job_id}:${event.status}`,
    occurredAt: event.at,
    venue: 'perpx',
    symbol: null,
    address: null,
    accountId: event.account_id,
    metrics: { job_id: event.job_id, ...error },
    data: { job_id: event.job_id, status: event.status, ...error, api_url: event.api_url },
  };
}

export default {
  declaration: declaration({
    type: 'export.job.completed',
    live: true,
    description: 'A bulk export finished',
    scope: 'user',
    venues: [],
    params: {},
    metrics: { job_id: { type: 'text' } },
  }),
  detection: {
    kind: 'announced',
    by: 'the export job, through the events queue (core/detect/user-events.ts)',
    of: (event) => exportJobCandidate('export.job.completed', event),
  },
} satisfies EventDefinition<'export.job.completed'>;
