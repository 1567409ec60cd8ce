/** Loads the very handler module a function deploys and calls it the way Lambda would. */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { FUNCTIONS, type FunctionName } from '../resources.ts';

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
  const deadline = Date.now() + def.timeoutS * 1000;
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

/** Each invocation logs with its own logger: many run at once in this process, as in separate Lambda containers. */
export async function invoke(name: FunctionName, event: unknown): Promise<unknown> {
  const handler = await loadHandler(name);
  // Imported on first use, after the local cloud has set POWERTOOLS_LOG_LEVEL: the logger reads it when created.
  const { withOwnLogger } = await import('../shared/powertools.ts');
  const invocation = withOwnLogger(() => handler(event, lambdaContext(name)));
  running.add(invocation);
  invocation.then(() => running.delete(invocation), () => running.delete(invocation));
  return invocation;
}

/**
 * Resolves once no invocation is running. A stop waits for this before it closes the emulators,
 * so a task of an aborted execution, say, never reads from a closed store.
 */
export async function invocationsSettled(): Promise<void> {
  while (running.size > 0) await Promise.allSettled([...running]);
}
