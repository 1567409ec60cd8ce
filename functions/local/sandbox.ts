/**
 * The function sandboxes of the local cloud: a child process per background function (ingest,
 * compaction, the minute jobs, export and replay partitions), at `npm start`'s lower CPU priority,
 * running it as Lambda does, apart from the functions that answer requests. In AWS each function has
 * sandboxes of its own; in one local process a batch of hundreds of thousands of records held the
 * gateway's event loop for seconds, so the first requests of a seeding `npm start` seemed hung.
 * Each child is given its own file cache and scratch directory, as a Lambda sandbox has its own /tmp.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FunctionName } from '../resources.ts';

/** The functions the sandbox runs: the ones that turn data over, none that answers a caller waiting on it. */
export const BACKGROUND_FUNCTIONS: readonly FunctionName[] = [
  'ingest',
  'compact',
  'breadth',
  'detect',
  'positions-build',
  'data-quality',
  'export-partition',
  'replay-partition',
];

/** Niceness of the sandbox and the demo feed under `npm start`: the gateway's process comes first. */
export const BACKGROUND_NICENESS = 10;

/** A message from the parent: run `name` on `event` and answer with the same `id`. */
export interface SandboxCall {
  id: number;
  name: FunctionName;
  event: unknown;
}
/** The child's answer: the handler's result, or its error's name, message and stack. */
export type SandboxAnswer = { id: number; result: unknown } | { id: number; error: { name: string; message: string; stack?: string } };

export interface Sandbox {
  readonly functions: ReadonlySet<FunctionName>;
  call(name: FunctionName, event: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

const CHILD = fileURLToPath(new URL('./sandbox-child.ts', import.meta.url));

/**
 * Lowers a child's priority by `niceness` (0: the parent's); where the system refuses (it never
 * should for a raise in niceness), it runs at the parent's.
 */
export function lowerPriority(child: ChildProcess, niceness: number): void {
  try {
    // Relative to this process: a cloud started under `nice` keeps its background below its gateway.
    if (child.pid !== undefined && niceness > 0) setPriority(child.pid, Math.min(19, getPriority() + niceness));
  } catch {
    /* the same priority as the gateway: slower answers while seeding, nothing wrong */
  }
}

/**
 * Starts the sandboxes of `dataDir`'s local cloud: a process per function, as Lambda gives each
 * function sandboxes (and memory) of its own, so one function's heap or crash is never another's.
 * The environment (endpoints, names) is the parent's at this call.
 */
export function startSandbox(dataDir: string, niceness: number, functions: readonly FunctionName[] = BACKGROUND_FUNCTIONS): Sandbox {
  const pending = new Map<number, { name: FunctionName; resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 0;
  const children = new Map<FunctionName, ChildProcess>();
  let stopping = false;

  const failAll = (name: FunctionName | undefined, reason: string) => {
    for (const [id, waiter] of pending) {
      if (name !== undefined && waiter.name !== name) continue;
      pending.delete(id);
      waiter.reject(new Error(reason));
    }
  };
  /** Started on first use, and again after a crash (Lambda starts a new sandbox after one dies). */
  const running = (name: FunctionName): ChildProcess => {
    const existing = children.get(name);
    if (existing) return existing;
    const started = fork(CHILD, [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, ARCHIVE_CACHE_DIR: join(dataDir, `cache-${name}`), SCRATCH_DIR: join(dataDir, `scratch-${name}`) },
      serialization: 'advanced',
      stdio: 'inherit',
    });
    lowerPriority(started, niceness);
    started.on('message', (answer: SandboxAnswer) => {
      const waiter = pending.get(answer.id);
      if (!waiter) return;
      pending.delete(answer.id);
      if ('error' in answer) waiter.reject(Object.assign(new Error(answer.error.message), answer.error));
      else waiter.resolve(answer.result);
    });
    started.on('exit', (code, signal) => {
      if (children.get(name) === started) children.delete(name);
      if (!stopping) failAll(name, `the sandbox of ${name} exited (${signal ?? code}) during the invocation`);
    });
    children.set(name, started);
    return started;
  };

  return {
    functions: new Set(functions),
    call(name, event) {
      if (stopping) return Promise.reject(new Error(`the function sandboxes are stopping; ${name} was not run`));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { name, resolve, reject });
        running(name).send({ id, name, event } satisfies SandboxCall);
      });
    },
    async stop() {
      stopping = true;
      failAll(undefined, 'the function sandboxes stopped');
      await Promise.all(
        [...children.values()].map((child) => {
          const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
          child.kill('SIGTERM');
          return exited;
        }),
      );
      children.clear();
    },
  };
}
