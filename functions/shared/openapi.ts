/**
 * The OpenAPI 3.0.3 document, generated from the route table and its valibot schemas so the
 * document cannot drift from what the handlers validate.
 */
import * as v from 'valibot';
import { toJsonSchema } from '@valibot/to-json-schema';
import { ROUTES, API_KEY_HEADER, GATEWAY_RESPONSES, TAG_DESCRIPTIONS } from '../routes.ts';
import type { RouteDef } from '../routes/operation.ts';
import { paramMeta, type ParamSchema } from '#schemas/params.ts';
import { ErrorBodySchema, MetaSchema } from '#schemas/responses.ts';

/** The contract's version, as the specification fixes it (`info.version`). */
export const CONTRACT_VERSION = '1.5.0';
/** This service's release (package.json, the CHANGELOG's newest entry), published as `info.x-service-version`. */
export const SERVICE_VERSION = '2.3.0';

type JsonObject = Record<string, unknown>;

/** JSON Schema draft-07 (what valibot emits) to the OpenAPI 3.0 schema dialect. */
function toOpenApiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApiSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  // A schema piped through `v.metadata({ openapi })` is published as that document (see FILTERS_OPENAPI).
  const published = (schema as JsonObject).openapi;
  if (published !== undefined && typeof published === 'object') return published;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema as JsonObject)) {
    // Draft-07 keywords OpenAPI 3.0 does not know; `propertyNames` only restates string keys.
    if (key === '$schema' || key === 'propertyNames') continue;
    // An object whose members are all optional: `required` must then be absent, not empty.
    if (key === 'required' && Array.isArray(value) && value.length === 0) continue;
    if (key === 'const') out.enum = [value];
    else out[key] = toOpenApiSchema(value);
  }
  const anyOf = out.anyOf as JsonObject[] | undefined;
  if (anyOf?.some((s) => s.type === 'null')) {
    const rest = anyOf.filter((s) => s.type !== 'null');
    delete out.anyOf;
    Object.assign(out, rest.length === 1 ? rest[0] : { anyOf: rest }, { nullable: true });
  }
  return out;
}

function jsonSchemaOf(schema: v.GenericSchema): unknown {
  return toOpenApiSchema(toJsonSchema(schema, { errorMode: 'ignore', typeMode: 'output' }));
}

function parameters(location: 'path' | 'query' | 'header', params: Readonly<Record<string, ParamSchema>> | undefined): JsonObject[] {
  return Object.entries(params ?? {}).map(([name, schema]) => ({
    name,
    in: location,
    required: location === 'path' || !v.safeParse(schema, undefined).success,
    description: v.getDescription(schema as never),
    schema: paramMeta(schema)?.openapi ?? { type: 'string' },
  }));
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
});

const siblingsRequired = (route: RouteDef) =>
  Object.entries(route.response.siblings ?? {})
    .filter(([, schema]) => !v.safeParse(schema, undefined).success)
    .map(([name]) => name);

/** What a caller needs to know beyond the summary, from the route's own declaration. */
function operationDescription(route: RouteDef): string {
  return [
    `${route.summary}.`,
    route.family ? `Family: ${route.family}.` : '',
    route.auth === 'none' ? 'No API key needed.' : `Needs an API key (${API_KEY_HEADER}).`,
    route.billed ? 'Billed in credits as market data.' : '',
    route.query?.cursor ? 'Cursor-paged: meta.has_more on every page, meta.next_cursor exactly while more follow.' : '',
    route.deprecated && route.successor ? `Deprecated: use ${route.successor}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

function operation(route: RouteDef): JsonObject {
  const payload = jsonSchemaOf(route.response.schema);
  const success =
    route.response.shape === 'envelope'
      ? {
          type: 'object',
          required: ['success', 'data', 'meta', ...siblingsRequired(route)],
          properties: {
            success: { type: 'boolean', enum: [true] },
            data: payload,
            ...Object.fromEntries(Object.entries(route.response.siblings ?? {}).map(([name, schema]) => [name, jsonSchemaOf(schema)])),
            meta: { $ref: '#/components/schemas/Meta' },
          },
        }
      : payload;
  const responses: JsonObject = {
    [route.response.status]: {
      description: route.response.description,
      content: { [route.response.contentType ?? 'application/json']: { schema: success } },
    },
  };
  const hasInput = route.query || route.pathParams || route.headers || route.body;
  if (hasInput) responses['400'] = errorResponse('Invalid parameter');
  if (route.auth === 'api_key') responses['401'] = errorResponse(GATEWAY_RESPONSES.UNAUTHORIZED.message);
  // Account-level API Gateway throttling can answer any route, keyed or not.
  responses['429'] = errorResponse(GATEWAY_RESPONSES.THROTTLED.message);
  if (route.pathParams) responses['404'] = errorResponse('Unknown resource');
  responses['500'] = errorResponse('Internal server error');
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: operationDescription(route),
    tags: [...route.tags],
    ...(route.deprecated && { deprecated: true }),
    ...(route.auth === 'none' && { security: [] }),
    parameters: [...parameters('path', route.pathParams), ...parameters('query', route.query), ...parameters('header', route.headers)],
    ...(route.body && {
      requestBody: { required: true, content: { 'application/json': { schema: jsonSchemaOf(route.body) } } },
    }),
    responses,
  };
}

export function buildOpenApiDocument(options: { baseUrl?: string; routes?: readonly RouteDef[] } = {}): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of (options.routes ?? ROUTES).filter((r) => !r.hidden)) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  // Tags in the order TAG_DESCRIPTIONS gives them (how a reader meets the API), then any others.
  const used = new Set((options.routes ?? ROUTES).flatMap((r) => r.tags));
  const tags = [...new Set([...Object.keys(TAG_DESCRIPTIONS), ...used])]
    .filter((name) => used.has(name))
    .map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name }));
  return {
    openapi: '3.0.3',
    info: {
      title: 'Market-Data Archive API',
      version: CONTRACT_VERSION,
      'x-service-version': SERVICE_VERSION,
      description: 'Replayable historical and near-live market data over several venue families, with signed webhooks.',
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
      contact: { name: 'Market-Data Archive API' },
    },
    servers: [{ url: '{base_url}', variables: { base_url: { default: options.baseUrl ?? 'http://127.0.0.1:3000' } } }],
    security: [{ ApiKeyAuth: [] }],
    tags,
    paths,
    components: {
      securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: API_KEY_HEADER } },
      schemas: { ErrorBody: jsonSchemaOf(ErrorBodySchema), Meta: jsonSchemaOf(MetaSchema) },
    },
  };
}
