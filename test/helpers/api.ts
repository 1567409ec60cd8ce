/** Calls the local cloud as a client would, and waits for things that happen asynchronously. */

export function apiClient(baseUrl: () => string) {
  return async function call(key: string, method: string, path: string, body?: unknown) {
    const res = await fetch(baseUrl() + path, {
      method, headers: { 'X-API-Key': key, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: await res.json() as any };
  };
}

/** Reads until `done` holds, or fails after `timeoutMs` showing the last value read. */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
