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

export const ms = (value: number) => `${value.toFixed(2)} ms`;

export function row(label: string, value: string): void {
  console.log(`  ${label.padEnd(52)} ${value}`);
}

type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Calls a route group's handler in-process as API Gateway would (an authorized pro caller); throws on a non-200. */
export function routeInvoker(handler: HttpHandler, functionName: string) {
  return async (resource: string, path: string, pathParameters: Record<string, string>, query: Record<string, string> = {}) => {
    const event = {
      resource, path, httpMethod: 'GET', headers: {}, multiValueHeaders: {}, queryStringParameters: query, multiValueQueryStringParameters: null,
      pathParameters, stageVariables: null, body: null, isBase64Encoded: false,
      requestContext: { requestId: 'bench', stage: 'bench', authorizer: { account_id: 'acct_bench', plan: 'pro' } },
    } as unknown as APIGatewayProxyEvent;
    const result = await handler(event, { functionName, awsRequestId: 'bench', getRemainingTimeInMillis: () => 29_000 } as Context);
    if (result.statusCode !== 200) throw new Error(result.body);
    return result;
  };
}

/** Times a route against its floor (DuckDB alone on the same files), interleaved, and prints both and the ratio. */
export async function compareToFloor(label: string, server: () => Promise<unknown>, floor: () => Promise<unknown>, runs = 40): Promise<void> {
  const serverMs: number[] = [];
  const floorMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    serverMs.push(...await timeRuns(1, server));
    floorMs.push(...await timeRuns(1, floor));
  }
  row(label, `p50 ${ms(percentile(serverMs, 50))}  p99 ${ms(percentile(serverMs, 99))}`);
  row('  DuckDB, same query on the same files (floor)', `p50 ${ms(percentile(floorMs, 50))}  p99 ${ms(percentile(floorMs, 99))}`);
  row('  handler / floor', `p50 ${(percentile(serverMs, 50) / percentile(floorMs, 50)).toFixed(2)}x  p99 ${(percentile(serverMs, 99) / percentile(floorMs, 99)).toFixed(2)}x`);
}
