/** Calls the local cloud as a client would, and waits for things that happen asynchronously. */
import { ROUTES } from '#functions/routes.ts';
import type { CursorForm } from '#schemas/params.ts';

export function apiClient(baseUrl: () => string) {
  return async function call(key: string, method: string, path: string, body?: unknown) {
    const res = await fetch(baseUrl() + path, {
      method,
      headers: { 'X-API-Key': key, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
}

/** GETs a path of the local cloud with a key and query parameters, as the route tests call it. */
export function keyedGet(baseUrl: () => string, key: string) {
  return async function get(path: string, query: Record<string, string | number | boolean> = {}) {
    const url = new URL(baseUrl() + path);
    for (const [k, val] of Object.entries(query)) url.searchParams.set(k, String(val));
    const res = await fetch(url, { headers: { 'X-API-Key': key } });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
}

/** The first pause between two reads of `eventually`, and the longest it grows to. */
const FIRST_PAUSE_MS = 150;
const LONGEST_PAUSE_MS = 1_000;

/**
 * Reads until `done` holds, or fails after `timeoutMs` showing the last value read. The bound is
 * against a hang, not a slow machine: a loaded machine makes a test slower, never red. The pause
 * between reads grows with the wait: a read is often a request through the local cloud (gateway,
 * authorizer, a query), and a wait of a minute (a retry ladder, a lease) read every 150 ms took
 * CPU from the very work it waited for.
 */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs = 5 * 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(LONGEST_PAUSE_MS, pause * 1.5)) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

/**
 * Pages through a cursor-paged route to its end with `get`; every page must be a 200 with
 * `has_more`, and `next_cursor` exactly when it is true.
 */
export async function walkPages(
  get: (path: string, query: Record<string, string | number | boolean>) => Promise<{ status: number; body: any }>,
  path: string,
  query: Record<string, string | number | boolean>,
): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | undefined;
  do {
    const res = await get(path, { ...query, ...(cursor && { cursor }) });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    if (typeof res.body.meta.has_more !== 'boolean' || 'next_cursor' in res.body.meta !== res.body.meta.has_more) {
      throw new Error(`${path}: has_more ${res.body.meta.has_more} with next_cursor ${res.body.meta.next_cursor}`);
    }
    rows.push(...res.body.data);
    cursor = res.body.meta.next_cursor;
  } while (cursor);
  return rows;
}

/** Pages through a core page function (rows rendered as JSON) to its end, following `nextCursor`. */
export async function walkJsonRows<Row>(next: (cursor?: string) => Promise<{ json: string; nextCursor: string | null }>): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | undefined;
  do {
    const page = await next(cursor);
    rows.push(...(JSON.parse(`[${page.json}]`) as Row[]));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return rows;
}

/** What a page function takes of its route for its cursors, as the HTTP shell passes it (cursorRoute): its operation id and cursor form. */
export function routePaging(operationId: string): { routeId: string; cursorForm?: CursorForm } {
  const route = ROUTES.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`No route ${operationId}`);
  return { routeId: operationId, ...(route.cursorForm && { cursorForm: route.cursorForm }) };
}
