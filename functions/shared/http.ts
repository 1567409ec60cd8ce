/**
 * The shared Lambda shell for HTTP route groups. A group's entry file passes one implementation per
 * operationId; the shell finds the route from the request's path and method in the route table (the
 * API Gateway resource may be a greedy `{proxy+}` serving several routes: functions/gateway-resources.ts),
 * validates path, query and body with the route's valibot schemas, calls the implementation with
 * typed input and the caller's account, and renders either the success envelope or the error body.
 * Errors are rendered here and nowhere else.
 */
import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { AppError, errorBody, toAppError } from '../core/errors.ts';
import { storeUnavailableAsAppError } from './store-errors.ts';
import { isPlanName } from '../core/plans.ts';
import type { Caller } from '../core/accounts.ts';
import type * as v from 'valibot';
import {
  API_VERSION,
  API_VERSION_HEADER,
  API_VERSION_REQUEST_HEADERS,
  GATEWAY_RESPONSES,
  REQUEST_ID_HEADER,
  ROUTES,
  UNSUPPORTED_PATHS,
  pathPattern,
  resourceMatcher,
} from '../routes.ts';
import type { OperationGroup, OperationSpec, ParamSchemas, RouteDef } from '../routes/operation.ts';
import type { Family } from '../core/venues.ts';
import type { JsonRows } from '../core/market/queries.ts';
import { logger, metrics, publishMetrics } from './powertools.ts';
import { tracer } from './tracer.ts';
import { parseBody, parseParams } from './validate.ts';
import { beginCharge } from '../core/billing/credits.ts';
import { announce } from '../core/detect/user-events.ts';
import { answeringRequests, clock, creditLedger, cursorKeys, latencyStore, queueSender } from './deps.ts';
import { latencyRecorder } from '../core/quality/latency.ts';
import { admitCursor, openCursor, sealCursor, type CursorKeyRing } from '../core/cursor-seal.ts';
import type { CursorForm } from '../core/market/cursor.ts';
import { headerValue } from './headers.ts';

// A function answering requests retries its stores briefly (deps.ts, RETRY_SETTINGS).
answeringRequests();

type Parsed<S> = S extends ParamSchemas ? { -readonly [K in keyof S]: v.InferOutput<S[K]> } : Record<never, never>;

/** The request as the operation's schemas parsed it. */
export interface RouteInput<Op extends OperationSpec = OperationSpec> {
  params: Parsed<Op['pathParams']>;
  query: Parsed<Op['query']>;
  body: Op['body'] extends v.GenericSchema ? v.InferOutput<Op['body']> : undefined;
  headers: Record<string, string | undefined>;
}

/** What the operation's response schema says it answers (the envelope's `data`, or the raw body). */
export type ResponseOf<Op extends OperationSpec> = v.InferOutput<Op['response']['schema']>;

export interface RequestContext {
  requestId: string;
  /** Where the client reached the API (scheme, host and stage), e.g. for links and the OpenAPI server. */
  baseUrl: string;
  route: RouteDef;
  /** Present on every route with `auth: 'api_key'`. */
  account?: Caller;
}

/** `T` is what the client reads: the envelope's `data` or the raw body. */
export type RouteResult<T = unknown> =
  | {
      kind: 'envelope';
      data: T;
      nextCursor?: string | null;
      meta?: Record<string, unknown>;
      status?: number;
      siblings?: Record<string, unknown>;
      creditMultiplier?: number;
      headers?: Record<string, string>;
    }
  | { kind: 'json-rows'; rows: JsonRows<T extends readonly (infer Row)[] ? Row : never>; meta?: Record<string, unknown>; creditMultiplier?: number }
  | { kind: 'raw'; body: T; status?: number; headers?: Record<string, string> }
  /** The envelope's `data`, one object already rendered as JSON text (by DuckDB): spliced in, never parsed. */
  | { kind: 'json-data'; json: string; meta?: Record<string, unknown>; creditMultiplier?: number }
  /** A binary body (an Arrow IPC stream): no envelope, metadata in `headers`, `rows` billed. */
  | { kind: 'binary'; body: Uint8Array; contentType: string; rows: number; headers?: Record<string, string> };

/** One operation's implementation: typed input in, output checked against its response schema. */
export type RouteImplementation<Op extends OperationSpec = OperationSpec> = (
  input: RouteInput<Op>,
  ctx: RequestContext,
) => Promise<RouteResult<ResponseOf<Op>>>;

