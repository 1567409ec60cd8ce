/** Builders for API Gateway events in handler-level tests. */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

/** The request path of a route path and its parameters (`/v1/things/{symbol}` with BTC: `/v1/things/BTC`). */
const requestPath = (resource: string, params: APIGatewayProxyEvent['pathParameters']) =>
  resource.replace(/\{(\w+)(\+?)\}/g, (_, name: string, greedy: string) => (greedy ? (params?.[name] ?? name) : encodeURIComponent(params?.[name] ?? name)));

export function restEvent(overrides: Partial<APIGatewayProxyEvent> & { resource: string; httpMethod: string }): APIGatewayProxyEvent {
  return {
    path: requestPath(overrides.resource, overrides.pathParameters ?? null),
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    ...overrides,
    requestContext: {
      requestId: 'req-test',
      stage: 'test',
      httpMethod: overrides.httpMethod,
      resourcePath: overrides.resource,
      authorizer: null,
      ...(overrides.requestContext ?? {}),
    } as APIGatewayProxyEvent['requestContext'],
  } as APIGatewayProxyEvent;
}

export const lambdaContext = {
  functionName: 'test',
  awsRequestId: 'aws-req',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;
