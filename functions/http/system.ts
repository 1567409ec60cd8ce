/** Route group `system`: liveness and the OpenAPI document. Neither needs a key. */
import { buildOpenApiDocument } from '../core/openapi.ts';
import { config } from '../shared/config.ts';
import { httpRouteGroup, raw } from '../shared/http.ts';

let openApiDocument: unknown;

export const handler = httpRouteGroup('system', {
  getHealth: async () => raw({ status: 'ok' }),
  getOpenApi: async () => {
    openApiDocument ??= buildOpenApiDocument({ baseUrl: config().PUBLIC_BASE_URL });
    return raw(openApiDocument, { headers: { 'cache-control': 'public, max-age=300' } });
  },
});
