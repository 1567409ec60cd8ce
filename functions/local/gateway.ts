/**
 * The API Gateway emulator: matches requests against the REST API's resources (GATEWAY_RESOURCES,
 * laid out from the route table as the CDK app deploys them) as API Gateway does, runs the
 * deployed REQUEST authorizer (with its result cache and the usage-plan throttle of the caller's
 * tier), builds REST proxy events (payload v1) for the route group's handler and renders gateway
 * responses from the same GATEWAY_RESPONSES entries the CDK app uses.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import {
  API_KEY_HEADER,
  API_VERSION,
  API_VERSION_HEADER,
  AUTHORIZER_CACHE_TTL_S,
  GATEWAY_RESPONSES,
  METHOD_NOT_ALLOWED,
  REQUEST_ID_HEADER,
  resourceMatcher,
  type GatewayResponseType,
} from '../routes.ts';
import { GATEWAY_RESOURCES, type GatewayResource } from '../gateway-resources.ts';
import { isPlanName, PLANS } from '../core/plans.ts';
import { invoke } from './invoke.ts';
import { config } from '../shared/config.ts';
import { headerValue } from '../shared/headers.ts';

const MAX_BODY_BYTES = 10 * 1024 * 1024; // API Gateway's payload limit
const INTEGRATION_TIMEOUT_MS = 29_000;
const LOCAL_ARN_PREFIX = 'arn:aws:execute-api:us-east-1:000000000000:local';

// API Gateway prefers the most specific resource: literal segments win over path parameters, and
// a greedy {proxy+} resource only takes what nothing else matches.
const matchResource = resourceMatcher(GATEWAY_RESOURCES);

function gatewayResponse(type: GatewayResponseType, requestId: string, extraHeaders: Record<string, string> = {}): APIGatewayProxyResult {
  const entry = GATEWAY_RESPONSES[type];
  return {
    statusCode: entry.status,
    headers: {
      'content-type': 'application/json',
      [REQUEST_ID_HEADER]: requestId,
      [API_VERSION_HEADER]: API_VERSION,
      ...('retryAfterS' in entry && { 'retry-after': String(entry.retryAfterS) }),
      ...extraHeaders,
    },
    body: JSON.stringify({ success: false, code: entry.status, error: entry.message, error_code: entry.errorCode, request_id: requestId }),
  };
}

class TokenBucket {
  private tokens: number;
  private updated = Date.now();
  constructor(
    private readonly rate: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }
  take(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.updated) / 1000) * this.rate);
    this.updated = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

type AuthOutcome = { allowed: true; context: Record<string, unknown>; usageKey: string; plan: string } | { allowed: false; response: GatewayResponseType };

export interface Gateway {
  url: string;
  server: Server;
  stop(): Promise<void>;
}

export async function startGateway(port: number): Promise<Gateway> {
  const authCache = new Map<string, { outcome: AuthOutcome; expires: number }>();
  const buckets = new Map<string, TokenBucket>();

  async function authorize(event: APIGatewayProxyEvent, apiKey: string | undefined): Promise<AuthOutcome> {
    if (!apiKey) return { allowed: false, response: 'UNAUTHORIZED' };
    const cached = authCache.get(apiKey);
    if (cached && cached.expires > Date.now()) return cached.outcome;
    let outcome: AuthOutcome;
    try {
      const result = (await invoke('authorizer', {
        type: 'REQUEST',
        methodArn: `${LOCAL_ARN_PREFIX}/${event.httpMethod}${event.resource}`,
        resource: event.resource,
        path: event.path,
        httpMethod: event.httpMethod,
        headers: event.headers,
        multiValueHeaders: event.multiValueHeaders,
        queryStringParameters: event.queryStringParameters,
        multiValueQueryStringParameters: event.multiValueQueryStringParameters,
        pathParameters: event.pathParameters,
        stageVariables: null,
        requestContext: event.requestContext,
      })) as APIGatewayAuthorizerResult;
      const allowed = result.policyDocument.Statement.some((s) => s.Effect === 'Allow');
      const context = { ...result.context, principalId: result.principalId };
      outcome = allowed
        ? { allowed: true, context, usageKey: result.usageIdentifierKey ?? result.principalId, plan: String(result.context?.plan) }
        : { allowed: false, response: 'ACCESS_DENIED' };
    } catch (error) {
      // As in API Gateway: the literal `Unauthorized` means 401; anything else is an authorizer failure.
      return { allowed: false, response: error instanceof Error && error.message === 'Unauthorized' ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE' };
    }
    authCache.set(apiKey, { outcome, expires: Date.now() + AUTHORIZER_CACHE_TTL_S * 1000 });
    return outcome;
  }

  function throttled(usageKey: string, plan: string): boolean {
    if (!isPlanName(plan)) return true;
    let bucket = buckets.get(usageKey);
    if (!bucket) buckets.set(usageKey, (bucket = new TokenBucket(PLANS[plan].rateLimit.rps, PLANS[plan].rateLimit.burst)));
    return !bucket.take();
  }

  async function handle(req: IncomingMessage, body: Buffer, requestId: string): Promise<APIGatewayProxyResult> {
    const url = new URL(req.url ?? '/', 'http://local');
    const method = (req.method ?? 'GET').toUpperCase();
    const match = matchResource(url.pathname);
    if (!match) return gatewayResponse('MISSING_AUTHENTICATION_TOKEN', requestId);
    // The most specific resource is chosen first, then its method (or its ANY method).
    const [resource] = match.items as [GatewayResource];
    const hit = resource.methods.find((m) => m.method === method) ?? resource.methods.find((m) => m.method === 'ANY');
    if (!hit) {
      const allow = (resource.notAllowed ?? []).join(', ');
      const entry = METHOD_NOT_ALLOWED;
      return {
        statusCode: 405,
        headers: { 'content-type': 'application/json', [REQUEST_ID_HEADER]: requestId, [API_VERSION_HEADER]: API_VERSION, allow },
        body: JSON.stringify({ success: false, code: entry.status, error: entry.message, error_code: entry.errorCode, request_id: requestId }),
      };
    }
    if (body.length > MAX_BODY_BYTES) return gatewayResponse('REQUEST_TOO_LARGE', requestId);
    // API Gateway refuses a path whose percent-encoding does not decode, before any authorizer.
    if (Object.values(match.params).some((segment) => !decodes(segment))) return gatewayResponse('BAD_REQUEST_PARAMETERS', requestId);
    const event = proxyEvent(req, url, resource.path, match.params, body, requestId);

    if (hit.auth === 'api_key') {
      const outcome = await authorize(event, headerValue(event.headers, API_KEY_HEADER));
      if (!outcome.allowed) return gatewayResponse(outcome.response, requestId);
      if (throttled(outcome.usageKey, outcome.plan)) return gatewayResponse('THROTTLED', requestId);
      event.requestContext.authorizer = outcome.context;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), INTEGRATION_TIMEOUT_MS * (config().LOCAL_DEADLINE_SCALE ?? 1));
    });
    try {
      const result = await Promise.race([invoke(hit.group, event) as Promise<APIGatewayProxyResult>, timeout]);
      if (result === 'timeout') return gatewayResponse('INTEGRATION_TIMEOUT', requestId);
      if (!result || typeof result.statusCode !== 'number') return gatewayResponse('DEFAULT_5XX', requestId);
      return result;
    } catch (error) {
      console.error(`[gateway] ${hit.group} threw on ${method} ${url.pathname}:`, error);
      return gatewayResponse('DEFAULT_5XX', requestId);
    } finally {
      clearTimeout(timer);
    }
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const requestId = randomUUID();
      handle(req, Buffer.concat(chunks), requestId)
        .catch((error) => {
          console.error('[gateway] unexpected failure:', error);
          return gatewayResponse('DEFAULT_5XX', requestId);
        })
        .then((result) => {
          const headers: Record<string, string | string[]> = { ...result.headers } as Record<string, string>;
          for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
          headers[REQUEST_ID_HEADER] ??= requestId;
          res.writeHead(result.statusCode, headers);
          res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
        });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

function proxyEvent(req: IncomingMessage, url: URL, resource: string, params: Record<string, string>, body: Buffer, requestId: string): APIGatewayProxyEvent {
  // API Gateway tells the integration which scheme the client used.
  // Without a prototype: a header or parameter named `constructor` or `__proto__` is just a name.
  const headers: Record<string, string> = Object.assign(Object.create(null), { 'X-Forwarded-Proto': 'http' });
  const multiValueHeaders: Record<string, string[]> = Object.assign(Object.create(null), { 'X-Forwarded-Proto': ['http'] });
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  const query: Record<string, string> = Object.create(null);
  const multiQuery: Record<string, string[]> = Object.create(null);
  for (const [name, value] of url.searchParams) {
    query[name] = value; // API Gateway keeps the last value of a repeated key
    (multiQuery[name] ??= []).push(value);
  }
  const names = Object.keys(params);
  const pathParameters = names.length ? Object.fromEntries(names.map((name) => [name, decodeURIComponent(params[name]!)])) : null;
  const contentType = headerValue(headers, 'content-type') ?? '';
  const isText = body.length === 0 || /json|text|xml|urlencoded/.test(contentType) || contentType === '';
  return {
    resource,
    path: url.pathname,
    httpMethod: req.method ?? 'GET',
    headers,
    multiValueHeaders,
    queryStringParameters: url.searchParams.size ? query : null,
    multiValueQueryStringParameters: url.searchParams.size ? multiQuery : null,
    pathParameters,
    stageVariables: null,
    body: body.length ? (isText ? body.toString('utf8') : body.toString('base64')) : null,
    isBase64Encoded: body.length > 0 && !isText,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: req.method ?? 'GET',
      domainName: headerValue(headers, 'host') ?? '127.0.0.1',
      path: `/local${url.pathname}`,
      stage: 'local',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: resource,
      resourcePath: resource,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        user: null,
        userAgent: headerValue(headers, 'user-agent') ?? null,
        userArn: null,
      },
    },
  };
}
