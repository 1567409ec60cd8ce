import { describe, expect, it } from 'vitest';
import { MCP_SCOPES, mcpTools, parseScopes, toolName } from '#mcp/tools.ts';
import { ROUTES } from '#functions/routes.ts';

const eligible = ROUTES.filter((r) => !r.hidden && !r.deprecated && r.group !== 'system');

describe('MCP tools generated from the route table', () => {
  it('gives every current market, breadth and webhook route exactly one tool, with unique names', () => {
    // Act
    const tools = mcpTools(MCP_SCOPES);
    // Assess
    expect(tools.map((t) => t.operationId).sort()).toEqual(eligible.map((r) => r.operationId).sort());
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    expect(tools.find((t) => t.operationId === 'getPerpxTrades')?.name).toBe('get_perpx_trades');
  });

  it('scopes market data as market.read, webhook reads and both previews as webhooks.read, the rest as webhooks.write', () => {
    const scopeOf = (operationId: string) => mcpTools(MCP_SCOPES).find((t) => t.operationId === operationId)?.scope;
    expect(scopeOf('getHip3BreadthHistory')).toBe('mcp:market.read');
    expect(scopeOf('listWebhookDeliveries')).toBe('mcp:webhooks.read');
    expect(scopeOf('estimateWebhookSubscription')).toBe('mcp:webhooks.read');
    expect(scopeOf('dryRunWebhookSubscription')).toBe('mcp:webhooks.read');
    for (const id of [
      'createWebhookEndpoint',
      'patchWebhookSubscription',
      'deleteWebhookSubscription',
      'resumeAllWebhookSubscriptions',
      'redeliverWebhookDelivery',
    ]) {
      expect(scopeOf(id), id).toBe('mcp:webhooks.write');
    }
    expect(mcpTools(['mcp:market.read']).every((t) => t.scope === 'mcp:market.read' && t.readOnly)).toBe(true);
  });

  it('requires the path parameters and the body, and types the query from the published parameter schemas', () => {
    const tools = mcpTools(MCP_SCOPES);
    const candles = tools.find((t) => t.operationId === 'getPerpxCandles')!;
    expect(candles.inputSchema.required).toEqual(['symbol']);
    expect(candles.inputSchema.properties.interval).toMatchObject({ type: 'string', enum: expect.arrayContaining(['1m', '1w']) });
    expect(candles.inputSchema.properties.limit).toMatchObject({ type: 'integer', maximum: 10_000 });
    const patch = tools.find((t) => t.operationId === 'patchWebhookSubscription')!;
    expect(patch.inputSchema.required).toEqual(['id', 'body']);
  });

  it('refuses an unknown scope by name', () => {
    expect(parseScopes('mcp:market.read, mcp:webhooks.write')).toEqual(['mcp:market.read', 'mcp:webhooks.write']);
    expect(() => parseScopes('mcp:market.write')).toThrow(/unknown MCP scope mcp:market.write/);
    expect(toolName('listWebhookEventTypes')).toBe('list_webhook_event_types');
  });
});
