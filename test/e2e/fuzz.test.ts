/**
 * Bad input never answers 5xx. Every route of the served OpenAPI document is called with generated
 * bad values of each of its parameters (wrong types, out of bounds, huge, empty, encodings, built-in
 * property names, forged cursors, repeated names) and bad bodies: the only acceptable answers are
 * 2xx and 4xx with the spec's error body. A fixed seed keeps CI repeatable; `FUZZ_RUNS` runs longer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestCloud } from '../helpers/local-cloud.ts';

let cloud: Awaited<ReturnType<typeof startTestCloud>>;
let operations: { method: string; path: string; params: { name: string; in: 'path' | 'query' }[]; body: boolean }[] = [];

beforeAll(async () => {
  // The enterprise plan's rate (1,000 a second) keeps the gateway's throttle out of the way.
  cloud = await startTestCloud({ extraKeys: [{ key: FUZZ_KEY, plan: 'enterprise' }] });
  const document = (await (await fetch(`${cloud.url}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: unknown }>>;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      params: (op.parameters ?? []).filter((p): p is { name: string; in: 'path' | 'query' } => p.in === 'path' || p.in === 'query'),
      body: op.requestBody !== undefined,
    })),
  );
});
afterAll(async () => {
  await cloud?.stop();
});

const RUNS = Number(process.env.FUZZ_RUNS ?? 10);
const FUZZ_KEY = 'fuzz-enterprise-key';

/** Values no parameter of the spec accepts as they are, and some it does. */
const badValue = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '-1',
    '0',
    '1.5',
    '1e309',
    'NaN',
    'Infinity',
    '9999999999999999',
    '99999999999999999999999',
    'true',
    'null',
    'undefined',
    'constructor',
    '__proto__',
    'toString',
    '%',
    '%ZZ',
    '%00',
    '\u0000',
    '😀',
    '#10',
    '../..',
    "' OR 1=1 --",
    '{"a":1}',
    '[]',
    'eyJmIjoiYSJ9',
    'x'.repeat(5000),
  ),
  fc.string({ maxLength: 40 }),
  fc.integer().map(String),
  fc.base64String({ maxLength: 200 }),
);

const badBody = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    'null',
    '[]',
    '"x"',
    '{"__proto__":{"a":1}}',
    '{"constructor":1}',
    '{"url":1e309}',
    JSON.stringify({ filters: { symbols: Array(5000).fill('BTC') } }),
  ),
  fc.json({ maxDepth: 3 }),
);

function errorBodyProblems(status: number, text: string): string | undefined {
  if (status >= 500) return `answered ${status}: ${text.slice(0, 300)}`;
  if (status < 400) return undefined;
  try {
    const body = JSON.parse(text);
    if (
      body.success !== false
      || body.code !== status
      || typeof body.error !== 'string'
      || typeof body.error_code !== 'string'
      || typeof body.request_id !== 'string'
    )
      return `bad error body: ${text.slice(0, 300)}`;
  } catch {
    return `error body is not JSON: ${text.slice(0, 300)}`;
  }
  return undefined;
}

describe('bad input', () => {
  it('answers every route of the OpenAPI document with 2xx or a 4xx error body, never 5xx', async () => {
    expect(operations.length).toBeGreaterThan(100);
    const failures: string[] = [];
    const statuses: Record<number, number> = {};
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.array(badValue, { minLength: 6, maxLength: 6 }), badBody, fc.boolean(), async (pick, values, body, repeat) => {
        const op = operations[pick % operations.length]!;
        // One parameter (or none) gets a bad value; path parameters keep a plausible one otherwise.
        const target = op.params.length === 0 ? undefined : op.params[pick % op.params.length];
        let path = op.path;
        const query = new URLSearchParams();
        op.params.forEach((param, i) => {
          const value = param === target ? values[0]! : ['BTC', '0x1111111111111111111111111111111111111111', '1', 'x'][i % 4]!;
          if (param.in === 'path') path = path.replace(`{${param.name}+}`, 'x/y').replace(`{${param.name}}`, encodeURIComponent(value));
          else if (param === target || i % 2 === 0) query.append(param.name, value);
          if (repeat && param === target && param.in === 'query') query.append(param.name, values[1]!);
        });
        // A stray parameter of its own, and sometimes a built-in property name as one.
        query.append(values[2]!.slice(0, 50) || 'stray', values[3]!);
        const url = `${cloud.url}${path}${query.size ? `?${query}` : ''}`;
        const init: RequestInit = {
          method: op.method,
          headers: { 'X-API-Key': FUZZ_KEY, ...(op.body && { 'content-type': values[4]!.length % 3 === 0 ? 'text/plain' : 'application/json' }) },
        };
        if (op.body) init.body = typeof body === 'string' ? body : JSON.stringify(body);
        const res = await fetch(url, init);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        const problem = errorBodyProblems(res.status, await res.text());
        if (problem) failures.push(`${op.method} ${url.slice(cloud.url.length, cloud.url.length + 200)}: ${problem}`);
      }),
      { seed: 20261125, numRuns: operations.length * RUNS },
    );
    expect(failures).toEqual([]);
    // Not passed by being throttled: most requests reached a handler.
    const total = Object.values(statuses).reduce((a, b) => a + b, 0);
    expect(statuses[429] ?? 0).toBeLessThan(total / 2);
  });
});
