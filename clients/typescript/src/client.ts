/**
 * The runtime of the typed client: route-agnostic. Its methods are built from the generated route
 * list, so every route of the service is a method with the types `generated.ts` gives it.
 */
import { ROUTES, type Methods, type PagedOperation } from './generated.ts';
import type { Page } from './page.ts';

export const API_VERSION = '2026-10-01';

export interface ClientOptions {
  /** e.g. `http://127.0.0.1:3000` for the local cloud, or the deployed stage's URL. */
  baseUrl: string;
  /** Sent as `X-API-Key`; only `/health` and `/v1/openapi.json` work without one. */
  apiKey?: string;
  /** The response-shape version sent as `svc-version` (default: the one this client was generated for). */
  version?: string;
  fetch?: typeof fetch;
}

/** A non-2xx answer, with the service's error body. */
export class ApiError extends Error {
  readonly status: number;
  /** The stable machine-readable code (`error_code`), e.g. `invalid_interval`. */
  readonly code: string | undefined;
  readonly param: string | undefined;
  readonly validValues: readonly (string | number)[] | undefined;
  readonly requestId: string | undefined;
  /** The whole error body, extra members (e.g. `available_on`) included. */
  readonly body: Record<string, unknown>;

  constructor(status: number, body: Record<string, unknown>) {
    super(typeof body.error === 'string' ? body.error : `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.code = typeof body.error_code === 'string' ? body.error_code : undefined;
    this.param = typeof body.param === 'string' ? body.param : undefined;
    this.validValues = Array.isArray(body.valid_values) ? body.valid_values : undefined;
    this.requestId = typeof body.request_id === 'string' ? body.request_id : undefined;
  }
}

type Input = Record<string, unknown> & { body?: unknown };
type RowOf<K extends PagedOperation> = Awaited<ReturnType<Methods[K]>> extends Page<readonly (infer Row)[]> ? Row : never;

export type Client = Methods & {
  /** Every row of a cursor-paged route, page after page, following `meta.has_more`. */
  iterate<K extends PagedOperation>(operation: K, input: Parameters<Methods[K]>[0]): AsyncGenerator<RowOf<K>>;
};

/**
 * Path segments are encoded, except the `:` of hip3 symbols, which the service reads raw. `.` and
 * `..` are refused: URL resolution would turn them into another route.
 */
function segment(value: unknown): string {
  const text = String(value);
  if (text === '.' || text === '..' || text === '') throw new TypeError(`path parameter '${text}' is not a value`);
  return encodeURIComponent(text).replaceAll('%3A', ':');
}

export function createClient(options: ClientOptions): Client {
  const base = options.baseUrl.replace(/\/$/, '');
  const send = options.fetch ?? fetch;

  async function call(route: { method: string; path: string }, input: Input = {}): Promise<unknown> {
    const { body, ...params } = input;
    const query = new URLSearchParams();
    const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      const value = params[name];
      if (value === undefined) throw new TypeError(`missing path parameter ${name}`);
      delete params[name];
      return segment(value);
    });
    for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value));
    const res = await send(`${base}${path}${query.size ? `?${query}` : ''}`, {
      method: route.method,
      headers: {
        'svc-version': options.version ?? API_VERSION,
        ...(options.apiKey !== undefined && { 'X-API-Key': options.apiKey }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (!res.ok) throw new ApiError(res.status, (parsed ?? {}) as Record<string, unknown>);
    return parsed;
  }

  const methods = Object.fromEntries(
    Object.entries(ROUTES).map(([operationId, route]) => [operationId, (input?: Input) => call(route, input)]),
  ) as unknown as Methods;

  async function* iterate<K extends PagedOperation>(operation: K, input: Parameters<Methods[K]>[0]): AsyncGenerator<RowOf<K>> {
    let cursor: string | undefined;
    do {
      const page = (await call(ROUTES[operation], { ...input, ...(cursor !== undefined && { cursor }) })) as Page<RowOf<K>[]>;
      yield* page.data;
      // Older servers sent a null cursor instead of has_more; both end the walk.
      cursor = page.meta.has_more === false ? undefined : (page.meta.next_cursor ?? undefined);
    } while (cursor !== undefined);
  }

  return Object.assign(methods, { iterate });
}
