/**
 * AWS SDK clients built by the composition roots go through the function's tracer: instrumented by
 * Powertools in Lambda, left as built outside it (tests, the local cloud) and in functions that do
 * not trace. The Lambda case runs in a fresh Node process, whose environment says it is in Lambda.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { traceClientsWith, traced, type ClientTracer } from '#shared/client-tracing.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The middleware names of an SQS client built through `traced` after loading the HTTP handlers' tracer, in a process with `env`. */
function middlewareInProcess(env: Record<string, string>): string[] {
  const script = `await import(${JSON.stringify(`${ROOT}functions/shared/tracer.ts`)});
const { traced } = await import(${JSON.stringify(`${ROOT}functions/shared/client-tracing.ts`)});
const { SQSClient } = await import('@aws-sdk/client-sqs');
const client = traced(new SQSClient({ region: 'us-east-1' }));
console.log(JSON.stringify(client.middlewareStack.identify()));
process.exit(0);`;
  const childEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...env };
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env: childEnv, stdio: 'pipe' });
  return JSON.parse(out.toString().trim().split('\n').at(-1)!) as string[];
}

const LAMBDA = { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', AWS_LAMBDA_FUNCTION_NAME: 'market-archive-system', AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR' };
const xray = (names: string[]) => names.some((name) => name.startsWith('XRaySDKInstrumentation'));

describe('traced', () => {
  it('returns the client as built while no tracer is registered, then hands each client to the registered one', () => {
    // Prepare
    const before = new SQSClient({ region: 'us-east-1' });
    const seen: unknown[] = [];
    const tracer: ClientTracer = {
      captureAWSv3Client: (client) => {
        seen.push(client);
        return client;
      },
    };
    // Act
    const untraced = traced(before);
    traceClientsWith(tracer);
    const after = traced(new SQSClient({ region: 'us-east-1' }));
    // Assess
    expect(untraced).toBe(before);
    expect(seen).toEqual([after]);
  });

  it('instruments a client with X-Ray in Lambda, and leaves it alone outside Lambda or with tracing turned off', () => {
    expect(xray(middlewareInProcess(LAMBDA))).toBe(true);
    expect(xray(middlewareInProcess({}))).toBe(false);
    expect(xray(middlewareInProcess({ ...LAMBDA, POWERTOOLS_TRACE_ENABLED: 'false' }))).toBe(false);
  });
});
