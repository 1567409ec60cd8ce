/** Route group `webhook-preview`: estimate and dry-run, which replay the archive (so this group runs DuckDB). */
import { archiveReferences } from '../core/detect/archive-references.ts';
import { dryRun, estimate } from '../core/detect/preview.ts';
import type { Caller } from '../core/accounts.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { breadthStore, clock, once, webhookStores } from '../shared/deps.ts';
import { PREVIEW_OPERATIONS } from '../routes.ts';
import { httpRouteGroup, ok, type RequestContext } from '../shared/http.ts';

const previewDeps = once(() => ({ store: webhookStores(), clock, archive: archiveDeps(), breadth: breadthStore(), references: archiveReferences(archiveDeps()) }));
const caller = (ctx: RequestContext): Caller => ctx.account!;

export const handler = httpRouteGroup(PREVIEW_OPERATIONS, {
  estimateWebhookSubscription: async (input, ctx) => ok(await estimate(previewDeps(), caller(ctx), input.body)),
  dryRunWebhookSubscription: async (input, ctx) => ok(await dryRun(previewDeps(), caller(ctx), input.body)),
});
