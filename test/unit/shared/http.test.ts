import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { AppError } from '#core/errors.ts';
import { MAX_RESPONSE_BYTES, httpRouteGroup, ok } from '#shared/http.ts';
import { operationGroup, routesOf, type RouteDef } from '#functions/routes/operation.ts';
import { cursorParam, enumParam, integerParam, stringParam } from '#schemas/params.ts';
import { cursorKeys } from '#shared/deps.ts';
import { sealCursor } from '#core/cursor-seal.ts';
import { lambdaContext, restEvent } from '#test/helpers/events.ts';

const THINGS = operationGroup('system', {
  listThings: {
    method: 'GET',
    path: '/v1/things/{symbol}',
    summary: 'test',
    tags: ['T'],
    pathParams: { symbol: stringParam({ description: 'symbol', required: true }) },
    query: {
      limit: integerParam({ min: 1, max: 1000, default: 100, description: 'rows' }),
      interval: enumParam(['1m', '5m'], { default: '1m', description: 'bucket', errorCode: 'invalid_interval' }),
      cursor: stringParam({ description: 'next page' }),
    },
    response: { status: 200, description: 'ok', shape: 'envelope', schema: v.array(v.unknown()) },
  },
  createThing: {
    method: 'POST',
    path: '/v1/things',
    summary: 'test',
    tags: ['T'],
    body: v.object({ url: v.pipe(v.string(), v.url('must be a URL')) }),
    response: { status: 201, description: 'created', shape: 'envelope', schema: v.unknown() },
  },
  legacyThing: {
    method: 'GET',
    path: '/v1/legacy',
    auth: 'none',
    summary: 'old',
    tags: ['T'],
    response: { status: 200, description: 'ok', shape: 'envelope', schema: v.unknown() },
  },
});
const routes: RouteDef[] = routesOf(THINGS).map((r) => (r.operation === 'legacyThing' ? { ...r, deprecated: true, successor: '/v1/things/{symbol}' } : r));

const account = { account_id: 'acct_1', plan: 'build', principalId: 'acct_1' };
const handler = httpRouteGroup(
  THINGS,
  {
    listThings: async (input) => ok([input.params, input.query], { nextCursor: input.query.limit < 1000 ? 'c2' : null }),
    createThing: async (input) => ok(input.body, { status: 201 }),
    legacyThing: async () => {
      throw new Error('database password leaked in message');
    },
  },
  routes,
);

/** A route whose cursor has the real service's transparent form. */
const TICKS = operationGroup('system', {
  listTicks: {
    method: 'GET',
    path: '/v1/ticks',
    summary: 'test',
    tags: ['T'],
    query: { cursor: cursorParam({ form: 'ms_id', description: '<ts_ms>_<id>' }) },
    response: { status: 200, description: 'ok', shape: 'envelope', schema: v.array(v.unknown()) },
  },
});
const tickRoutes = routesOf(TICKS);
const ticks = httpRouteGroup(TICKS, { listTicks: async (input) => ok([input.query], { nextCursor: '1704067200123_456789' }) }, tickRoutes);

async function call(event: Parameters<typeof handler>[0]) {
  const result = await handler(event, lambdaContext);
  return { status: result.statusCode, headers: result.headers ?? {}, body: JSON.parse(result.body) };
}

