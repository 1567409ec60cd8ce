import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as v from 'valibot';
import { GATEWAY_RESOURCES, gatewayResources } from '#functions/gateway-resources.ts';
import { ROUTES, resourceMatcher } from '#functions/routes.ts';
import type { HttpMethod, RouteDef } from '#functions/routes/operation.ts';
import type { FunctionName } from '#functions/resources.ts';

function route(method: HttpMethod, path: string, group: FunctionName, auth: 'api_key' | 'none' = 'api_key'): RouteDef {
  return {
    operationId: `${method}${path}`,
    operation: `${method}${path}`,
    method,
    path,
    group,
    auth,
    summary: '',
    tags: [],
    response: { status: 200, description: '', shape: 'raw', schema: v.unknown() },
  };
}

const paths = (routes: RouteDef[]) =>
  gatewayResources(routes).map(
    (r) => `${r.path} ${r.methods.map((m) => `${m.method}:${m.group}`).join(',')}${r.notAllowed ? ` 405:${r.notAllowed.join(',')}` : ''}`,
  );

/** A request path the route serves: each parameter a value no literal segment has. */
const sample = (path: string) => path.replace(/\{\w+\+?\}/g, 'p-1');

describe('gateway resources', () => {
  it('serves every route of the table through one method of its group, with its auth and the 405 of its path', () => {
    // Prepare
    const match = resourceMatcher(GATEWAY_RESOURCES);
    for (const r of ROUTES) {
      // Act
      const resource = match(sample(r.path))?.items[0];
      const method = resource?.methods.find((m) => m.method === r.method);
      // Assess
      expect(method, `${r.method} ${r.path}`).toMatchObject({ group: r.group, auth: r.auth });
      const allowed = [...new Set(ROUTES.filter((other) => other.path === r.path).map((other) => other.method))];
      expect(resource!.notAllowed, r.path).toEqual(r.method === 'ANY' ? undefined : allowed);
    }
  });

  it('picks the most specific resource whatever order the resources come in: a literal path is its own resource', () => {
    const literal = GATEWAY_RESOURCES.filter((r) => !r.path.includes('{'));
    fc.assert(
      fc.property(fc.shuffledSubarray([...GATEWAY_RESOURCES], { minLength: GATEWAY_RESOURCES.length }), (resources) => {
        // Act
        const match = resourceMatcher(resources);
        // Assess
        for (const r of literal) expect(match(r.path)?.items[0]?.path).toBe(r.path);
        expect(match('/v1/webhooks/subscriptions/resume')?.params).toEqual({});
      }),
      { numRuns: 50 },
    );
  });

  it("collapses a subtree of one group's keyed GETs into its top and a greedy resource, where that saves resources", () => {
    // Prepare / Act
    const laidOut = paths([
      route('POST', '/v1/x', 'webhooks'),
      route('GET', '/v1/x/book/{symbol}', 'orderbook'),
      route('GET', '/v1/x/book/{symbol}/history', 'orderbook'),
      route('GET', '/v1/x/book', 'orderbook'),
      route('GET', '/v1/x/candles/{symbol}', 'market'),
    ]);
    // Assess: book (3 paths) becomes 2 resources; candles (2 paths) stays as it is (/v1/x takes a POST: no greedy resource there).
    expect(laidOut).toEqual([
      '/v1/x POST:webhooks 405:POST',
      '/v1/x/book GET:orderbook 405:GET',
      '/v1/x/book/{proxy+} GET:orderbook 405:GET',
      '/v1/x/candles/{symbol} GET:market 405:GET',
    ]);
  });

  it('gives a read-only node of several groups a greedy resource for the group it saves most for, beside the other subtrees', () => {
    // Prepare / Act
    const laidOut = paths([
      route('GET', '/v1/x/funding/{symbol}', 'derivatives'),
      route('GET', '/v1/x/prices/{symbol}', 'derivatives'),
      route('GET', '/v1/x/candles/{symbol}', 'market'),
    ]);
    // Assess
    expect(laidOut).toEqual(['/v1/x/{proxy+} GET:derivatives 405:GET', '/v1/x/candles/{symbol} GET:market 405:GET']);
  });

  it('keeps a resource per path where a route is not a keyed GET', () => {
    // Prepare / Act
    const laidOut = paths([
      route('GET', '/v1/hooks/{id}', 'webhooks'),
      route('DELETE', '/v1/hooks/{id}', 'webhooks'),
      route('POST', '/v1/hooks/{id}/test', 'webhooks'),
      route('GET', '/health', 'system', 'none'),
      route('GET', '/health/deep', 'system', 'none'),
      route('ANY', '/{proxy+}', 'system'),
    ]);
    // Assess
    expect(laidOut).toEqual([
      '/v1/hooks/{id} GET:webhooks,DELETE:webhooks 405:GET,DELETE',
      '/v1/hooks/{id}/test POST:webhooks 405:POST',
      '/health GET:system 405:GET',
      '/health/deep GET:system 405:GET',
      '/{proxy+} ANY:system',
    ]);
  });
});
