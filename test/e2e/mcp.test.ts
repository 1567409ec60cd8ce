/** The MCP server against the local cloud, through the SDK's own client over an in-memory transport. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { startTestCloud, KEYS } from '../helpers/local-cloud.ts';
import { createMcpServer } from '#mcp/server.ts';
import { mcpTools, type McpScope } from '#mcp/tools.ts';

let cloud: Awaited<ReturnType<typeof startTestCloud>>;
beforeAll(async () => {
  cloud = await startTestCloud({ pollers: false });
});
afterAll(async () => {
  await cloud?.stop();
});

async function connect(scopes: McpScope[]): Promise<Client> {
  const server = createMcpServer({ baseUrl: cloud.url, apiKey: KEYS.build, scopes });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

const text = (result: Awaited<ReturnType<Client['callTool']>>) => JSON.parse((result.content as { text: string }[])[0]!.text);

describe('the MCP server', () => {
  it('answers an unreachable service and a path value that is not one with tool errors', async () => {
    // Prepare
    const server = createMcpServer({ baseUrl: 'http://127.0.0.1:9', apiKey: KEYS.build, scopes: ['mcp:market.read', 'mcp:webhooks.read'] });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const offline = new Client({ name: 'test', version: '1.0.0' });
    await offline.connect(clientSide);
    // Act
    const unreachable = await offline.callTool({ name: 'get_perpx_instruments', arguments: {} });
    const dotted = await (await connect(['mcp:webhooks.read'])).callTool({ name: 'get_webhook_endpoint', arguments: { id: '..' } });
    // Assess
    expect(unreachable.isError).toBe(true);
    expect(dotted.isError).toBe(true);
    expect((dotted.content as { text: string }[])[0]!.text).toMatch(/not a value/);
  });

  it('lists the tools of the scopes it was started with, and no write tool without the write scope', async () => {
    // Act
    const readOnly = await (await connect(['mcp:market.read', 'mcp:webhooks.read'])).listTools();
    const all = await (await connect(['mcp:market.read', 'mcp:webhooks.read', 'mcp:webhooks.write'])).listTools();
    // Assess
    expect(readOnly.tools).toHaveLength(mcpTools(['mcp:market.read', 'mcp:webhooks.read']).length);
    expect(readOnly.tools.map((t) => t.name)).not.toContain('create_webhook_endpoint');
    expect(all.tools.map((t) => t.name)).toContain('create_webhook_endpoint');
    expect(readOnly.tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
  });

  it('calls a market tool and a webhook read tool and answers what the route answers', async () => {
    // Prepare
    const client = await connect(['mcp:market.read', 'mcp:webhooks.read']);
    // Act
    const instruments = await client.callTool({ name: 'get_perpx_instruments', arguments: {} });
    const catalogue = await client.callTool({ name: 'list_webhook_event_types', arguments: {} });
    // Assess
    expect(instruments.isError).toBeFalsy();
    expect(text(instruments)).toMatchObject({ success: true, meta: { venue: 'perpx' } });
    expect(text(catalogue).data.map((d: { type: string }) => d.type)).toContain('market.liquidation');
  });

  it('answers a bad parameter with a tool error carrying the 400 body, and writes only with the write scope', async () => {
    // Prepare
    const client = await connect(['mcp:market.read', 'mcp:webhooks.write']);
    // Act
    const bad = await client.callTool({ name: 'get_perpx_candles', arguments: { symbol: 'BTC', interval: '2m' } });
    const created = await client.callTool({ name: 'create_webhook_endpoint', arguments: { body: { url: 'https://93.184.216.34/hooks/mcp' } } });
    // Assess
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatchObject({ code: 400, error_code: 'invalid_interval', param: 'interval' });
    expect(text(created).data).toMatchObject({ url: 'https://93.184.216.34/hooks/mcp', status: 'active' });
  });
});