describe('the HTTP shell, happy path', () => {
  it('parses path and query parameters, fills defaults and wraps the envelope', async () => {
    // Act
    const res = await call(
      restEvent({
        resource: '/v1/things/{symbol}',
        httpMethod: 'GET',
        pathParameters: { symbol: 'BTC' },
        queryStringParameters: { limit: '250', user_address: 'ignored' },
        requestContext: { authorizer: account } as never,
      }),
    );
    // Assess
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('req-test');
    expect(res.body).toEqual({
      success: true,
      data: [{ symbol: 'BTC' }, { limit: 250, interval: '1m' }],
      meta: { count: 2, has_more: true, next_cursor: expect.stringMatching(/^c2\.test1\.[\w-]{22}$/), request_id: 'req-test' },
    });
  });

  it('seals the next cursor for its route, opens it for the implementation, and refuses one it did not seal', async () => {
    // Prepare
    const page = (cursor?: string) =>
      call(
        restEvent({
          resource: '/v1/things/{symbol}',
          httpMethod: 'GET',
          pathParameters: { symbol: 'BTC' },
          queryStringParameters: { limit: '5', ...(cursor !== undefined && { cursor }) },
          requestContext: { authorizer: account } as never,
        }),
      );
    const first = await page();
    // Act
    const second = await page(first.body.meta.next_cursor);
    const forged = await page('c2');
    const edited = await page(first.body.meta.next_cursor.replace(/^c2/, 'c3'));
    // Assess
    expect(second.body.data[1]).toMatchObject({ cursor: 'c2' });
    for (const refused of [forged, edited]) expect(refused.body).toMatchObject({ code: 400, error_code: 'invalid_cursor', param: 'cursor' });
  });

  it("hands out and takes a route's transparent cursor as it is, and opens the sealed ones it issued before it had a form", async () => {
    // Prepare
    const page = async (cursor?: string) => {
      const result = await ticks(
        restEvent({
          resource: '/v1/ticks',
          httpMethod: 'GET',
          queryStringParameters: cursor === undefined ? null : { cursor },
          requestContext: { authorizer: account } as never,
        }),
        lambdaContext,
      );
      return { body: JSON.parse(result.body) };
    };
    const keys = await cursorKeys();
    // Act
    const first = await page();
    const built = await page('1704067200000_7');
    const issuedBefore = await page(sealCursor(keys, 'listTicks', 'eyJmIjoiYSJ9'));
    const refused = await Promise.all(
      [
        sealCursor(keys, 'listThings', 'eyJmIjoiYSJ9'), // another route's
        'eyJmIjoiYSJ9', // an opaque cursor never sealed
        '',
        'x'.repeat(600),
      ].map(page),
    );
    // Assess
    expect(tickRoutes[0]?.cursorForm).toBe('ms_id');
    expect(routes[0]?.cursorForm).toBeUndefined();
    expect(first.body.meta).toMatchObject({ has_more: true, next_cursor: '1704067200123_456789' });
    expect(built.body.data[0]).toEqual({ cursor: '1704067200000_7' });
    expect(issuedBefore.body.data[0]).toEqual({ cursor: 'eyJmIjoiYSJ9' });
    for (const res of refused) expect(res.body).toMatchObject({ code: 400, error_code: 'invalid_cursor', param: 'cursor', request_id: 'req-test' });
  });

  it('ends a cursor-paged route with has_more false and no next_cursor', async () => {
    // Act
    const res = await call(
      restEvent({
        resource: '/v1/things/{symbol}',
        httpMethod: 'GET',
        pathParameters: { symbol: 'BTC' },
        queryStringParameters: { limit: '1000' },
        requestContext: { authorizer: account } as never,
      }),
    );
    // Assess
    expect(res.body.meta).toEqual({ count: 2, has_more: false, request_id: 'req-test' });
  });

  it('answers with the route status and a parsed JSON body', async () => {
    const res = await call(
      restEvent({ resource: '/v1/things', httpMethod: 'POST', body: '{"url":"https://example.com/hook"}', requestContext: { authorizer: account } as never }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ url: 'https://example.com/hook' });
  });
});

