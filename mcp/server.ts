/**
 * The MCP server: lists the generated tools of the enabled scopes and calls each through the typed
 * client, so a tool answers exactly what the route answers. API errors come back as tool errors
 * carrying the service's error body, never as protocol failures.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, createClient, type ClientOptions } from '../clients/typescript/src/index.ts';
import { mcpTools, type McpScope } from './tools.ts';

export function createMcpServer(options: ClientOptions & { scopes: readonly McpScope[] }): Server {
  const client = createClient(options) as unknown as Record<string, (input?: unknown) => Promise<unknown>>;
  const tools = new Map(mcpTools(options.scopes).map((tool) => [tool.name, tool]));
  const server = new Server({ name: 'market-archive', version: '0.1.0' }, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...tools.values()].map(({ name, description, inputSchema, readOnly }) => ({
      name,
      description,
      inputSchema,
      annotations: { readOnlyHint: readOnly, openWorldHint: false },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const tool = tools.get(params.name);
    if (!tool) return { isError: true, content: [{ type: 'text', text: `No tool ${params.name} in the enabled scopes.` }] };
    try {
      const answer = await client[tool.operationId]!(params.arguments ?? {});
      return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer as Record<string, unknown> };
    } catch (error) {
      if (error instanceof ApiError) return { isError: true, content: [{ type: 'text', text: JSON.stringify(error.body) }] };
      // Refused arguments and an unreachable service are the tool's failure, not the protocol's.
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      return { isError: true, content: [{ type: 'text', text: `${error instanceof Error ? error.message : String(error)}${cause}` }] };
    }
  });
  return server;
}
