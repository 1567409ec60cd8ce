/**
 * A function sandbox of the local cloud: a child process, at a lower CPU priority, that runs the
 * background functions (ingest, compaction, the minute jobs, export and replay partitions) as
 * Lambda runs them, apart from the functions that answer requests. In AWS each function has
 * sandboxes of its own; in one local process a batch of hundreds of thousands of records held the
 * gateway's event loop for seconds, so the first requests of a seeding `npm start` seemed hung.
 * The child is given its own file cache and scratch directory, as a Lambda sandbox has its own /tmp.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FunctionName } from '../resources.ts';

/** The functions the sandbox runs: the ones that turn data over, none that answers a caller waiting on it. */
export const BACKGROUND_FUNCTIONS: readonly FunctionName[] = [
  'ingest', 'compact', 'breadth', 'detect', 'positions-build', 'data-quality', 'export-partition', 'replay-partition',
];

/** Niceness of the sandbox (and the demo seeder): the gateway's process always comes first. */
export const BACKGROUND_NICENESS = 10;

/** A message from the parent: run `name` on `event` and answer with the same `id`. */
export interface SandboxCall { id: number; name: FunctionName; event: unknown }
/** The child's answer: the handler's result, or its error's name, message and stack. */
export type SandboxAnswer = { id: number; result: unknown } | { id: number; error: { name: string; message: string; stack?: string } };

export interface Sandbox {
  readonly functions: ReadonlySet<FunctionName>;
  call(name: FunctionName, event: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

const CHILD = fileURLToPath(new URL('./sandbox-child.ts', import.meta.url));

/** Lowers a child's priority; where the system refuses (it never should for a raise in niceness), it runs at the parent's. */
export function lowerPriority(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) setPriority(child.pid, BACKGROUND_NICENESS);
  } catch { /* the same priority as the gateway: slower answers while seeding, nothing wrong */ }
}

/** Starts the sandbox for `dataDir`'s local cloud; the environment (endpoints, names) is the parent's at this call. */
export function startSandbox(dataDir: string, functions: readonly FunctionName[] = BACKGROUND_FUNCTIONS): Sandbox {
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 0;
  let child: ChildProcess | undefined;
  let stopping = false;

  const failAll = (reason: string) => {
    for (const { reject } of pending.values()) reject(new Error(reason));
    pending.clear();
  };
  /** Started on first use, and again after a crash (Lambda starts a new sandbox after one dies). */
  const running = (): ChildProcess => {
    if (child) return child;
    const started = fork(CHILD, [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, ARCHIVE_CACHE_DIR: join(dataDir, 'cache-background'), SCRATCH_DIR: join(dataDir, 'scratch-background') },
      serialization: 'advanced',
      stdio: 'inherit',
    });
    lowerPriority(started);
    started.on('message', (answer: SandboxAnswer) => {
      const waiter = pending.get(answer.id);
      if (!waiter) return;
      pending.delete(answer.id);
      if ('error' in answer) waiter.reject(Object.assign(new Error(answer.error.message), answer.error));
      else waiter.resolve(answer.result);
    });
    started.on('exit', (code, signal) => {
      if (child === started) child = undefined;
      if (!stopping) failAll(`the function sandbox exited (${signal ?? code}) during the invocation`);
    });
    child = started;
    return started;
  };

  return {
    functions: new Set(functions),
    call(name, event) {
      if (stopping) return Promise.reject(new Error(`the function sandbox is stopping; ${name} was not run`));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        running().send({ id, name, event } satisfies SandboxCall);
      });
    },
    async stop() {
      stopping = true;
      const last = child;
      if (!last) return;
      failAll('the function sandbox stopped');
      const exited = new Promise<void>((resolve) => last.once('exit', () => resolve()));
      last.kill('SIGTERM');
      await exited;
    },
  };
}