describe('the HTTP shell, errors', () => {
  const event = (query: Record<string, string>) =>
    restEvent({
      resource: '/v1/things/{symbol}',
      httpMethod: 'GET',
      pathParameters: { symbol: 'BTC' },
      queryStringParameters: query,
      requestContext: { authorizer: account } as never,
    });

  it('returns 400 naming limit when limit is 1001', async () => {
    const res = await call(event({ limit: '1001' }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 400, error_code: 'invalid_parameter', param: 'limit', request_id: 'req-test' });
    expect(res.body.error).toContain('1 to 1000');
  });

  it('returns 400 naming limit when limit is not an integer or negative', async () => {
    for (const limit of ['abc', '-5', '1.5', '']) {
      const res = await call(event({ limit }));
      expect(res.status, limit).toBe(400);
      expect(res.body.param).toBe('limit');
    }
  });

  it('returns 400 invalid_interval listing the accepted values', async () => {
    const res = await call(event({ interval: '7m' }));
    expect(res.body).toMatchObject({ code: 400, error_code: 'invalid_interval', param: 'interval', valid_values: ['1m', '5m'] });
  });

  it('returns 400 invalid_json for a body that is not JSON', async () => {
    const res = await call(restEvent({ resource: '/v1/things', httpMethod: 'POST', body: '{"url":', requestContext: { authorizer: account } as never }));
    expect(res.body).toMatchObject({ code: 400, error_code: 'invalid_json' });
  });

  it('returns 400 naming the body member at fault', async () => {
    const res = await call(restEvent({ resource: '/v1/things', httpMethod: 'POST', body: '{"url":"nope"}', requestContext: { authorizer: account } as never }));
    expect(res.body).toMatchObject({ code: 400, error_code: 'invalid_parameter', param: 'url' });
  });

  it('returns 401 on a keyed route reached without an authorizer context', async () => {
    const res = await call(restEvent({ resource: '/v1/things', httpMethod: 'POST', body: '{}' }));
    expect(res.body).toMatchObject({ code: 401, error_code: 'unauthorized' });
  });

  it('renders a thrown bug as a bare 500 without its message, still with the request id', async () => {
    const res = await call(restEvent({ resource: '/v1/legacy', httpMethod: 'GET' }));
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, code: 500, error: 'Internal server error.', error_code: 'internal_error', request_id: 'req-test' });
    expect(res.headers.deprecation).toBe('true');
  });

  it("answers a store that throttles past the SDK's retries with the spec's 503 and Retry-After, not a 500", async () => {
    const BUSY = operationGroup('system', {
      busyThing: {
        method: 'GET',
        path: '/v1/busy',
        auth: 'none',
        summary: 'test',
        tags: ['T'],
        response: { status: 200, description: 'ok', shape: 'envelope', schema: v.unknown() },
      },
    });
    const throttled = Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
      name: 'ThrottlingException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    const busy = httpRouteGroup(
      BUSY,
      {
        busyThing: async () => {
          throw throttled;
        },
      },
      routesOf(BUSY),
    );
    const result = await busy(restEvent({ resource: '/v1/busy', httpMethod: 'GET' }), lambdaContext);
    expect(result.statusCode).toBe(503);
    expect(result.headers).toMatchObject({ 'retry-after': '1', 'x-request-id': 'req-test' });
    expect(JSON.parse(result.body)).toEqual({
      success: false,
      code: 503,
      error: 'The archive store is busy right now. Retry shortly.',
      error_code: 'upstream_unavailable',
      request_id: 'req-test',
    });
  });

  it('answers every response with the response-shape version, and refuses a version it does not have in either spelling', async () => {
    // Prepare
    const event = (headers: Record<string, string>) =>
      restEvent({
        resource: '/v1/things/{symbol}',
        httpMethod: 'GET',
        pathParameters: { symbol: 'BTC' },
        headers,
        requestContext: { authorizer: account } as never,
      });

    // Act
    const current = await call(event({ 'svc-version': '2026-10-01' }));
    const realSpelling = await call(event({ '0xArchive-Version': '2026-10-01' }));
    const older = await call(event({ '0xArchive-Version': '2025-01-01' }));
    const failed = await call(restEvent({ resource: '/v1/legacy', httpMethod: 'GET' }));

    // Assess
    expect([current.status, realSpelling.status]).toEqual([200, 200]);
    for (const res of [current, realSpelling, older, failed]) expect(res.headers['svc-version']).toBe('2026-10-01');
    expect(older.body).toMatchObject({ code: 400, error_code: 'invalid_parameter', param: '0xarchive-version', valid_values: ['2026-10-01'] });
  });

  it('returns 404 route_not_found for a resource the group does not serve', async () => {
    const res = await call(restEvent({ resource: '/v1/unknown', httpMethod: 'GET' }));
    expect(res.body).toMatchObject({ code: 404, error_code: 'route_not_found' });
  });

  it('finds the route behind a greedy resource by the request path, its parameters decoded', async () => {
    // Prepare: API Gateway's event for a `{proxy+}` resource serving the group's paths under /v1.
    const event = restEvent({
      resource: '/v1/{proxy+}',
      path: '/v1/things/xyz%3ATSLA',
      httpMethod: 'GET',
      pathParameters: { proxy: 'things/xyz:TSLA' },
      requestContext: { authorizer: account } as never,
    });
    // Act
    const res = await call(event);
    // Assess
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toEqual({ symbol: 'xyz:TSLA' });
  });

  it('answers a path under a greedy resource that a family lacks with 404 unsupported_for_venue naming where it is', async () => {
    // Act: spot has no funding (the real route table), and this group has no such route either.
    const res = await call(
      restEvent({ resource: '/v1/{proxy+}', path: '/v1/perpx/spot/funding/HYPE-USDC', httpMethod: 'GET', requestContext: { authorizer: account } as never }),
    );
    // Assess
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      error_code: 'unsupported_for_venue',
      datatype: 'funding',
      venue: 'spot',
      available_on: expect.arrayContaining([{ venue: 'perpx', route: '/v1/perpx/funding/{symbol}' }]),
    });
  });

  it('answers a request still running near the function timeout with a 504 carrying its request id, not a 500', async () => {
    // Prepare: a route that never finishes, in a function with 350 ms left.
    const stuck = httpRouteGroup(
      THINGS,
      {
        listThings: () => new Promise(() => undefined),
        createThing: async (input) => ok(input.body),
        legacyThing: async () => ok([]),
      },
      routes,
    );
    const context = { ...lambdaContext, getRemainingTimeInMillis: () => 350 };
    // Act
    const result = await stuck(
      restEvent({ resource: '/v1/things/{symbol}', httpMethod: 'GET', pathParameters: { symbol: 'BTC' }, requestContext: { authorizer: account } as never }),
      context,
    );
    // Assess
    expect(result.statusCode).toBe(504);
    expect(JSON.parse(result.body)).toMatchObject({
      success: false,
      code: 504,
      error_code: 'scan_timeout',
      error: expect.stringMatching(/took too long/),
      request_id: 'req-test',
    });
  });
});

