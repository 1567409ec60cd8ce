/** Loads the very handler module a function deploys and calls it the way Lambda would. */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { FUNCTIONS, type FunctionName } from '../resources.ts';
import { config } from '../shared/config.ts';

export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

const loaded = new Map<FunctionName, Promise<LambdaHandler>>();

export function loadHandler(name: FunctionName, root = process.cwd()): Promise<LambdaHandler> {
  let handler = loaded.get(name);
  if (!handler) {
    handler = import(pathToFileURL(resolve(root, FUNCTIONS[name].entry)).href).then((module: { handler?: LambdaHandler }) => {
      if (typeof module.handler !== 'function') throw new Error(`${FUNCTIONS[name].entry} does not export a handler`);
      return module.handler;
    });
    loaded.set(name, handler);
  }
  return handler;
}

export function lambdaContext(name: FunctionName): Context {
  const def = FUNCTIONS[name];
  const deadline = Date.now() + def.timeoutS * 1000 * (config().LOCAL_DEADLINE_SCALE ?? 1);
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
    memoryLimitInMB: String(def.memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

const running = new Set<Promise<unknown>>();

/** The function an SDK call is made from, for instruments that count requests per function (bench/request-meter.ts). */
export const currentFunction = new AsyncLocalStorage<FunctionName>();

/** One finished invocation: what Lambda would bill (a request, and its duration at the function's memory). */
export interface InvocationRecord {
  name: FunctionName;
  ms: number;
  memoryMb: number;
  records: number;
}
const invocationObservers = new Set<(record: InvocationRecord) => void>();

/** Calls `observer` after every invocation until the returned function is called. */
export function observeInvocations(observer: (record: InvocationRecord) => void): () => void {
  invocationObservers.add(observer);
  return () => invocationObservers.delete(observer);
}

/** Where some functions run instead of this process: the local cloud's function sandbox (sandbox.ts). */
interface Elsewhere {
  readonly functions: ReadonlySet<FunctionName>;
  call(name: FunctionName, event: unknown): Promise<unknown>;
}
let elsewhere: Elsewhere | undefined;

/** Sends the invocations of `target.functions` to `target` until the returned function is called. */
export function invokeElsewhere(target: Elsewhere): () => void {
  elsewhere = target;
  return () => {
    if (elsewhere === target) elsewhere = undefined;
  };
}

async function invokeHere(name: FunctionName, event: unknown): Promise<unknown> {
  const handler = await loadHandler(name);
  // Imported on first use, after the local cloud has set POWERTOOLS_LOG_LEVEL: the logger reads it when created.
  const { withOwnLogger } = await import('../shared/powertools.ts');
  return currentFunction.run(name, () => withOwnLogger(() => handler(event, lambdaContext(name))));
}

/** Each invocation logs with its own logger: many run at once in this process, as in separate Lambda containers. */
export async function invoke(name: FunctionName, event: unknown): Promise<unknown> {
  const startedAt = performance.now();
  const invocation = elsewhere?.functions.has(name) ? elsewhere.call(name, event) : invokeHere(name, event);
  if (invocationObservers.size > 0) {
    const records = (event as { Records?: unknown[] } | null)?.Records?.length ?? 0;
    const observe = () => {
      const record = { name, ms: performance.now() - startedAt, memoryMb: FUNCTIONS[name].memoryMb, records };
      for (const observer of invocationObservers) observer(record);
    };
    invocation.then(observe, observe);
  }
  running.add(invocation);
  invocation.then(
    () => running.delete(invocation),
    () => running.delete(invocation),
  );
  return invocation;
}

/**
 * Resolves once no invocation is running. A stop waits for this before it closes the emulators,
 * so a task of an aborted execution, say, never reads from a closed store.
 */
export async function invocationsSettled(): Promise<void> {
  while (running.size > 0) await Promise.allSettled([...running]);
}