export type Implementations<Ops extends Readonly<Record<string, OperationSpec>>> = { [K in keyof Ops]: RouteImplementation<Ops[K]> };

/** What a windowed page needs of its route for its cursors: the scope of opaque ones, and the route's transparent form. */
export function cursorRoute(ctx: RequestContext): { routeId: string; cursorForm?: CursorForm } {
  return { routeId: ctx.route.operationId, ...(ctx.route.cursorForm && { cursorForm: ctx.route.cursorForm }) };
}

/** The family of a per-family route (every market and breadth route has one). */
export function familyOf(ctx: RequestContext): Family {
  if (!ctx.route.family) throw new Error(`Route ${ctx.route.operationId} has no venue family`);
  return ctx.route.family;
}

/** `{success, data, meta:{count, has_more?, next_cursor?, request_id}}`; `count` is the array length, or 1 for an object. */
/** `siblings` are members beside `data` (e.g. the webhook routes' `note`). */
export function ok<T>(
  data: T,
  options: {
    nextCursor?: string | null;
    meta?: Record<string, unknown>;
    status?: number;
    siblings?: Record<string, unknown>;
    creditMultiplier?: number;
    headers?: Record<string, string>;
  } = {},
): RouteResult<T> {
  return { kind: 'envelope', data, ...options };
}

/**
 * An envelope around rows already rendered as JSON (objects joined by commas), as DuckDB produces
 * them: the rows are spliced in, never parsed and re-serialized.
 */
export function okRows<Row>(rows: JsonRows<Row>, meta?: Record<string, unknown>, creditMultiplier?: number): RouteResult<Row[]> {
  return { kind: 'json-rows', rows, meta, ...(creditMultiplier !== undefined && { creditMultiplier }) };
}

/** An envelope around one object already rendered as JSON text (a deep book DuckDB shaped). */
export function okJson<T>(json: string, meta?: Record<string, unknown>): RouteResult<T> {
  return { kind: 'json-data', json, meta };
}

