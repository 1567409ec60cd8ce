/**
 * `npm run mcp -- --base-url URL --api-key KEY [--scopes mcp:market.read,mcp:webhooks.read]`: the
 * MCP server over stdio, against the local cloud or a deployed stage. Write tools
 * (`mcp:webhooks.write`) are enabled only when asked for. MCP_BASE_URL and MCP_API_KEY stand in
 * for the flags.
 */
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '../mcp/server.ts';
import { parseScopes } from '../mcp/tools.ts';

const { values } = parseArgs({
  options: { 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, scopes: { type: 'string', default: 'mcp:market.read,mcp:webhooks.read' } },
});
const baseUrl = values['base-url'] ?? process.env.MCP_BASE_URL ?? 'http://127.0.0.1:3000';
const apiKey = values['api-key'] ?? process.env.MCP_API_KEY;
if (!apiKey) {
  console.error('An API key is needed: --api-key KEY (or MCP_API_KEY).');
  process.exit(2);
}
const server = createMcpServer({ baseUrl, apiKey, scopes: parseScopes(values.scopes!) });
await server.connect(new StdioServerTransport());
console.error(`market-archive MCP server on stdio, calling ${baseUrl}`);
