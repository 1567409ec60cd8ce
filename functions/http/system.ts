/** Route group `system`: liveness, the OpenAPI document, the API reference page, the public catalogue, and the answer to unknown paths. */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { buildOpenApiDocument } from '../shared/openapi.ts';
import { SYSTEM_OPERATIONS } from '../routes/system.ts';
import { httpRouteGroup, noRouteError, ok, raw } from '../shared/http.ts';
import { capabilities } from '../shared/capabilities.ts';
import { REDOC_BUNDLE } from '../resources.ts';
import { archiveManifest, clock, incidentStore } from '../shared/deps.ts';
import { symbolCatalogue } from '../core/quality/catalogue.ts';
import { allCoverage, archiveStats } from '../core/quality/report.ts';
import { timedCache } from '../core/quality/cache.ts';

/** Answers that change only with a deployment: cached by clients and proxies for 5 minutes. */
const CACHED = { 'cache-control': 'public, max-age=300' };

// The catalogue is read from the manifest at most every 5 minutes per container.
const catalogue = timedCache(5 * 60_000);
const fromCatalogue = <T>(entry: { value: T; cachedAt: number }) =>
  ok(entry.value, { headers: CACHED, meta: { cached_at: new Date(entry.cachedAt).toISOString(), cache_ttl_s: 300 } });

// The document depends only on the route table and the base URL it is served under.
const documents = new Map<string, Record<string, unknown>>();

/** Resolved from node_modules: the project's locally, the copy beside the bundle in Lambda. */
const resolveInstalled = createRequire(import.meta.url).resolve;
let redocScript: Promise<Buffer> | undefined;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function docsPage(baseUrl: string): string {
  const base = escapeHtml(baseUrl);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Market-Data Archive API reference</title><style>body{margin:0}</style></head>
<body><redoc spec-url="${base}/v1/openapi.json"></redoc><script src="${base}/docs/redoc.standalone.js"></script></body>
</html>
`;
}

export const handler = httpRouteGroup(SYSTEM_OPERATIONS, {
  getHealth: async () => raw({ status: 'ok' }),
  getOpenApi: async (_input, ctx) => {
    let document = documents.get(ctx.baseUrl);
    if (!document) documents.set(ctx.baseUrl, (document = buildOpenApiDocument({ baseUrl: ctx.baseUrl })));
    return raw(document, { headers: CACHED });
  },
  getCapabilities: async () => ok(capabilities(), { headers: CACHED }),
  getDocs: async (_input, ctx) => {
    const body = Buffer.from(docsPage(ctx.baseUrl), 'utf8');
    return { kind: 'binary', body, contentType: 'text/html; charset=utf-8', rows: 0, headers: CACHED };
  },
  getDocsScript: async () => {
    redocScript ??= readFile(resolveInstalled(REDOC_BUNDLE));
    return {
      kind: 'binary',
      body: await redocScript,
      contentType: 'application/javascript; charset=utf-8',
      rows: 0,
      headers: { 'cache-control': 'public, max-age=86400' },
    };
  },
  getSymbols: async () => fromCatalogue(await catalogue.get('symbols', () => symbolCatalogue(archiveManifest(), clock.now()))),
  getStats: async () =>
    fromCatalogue(
      await catalogue.get('stats', async () =>
        archiveStats(
          { manifest: archiveManifest(), incidents: incidentStore() },
          (await catalogue.get('symbols', () => symbolCatalogue(archiveManifest(), clock.now()))).value,
          clock.now(),
        ),
      ),
    ),
  getStatusCoverage: async () => fromCatalogue(await catalogue.get('coverage', () => allCoverage(archiveManifest(), clock.now()))),
  unknownRoute: async ({ params }) => {
    throw noRouteError(`/${params.proxy}`);
  },
});