export function raw<T>(body: T, options: { status?: number; headers?: Record<string, string> } = {}): RouteResult<T> {
  return { kind: 'raw', body, ...options };
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

// A per-family path under a family that lacks the operation is not a route: the answer names where it is.
const UNSUPPORTED = UNSUPPORTED_PATHS.map((path) => ({ path, pattern: pathPattern(path.path) }));

/** The answer to a path no route matches: 404 `unsupported_for_venue` naming where the data is, or `route_not_found`. */
export function noRouteError(path: string): AppError {
  const unsupported = UNSUPPORTED.find((u) => u.pattern.test(path));
  if (!unsupported) return new AppError('route_not_found', 'No route matches this path.');
  const { datatype, venue, availableOn } = unsupported.path;
  return new AppError('unsupported_for_venue', `${datatype} is not offered on ${venue}; it is on ${availableOn.map((a) => a.venue).join(', ')}.`, {
    details: { datatype, venue, available_on: availableOn },
  });
}

function accountOf(event: APIGatewayProxyEvent): Caller | undefined {
  const claims = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  const id = claims?.account_id;
  const plan = claims?.plan;
  if (typeof id !== 'string' || typeof plan !== 'string' || !isPlanName(plan)) return undefined;
  // Authorizer context values arrive as strings through API Gateway.
  const credits = Number(claims?.monthly_credits);
  return { id, plan, ...(claims?.monthly_credits !== undefined && Number.isFinite(credits) && { monthlyCredits: credits }) };
}

/**
 * Headers every answer carries, success or error: the response-shape version, and RFC 9745
 * `Deprecation` on legacy routes.
 */
function routeHeaders(route: RouteDef | undefined, pathParameters: Record<string, string>): Record<string, string> {
  const version = { [API_VERSION_HEADER]: API_VERSION };
  if (!route?.deprecated) return version;
  // The successor of this very request (`/v1/perpx/trades/BTC`), not its template.
  const successor = route.successor?.replace(/\{(\w+)\}/g, (template, name: string) => {
    const value = pathParameters[name];
    return value === undefined ? template : encodeURIComponent(value);
  });
  return { ...version, deprecation: 'true', ...(successor && { link: `<${successor}>; rel="successor-version"` }) };
}

/** A client asking for response shapes this service does not have gets a 400, not other shapes. */
function checkRequestedVersion(event: APIGatewayProxyEvent): void {
  for (const name of API_VERSION_REQUEST_HEADERS) {
    const requested = headerValue(event.headers, name)?.trim();
    if (requested !== undefined && requested !== API_VERSION) {
      throw new AppError('invalid_parameter', `Unsupported ${name} '${requested}'.`, { param: name, validValues: [API_VERSION] });
    }
  }
}

function baseUrlOf(event: APIGatewayProxyEvent): string {
  const host = headerValue(event.headers, 'host') ?? event.requestContext?.domainName ?? 'localhost';
  const scheme = headerValue(event.headers, 'x-forwarded-proto') ?? 'https';
  // The default execute-api host carries the stage in the path; a custom domain maps it away.
  const stage = host.includes('.execute-api.') && event.requestContext?.stage ? `/${event.requestContext.stage}` : '';
  return `${scheme}://${host}${stage}`;
}

/**
 * `has_more` on every cursor-paged route (one that takes `cursor`), and `next_cursor` exactly when
 * it is true: clients page on `has_more` and read an absent cursor, never a null one, as the end.
 */
function pagingMeta(route: RouteDef, nextCursor: string | null | undefined): { has_more?: boolean; next_cursor?: string } {
  if (!route.query?.cursor) return {};
  return nextCursor ? { has_more: true, next_cursor: nextCursor } : { has_more: false };
}

function render(result: RouteResult, route: RouteDef, requestId: string, pathParameters: Record<string, string>): APIGatewayProxyResult {
  const headers: Record<string, string> = { ...JSON_HEADERS, [REQUEST_ID_HEADER]: requestId, ...routeHeaders(route, pathParameters) };
  if (result.kind === 'raw') {
    return { statusCode: result.status ?? route.response.status, headers: { ...headers, ...result.headers }, body: JSON.stringify(result.body) };
  }
  if (result.kind === 'binary') {
    return {
      statusCode: route.response.status,
      headers: { ...headers, ...result.headers, 'content-type': result.contentType },
      body: Buffer.from(result.body).toString('base64'),
      isBase64Encoded: true,
    };
  }
  if (result.kind === 'json-data') {
    return {
      statusCode: route.response.status,
      headers,
      body: `{"success":true,"data":${result.json},"meta":${JSON.stringify({ count: 1, ...result.meta, request_id: requestId })}}`,
    };
  }
  if (result.kind === 'json-rows') {
    const { json, count, nextCursor } = result.rows;
    const meta = JSON.stringify({ count, ...pagingMeta(route, nextCursor), ...result.meta, ...result.rows.meta, request_id: requestId });
    return { statusCode: route.response.status, headers, body: `{"success":true,"data":[${json}],"meta":${meta}}` };
  }
  const count = Array.isArray(result.data) ? result.data.length : result.data == null ? 0 : 1;
  const body = {
    success: true,
    data: result.data,
    ...result.siblings,
    meta: { count, ...pagingMeta(route, result.nextCursor), ...result.meta, request_id: requestId },
  };
  return { statusCode: result.status ?? route.response.status, headers: { ...headers, ...result.headers }, body: JSON.stringify(body) };
}

export function renderError(error: AppError, requestId: string): APIGatewayProxyResult {
  return {
    statusCode: error.status,
    headers: { ...JSON_HEADERS, [REQUEST_ID_HEADER]: requestId, ...error.headers },
    body: JSON.stringify(errorBody(error, requestId)),
  };
}

interface RouteEntry {
  path: string;
  route: RouteDef;
  implementation: RouteImplementation;
}

/** The route a request selects and its path parameters (decoded), or none. */
interface Selected {
  entry?: RouteEntry;
  pathParameters: Record<string, string>;
}

async function dispatch({ entry, pathParameters }: Selected, event: APIGatewayProxyEvent, requestId: string): Promise<APIGatewayProxyResult> {
  if (!entry) throw noRouteError(event.path);
  const { route, implementation } = entry;
  const account = accountOf(event);
  if (route.auth === 'api_key' && !account) {
    throw new AppError('unauthorized', 'Missing or invalid API key. Provide the X-API-Key header.');
  }
  checkRequestedVersion(event);
  const headers = Object.fromEntries(Object.entries(event.headers ?? {}).map(([k, val]) => [k.toLowerCase(), val]));
  // A route with the real service's cursor form takes it as sent (and opens the sealed ones it issued before); every other route's cursors are sealed.
  const sealed = route.query?.cursor !== undefined && !route.cursorForm;
  let query = event.queryStringParameters;
  if (route.query?.cursor !== undefined && typeof query?.cursor === 'string') {
    const open = route.cursorForm ? admitCursor : openCursor;
    query = { ...query, cursor: open(await cursorKeys(), route.operationId, query.cursor) };
  }
  const input = {
    params: parseParams(route.pathParams, pathParameters, 'path'),
    query: parseParams(route.query, query, 'query'),
    body: route.body ? parseBody(route.body, event.body, event.isBase64Encoded) : undefined,
    headers: { ...headers, ...parseParams(route.headers, headers, 'header') },
  };
  // The debit's round trip runs beside the route's read (the rows' price is settled after it).
  const charge = route.billed && account ? startCharge(account) : undefined;
  let result: RouteResult;
  try {
    const answered = await implementation(input as RouteInput, { requestId, route, account, baseUrl: baseUrlOf(event) });
    result = sealed ? sealNextCursor(answered, await cursorKeys(), route.operationId) : answered;
  } catch (error) {
    await charge?.cancel();
    throw error;
  }
  const response = render(result, route, requestId, pathParameters);
  const tooLarge = oversized(response, route);
  if (tooLarge) {
    await charge?.cancel();
    throw tooLarge;
  }
  await charge?.settle(rowsOf(result), result.kind === 'raw' || result.kind === 'binary' ? 1 : (result.creditMultiplier ?? 1));
  return response;
}

/**
 * Lambda returns at most 6 MB (the whole response as JSON, headers included); a larger answer would
 * reach the client as API Gateway's bare 502. It is refused instead, naming what asks for less.
 */
export const MAX_RESPONSE_BYTES = 6 * 1024 * 1024 - 64 * 1024;

function oversized(response: APIGatewayProxyResult, route: RouteDef): AppError | undefined {
  const bytes = Buffer.byteLength(response.body);
  if (bytes <= MAX_RESPONSE_BYTES) return undefined;
  const param = ['depth', 'limit'].find((name) => route.query?.[name] !== undefined);
  return new AppError(
    'response_too_large',
    `The answer would be ${(bytes / 2 ** 20).toFixed(1)} MB, more than a response carries (${(MAX_RESPONSE_BYTES / 2 ** 20).toFixed(1)} MB): ask for less (${param ? `a smaller ${param}` : 'a shorter window'}).`,
    {
      ...(param && { param }),
      details: { response_bytes: bytes, max_response_bytes: MAX_RESPONSE_BYTES },
    },
  );
}

/** The result with its next cursor sealed for the route (envelope, rendered rows, or the Arrow header). */
function sealNextCursor(result: RouteResult, keys: CursorKeyRing, scope: string): RouteResult {
  const seal = (cursor: string | null | undefined) => (cursor ? sealCursor(keys, scope, cursor) : cursor);
  if (result.kind === 'envelope') return { ...result, nextCursor: seal(result.nextCursor) };
  if (result.kind === 'json-rows') return { ...result, rows: { ...result.rows, nextCursor: seal(result.rows.nextCursor) ?? null } };
  if (result.kind === 'json-data') return result;
  const next = result.headers?.['x-next-cursor'];
  return next ? { ...result, headers: { ...result.headers, 'x-next-cursor': seal(next)! } } : result;
}

function rowsOf(result: RouteResult): number {
  if (result.kind === 'json-rows') return result.rows.count;
  if (result.kind === 'envelope') return Array.isArray(result.data) ? result.data.length : 1;
  if (result.kind === 'binary') return result.rows;
  return 1;
}

/**
 * Begins debiting the caller's credits (see beginCharge). A ledger failure is logged, not turned
 * into an error: the data was read and the client should have it; the miss shows in the metrics.
 */
function startCharge(account: Caller): { settle(rows: number, multiplier: number): Promise<void>; cancel(): Promise<void> } {
  const pending = beginCharge({ ledger: creditLedger(), clock, announce: (e) => announce(queueSender(), e) }, account);
  const logged = async (work: () => Promise<void>, rows: number) => {
    try {
      await work();
    } catch (error) {
      logger.error('credit debit failed', { account_id: account.id, rows, error });
      metrics.addMetric('CreditDebitFailed', MetricUnit.Count, 1);
    }
  };
  return {
    settle: (rows, multiplier) => logged(() => pending.settle(rows, multiplier), rows),
    cancel: () => logged(() => pending.cancel(), 0),
  };
}

/** This container's latency minutes (one write per minute and family at most; see core/quality/latency.ts). */
let recorder: ReturnType<typeof latencyRecorder> | undefined;

/**
 * The request's time in the handler: a Powertools metric (CloudWatch, in AWS) and the container's
 * minute histogram in the quality table, which the data-quality routes read back (locally too). A
 * failed write is logged, never the client's error.
 */
async function recordLatency(route: RouteDef | undefined, ms: number, context: Context): Promise<void> {
  metrics.addMetric('RestLatency', MetricUnit.Milliseconds, ms);
  recorder ??= latencyRecorder(latencyStore, `${context?.logStreamName ?? 'local'}-${randomUUID().slice(0, 8)}`);
  try {
    await recorder.record(route?.family ?? 'other', ms, clock.now());
  } catch (error) {
    logger.warn('latency minute not recorded', { error });
  }
}

/** How long before the function's own timeout a request still running is answered. */
const DEADLINE_MARGIN_MS = 300;

/**
 * A request still running near the function's timeout is answered with the 504 API Gateway gives
 * an integration that took too long (with this request's id), never left to the runtime (a bare
 * 500, or API Gateway's body without an id). The work itself is abandoned, as Lambda would.
 */
async function withinDeadline<T>(work: Promise<T>, context: Context | undefined): Promise<T> {
  const remaining = context?.getRemainingTimeInMillis?.();
  if (remaining === undefined || !Number.isFinite(remaining)) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppError('scan_timeout', GATEWAY_RESPONSES.INTEGRATION_TIMEOUT.message)), Math.max(0, remaining - DEADLINE_MARGIN_MS));
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Builds the Lambda handler of one route group: one implementation per operation of the group,
 * typed from its schemas (the type checker finds a missing one). A route table without the
 * group's operations fails at cold start, not on a client's request.
 */
