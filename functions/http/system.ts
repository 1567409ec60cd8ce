/** Route group `system`: liveness, the OpenAPI document, and the answer to unknown paths. */
import { AppError } from '../core/errors.ts';
import { buildOpenApiDocument } from '../shared/openapi.ts';
import { SYSTEM_OPERATIONS } from '../routes.ts';
import { httpRouteGroup, raw } from '../shared/http.ts';

// The document depends only on the route table and the base URL it is served under.
const documents = new Map<string, Record<string, unknown>>();

export const handler = httpRouteGroup(SYSTEM_OPERATIONS, {
  getHealth: async () => raw({ status: 'ok' }),
  getOpenApi: async (_input, ctx) => {
    let document = documents.get(ctx.baseUrl);
    if (!document) documents.set(ctx.baseUrl, (document = buildOpenApiDocument({ baseUrl: ctx.baseUrl })));
    return raw(document, { headers: { 'cache-control': 'public, max-age=300' } });
  },
  unknownRoute: async () => {
    throw new AppError('route_not_found', 'No route matches this path.');
  },
});
