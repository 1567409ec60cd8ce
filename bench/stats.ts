/** Small helpers for benchmark figures. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export async function timeRuns(runs: number, work: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await work();
    samples.push(performance.now() - start);
  }
  return samples;
}

/** Sets environment variables a bench's local cloud reads when it starts; returns what puts them back. */
export function setEnv(vars: Record<string, string>): () => void {
  const before = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  Object.assign(process.env, vars);
  return () => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

export const ms = (value: number) => `${value.toFixed(2)} ms`;

export function row(label: string, value: string): void {
  console.log(`  ${label.padEnd(52)} ${value}`);
}

/** One measured figure, as `bench-results.json` lists it, so runs and machines can be compared. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The same measurement of DuckDB alone on the same files, where there is one. */
  floor?: number;
  ratio?: number;
  samples?: number;
}

/** Every figure of this run, in the order measured. */
export const FIGURES: Figure[] = [];

/** Records a figure and prints it (as `shown`, or as its value and unit). */
export function figure(measured: Figure, shown?: string): void {
  FIGURES.push(measured);
  row(measured.name, shown ?? `${Number.isInteger(measured.value) ? measured.value.toLocaleString() : measured.value.toFixed(2)} ${measured.unit}`);
}

type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Calls a route group's handler in-process as API Gateway would (an authorized pro caller); throws on a non-200. */
export function routeInvoker(handler: HttpHandler, functionName: string) {
  return async (resource: string, path: string, pathParameters: Record<string, string>, query: Record<string, string> = {}) => {
    const event = {
      resource,
      path,
      httpMethod: 'GET',
      headers: {},
      multiValueHeaders: {},
      queryStringParameters: query,
      multiValueQueryStringParameters: null,
      pathParameters,
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { requestId: 'bench', stage: 'bench', authorizer: { account_id: 'acct_bench', plan: 'pro' } },
    } as unknown as APIGatewayProxyEvent;
    const result = await handler(event, { functionName, awsRequestId: 'bench', getRemainingTimeInMillis: () => 29_000 } as Context);
    if (result.statusCode !== 200) throw new Error(result.body);
    return result;
  };
}

/**
 * Times work against its floor (DuckDB alone on the same files): one cold call of each timed apart,
 * then `runs` warm calls of each, interleaved so both see the same machine (each pair on one input
 * from `pick`, when the work takes one). Prints and records p50 and the tail (p99 by default) of
 * both and their ratios.
 */
export async function compareToFloor<I = undefined>(
  label: string,
  server: (input: I) => Promise<unknown>,
  floor: (input: I) => Promise<unknown>,
  options: { runs?: number; tail?: number; pick?: () => I; floorLabel?: string } = {},
): Promise<{ p50: number; f50: number }> {
  const { runs = 200, tail = 99, pick = () => undefined as I, floorLabel = 'DuckDB, same query on the same files (floor)' } = options;
  const first = pick();
  const [coldServer] = await timeRuns(1, () => server(first));
  const [coldFloor] = await timeRuns(1, () => floor(first));
  const serverMs: number[] = [];
  const floorMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const input = pick();
    serverMs.push(...(await timeRuns(1, () => server(input))));
    floorMs.push(...(await timeRuns(1, () => floor(input))));
  }
  const [p50, pTail, f50, fTail] = [percentile(serverMs, 50), percentile(serverMs, tail), percentile(floorMs, 50), percentile(floorMs, tail)];
  row(label, `p50 ${ms(p50)}  p${tail} ${ms(pTail)}  (${runs} warm)  cold ${ms(coldServer!)}`);
  row(`  ${floorLabel}`, `p50 ${ms(f50)}  p${tail} ${ms(fTail)}  cold ${ms(coldFloor!)}`);
  row('  handler / floor', `p50 ${(p50 / f50).toFixed(2)}x  p${tail} ${(pTail / fTail).toFixed(2)}x`);
  FIGURES.push(
    { name: `${label}, p50`, value: p50, unit: 'ms', floor: f50, ratio: p50 / f50, samples: runs },
    { name: `${label}, p${tail}`, value: pTail, unit: 'ms', floor: fTail, ratio: pTail / fTail, samples: runs },
    { name: `${label}, cold`, value: coldServer!, unit: 'ms', floor: coldFloor!, ratio: coldServer! / coldFloor!, samples: 1 },
  );
  return { p50, f50 };
}
