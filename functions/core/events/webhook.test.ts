import { declaration, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({
    type: 'webhook.test',
    live: true,
    description: 'A test delivery',
    scope: 'user',
    venues: [],
    params: {},
    metrics: {},
    latencyClass: 'seconds',
  }),
  detection: { kind: 'announced', by: 'POST /v1/webhooks/endpoints/{id}/test, queued at once for that endpoint' },
} satisfies EventDefinition<'webhook.test'>;