describe('httpRouteGroup', () => {
  it('refuses at cold start a route table that does not serve every operation of the group', () => {
    const implementations = { listThings: async () => ok([]), createThing: async () => ok(null), legacyThing: async () => ok(null) };
    const partial = routes.filter((r) => r.operation === 'listThings');
    expect(() => httpRouteGroup(THINGS, implementations, partial)).toThrow(/operations without a route \[createThing, legacyThing\]/);
  });

  it('lets an AppError thrown by an implementation reach the client with its code', async () => {
    const h = httpRouteGroup(
      THINGS,
      {
        listThings: async () => {
          throw new AppError('not_found', 'No such thing.');
        },
        createThing: async () => ok(null),
        legacyThing: async () => ok(null),
      },
      routes,
    );
    const result = await h(
      restEvent({ resource: '/v1/things/{symbol}', httpMethod: 'GET', pathParameters: { symbol: 'X' }, requestContext: { authorizer: account } as never }),
      lambdaContext,
    );
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body)).toMatchObject({ error_code: 'not_found', error: 'No such thing.' });
  });

  it('refuses an answer larger than a Lambda response carries with 400 response_too_large naming limit, not a gateway 502', async () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ i, text: 'x'.repeat(1_000) }));
    const h = httpRouteGroup(
      THINGS,
      {
        listThings: async (input) => ok(rows(input.query.limit * 10)),
        createThing: async () => ok(null),
        legacyThing: async () => ok(null),
      },
      routes,
    );
    const get = async (limit: number) =>
      h(
        restEvent({
          resource: '/v1/things/{symbol}',
          httpMethod: 'GET',
          pathParameters: { symbol: 'X' },
          queryStringParameters: { limit: String(limit) },
          requestContext: { authorizer: account } as never,
        }),
        lambdaContext,
      );
    const small = await get(500);
    expect(small.statusCode).toBe(200);
    expect(Buffer.byteLength(small.body)).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
    const large = await get(1000);
    expect(large.statusCode).toBe(400);
    expect(JSON.parse(large.body)).toMatchObject({ error_code: 'response_too_large', param: 'limit', max_response_bytes: MAX_RESPONSE_BYTES });
    expect(JSON.parse(large.body).response_bytes).toBeGreaterThan(MAX_RESPONSE_BYTES);
  });
});
