/** Route group `exports`: bulk export jobs (quote, start, progress, cancel, download links). */
import { cancelExport, createExport, downloadLink, getExport, listExports } from '../core/exports/jobs.ts';
import type { Caller } from '../core/accounts.ts';
import { archiveManifest, clock, exportObjects, exportStore, exportWorkflows } from '../shared/deps.ts';
import { httpRouteGroup, ok, raw, type RequestContext } from '../shared/http.ts';
import { EXPORT_OPERATIONS } from '../routes/exports.ts';

const caller = (ctx: RequestContext): Caller => ctx.account!;

export const handler = httpRouteGroup(EXPORT_OPERATIONS, {
  createExport: async (input, ctx) => {
    const deps = { manifest: archiveManifest(), exports: exportStore(), workflows: exportWorkflows(), clock };
    const result = await createExport(deps, caller(ctx), input.body, input.headers['idempotency-key']);
    if (result.kind === 'quote') return ok(result.quote, { status: 200 });
    return ok(result.job, { status: 202, ...(result.replayed && { headers: { 'idempotent-replayed': 'true' } }) });
  },
  listExports: async (input, ctx) => {
    const { jobs, nextCursor } = await listExports(exportStore(), caller(ctx), input.query.limit, input.query.cursor);
    return ok(jobs, { nextCursor });
  },
  getExport: async (input, ctx) => ok(await getExport(exportStore(), caller(ctx), input.params.id)),
  cancelExport: async (input, ctx) =>
    ok(await cancelExport({ exports: exportStore(), exportObjects: exportObjects(), workflows: exportWorkflows(), clock }, caller(ctx), input.params.id)),
  getExportFile: async (input, ctx) => {
    const link = await downloadLink({ exports: exportStore(), exportObjects: exportObjects(), clock }, caller(ctx), input.params.id, input.params.name);
    if (input.query.redirect) return raw(link, { status: 307, headers: { location: link.url, 'cache-control': 'no-store' } });
    return ok(link, { headers: { 'cache-control': 'no-store' } });
  },
});
