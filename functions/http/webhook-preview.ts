/**
 * Route group `webhook-preview`: estimate and dry-run, which replay the archive (so this group runs
 * DuckDB), and rule replay jobs, which the `replay` state machine runs.
 */
import { archiveReferences } from '../core/detect/archive-references.ts';
import { dryRun, estimate } from '../core/detect/preview.ts';
import { cancelReplay, createReplay, getReplay } from '../core/detect/replays.ts';
import { chargeRequest } from '../core/billing/credits.ts';
import { announce } from '../core/detect/user-events.ts';
import type { Caller } from '../core/accounts.ts';
import { archiveDeps } from '../shared/archive-deps.ts';
import { breadthStore, clock, creditLedger, once, queueSender, replayStore, replayWorkflows, webhookStores } from '../shared/deps.ts';
import { PREVIEW_OPERATIONS } from '../routes/webhooks.ts';
import { httpRouteGroup, ok, type RequestContext } from '../shared/http.ts';

const previewDeps = once(() => ({
  store: webhookStores(),
  clock,
  archive: archiveDeps(),
  breadth: breadthStore(),
  references: archiveReferences(archiveDeps()),
}));
const caller = (ctx: RequestContext): Caller => ctx.account!;

export const handler = httpRouteGroup(PREVIEW_OPERATIONS, {
  estimateWebhookSubscription: async (input, ctx) => ok(await estimate(previewDeps(), caller(ctx), input.body)),
  dryRunWebhookSubscription: async (input, ctx) => ok(await dryRun(previewDeps(), caller(ctx), input.body)),
  replayWebhookSubscription: async (input, ctx) =>
    ok(await createReplay({ store: webhookStores(), replays: replayStore(), workflows: replayWorkflows(), clock }, caller(ctx), input.body), { status: 202 }),
  getWebhookReplay: async (input, ctx) => {
    const { job, nextCursor } = await getReplay(replayStore(), caller(ctx), input.params.id, input.query.limit, input.query.cursor);
    return ok(job, { nextCursor });
  },
  cancelWebhookReplay: async (input, ctx) =>
    ok(
      await cancelReplay(
        {
          replays: replayStore(),
          workflows: replayWorkflows(),
          clock,
          charge: (rows) => chargeRequest({ ledger: creditLedger(), clock, announce: (e) => announce(queueSender(), e) }, caller(ctx), rows),
        },
        caller(ctx),
        input.params.id,
      ),
    ),
});