export function httpRouteGroup<Ops extends Readonly<Record<string, OperationSpec>>>(
  operations: OperationGroup<Ops>,
  implementations: Implementations<Ops>,
  routeTable: readonly RouteDef[] = ROUTES,
) {
  const { group } = operations;
  const routes = routeTable.filter((r) => r.group === group);
  const byOperation = implementations as unknown as Record<string, RouteImplementation>;
  const missing = routes.filter((r) => !byOperation[r.operation]).map((r) => r.operation);
  const unserved = Object.keys(byOperation).filter((op) => !routes.some((r) => r.operation === op));
  if (missing.length || unserved.length) {
    throw new Error(`Route group ${group}: missing implementations [${missing.join(', ')}], operations without a route [${unserved.join(', ')}]`);
  }
  const match = resourceMatcher(routes.map((route): RouteEntry => ({ path: route.path, route, implementation: byOperation[route.operation]! })));
  // The most specific route path the request's path matches (as API Gateway picks resources), then its method or ANY.
  const select = (event: APIGatewayProxyEvent): Selected => {
    const found = match(event.path);
    const method = event.httpMethod.toUpperCase();
    const entry = found?.items.find((e) => e.route.method === method) ?? found?.items.find((e) => e.route.method === 'ANY');
    return { entry, pathParameters: Object.fromEntries(Object.entries(found?.params ?? {}).map(([name, value]) => [name, decodeURIComponent(value)])) };
  };

  const handle = async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const started = performance.now();
    const requestId = event.requestContext?.requestId ?? 'unknown';
    const selected = select(event);
    const { entry } = selected;
    logger.appendKeys({ request_id: requestId, route: `${event.httpMethod} ${entry?.route.path ?? event.path}` });
    let response: APIGatewayProxyResult;
    try {
      response = await withinDeadline(dispatch(selected, event, requestId), context);
    } catch (thrown) {
      const error = toAppError(storeUnavailableAsAppError(thrown));
      if (error.status >= 500) {
        logger.error('request failed', { error_code: error.code, cause: error.cause ?? thrown });
        metrics.addMetric('ServerError', MetricUnit.Count, 1);
      }
      const rendered = renderError(error, requestId);
      response = { ...rendered, headers: { ...rendered.headers, ...routeHeaders(entry?.route, selected.pathParameters) } };
    }
    await recordLatency(entry?.route, performance.now() - started, context);
    return response;
  };

  return middy(handle)
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(publishMetrics())
    .use(captureLambdaHandler(tracer));
}
