/**
 * MCP tools generated from the route table: one tool per documented, current route of the market,
 * breadth and webhook groups, named from its operationId, its input schema built from the route's
 * path, query and body schemas, and its scope as SPEC "Authentication" item 5 gives them. Pure: no
 * MCP SDK here (mcp/server.ts wires these into a server).
 */
import * as v from 'valibot';
import { toJsonSchema } from '@valibot/to-json-schema';
import { ROUTES } from '../functions/routes.ts';
import { snakeCase, type RouteDef } from '../functions/routes/operation.ts';
import { paramMeta } from '../schemas/params.ts';

export const MCP_SCOPES = ['mcp:market.read', 'mcp:webhooks.read', 'mcp:webhooks.write'] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

export interface McpTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required: string[]; additionalProperties: false };
  scope: McpScope;
  /** The route the tool calls (its operationId is the typed client's method). */
  operationId: string;
  readOnly: boolean;
}

/** Estimate and dry-run are POSTs that write nothing: reading, for the scopes. */
const READ_ONLY_POSTS = new Set(['estimateWebhookSubscription', 'dryRunWebhookSubscription']);

function scopeOf(route: RouteDef): McpScope | undefined {
  if (route.group === 'system') return undefined;
  // Every other group but the webhook ones reads market data (the archive, breadth, positions).
  if (route.group !== 'webhooks' && route.group !== 'webhook-preview') return 'mcp:market.read';
  return route.method === 'GET' || READ_ONLY_POSTS.has(route.operationId) ? 'mcp:webhooks.read' : 'mcp:webhooks.write';
}

/** `getPerpxTrades` -> `get_perpx_trades`. */
export const toolName = snakeCase;

function inputSchema(route: RouteDef): McpTool['inputSchema'] {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [location, params] of [
    ['path', route.pathParams],
    ['query', route.query],
  ] as const) {
    for (const [name, schema] of Object.entries(params ?? {})) {
      properties[name] = { ...(paramMeta(schema)?.openapi ?? { type: 'string' }), description: v.getDescription(schema as never) };
      if (location === 'path' || !v.safeParse(schema, undefined).success) required.push(name);
    }
  }
  if (route.body) {
    const { $schema: _schema, ...body } = toJsonSchema(route.body, { errorMode: 'ignore', typeMode: 'input' }) as Record<string, unknown>;
    properties.body = { ...body, description: 'The JSON request body' };
    required.push('body');
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

export function mcpTools(scopes: readonly McpScope[], routes: readonly RouteDef[] = ROUTES): McpTool[] {
  return routes.flatMap((route) => {
    const scope = scopeOf(route);
    if (!scope || route.hidden || route.deprecated || !scopes.includes(scope)) return [];
    return [
      {
        name: toolName(route.operationId),
        operationId: route.operationId,
        scope,
        readOnly: scope !== 'mcp:webhooks.write',
        description: `${route.summary}. ${route.method} ${route.path}`,
        inputSchema: inputSchema(route),
      },
    ];
  });
}

export function parseScopes(list: string): McpScope[] {
  const scopes = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(MCP_SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new Error(`unknown MCP scope ${unknown.join(', ')} (known: ${MCP_SCOPES.join(', ')})`);
  return scopes as McpScope[];
}
