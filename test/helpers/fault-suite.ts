/**
 * The fault suite's harness: the local cloud as `npm start` (a child process) on a data directory
 * of its own, killed with SIGKILL or stopped with SIGINT and started again on the same data, and a
 * receiver whose answer the test sets. LOCAL_TIME_SCALE=60 makes the ladder's first hour one
 * minute. Each scenario (a describe block of `faults.test.ts`) has a harness of its own, so their
 * clouds run at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { startReceiver, type Answer, type Receiver } from '#local/receiver.ts';
import { apiClient, eventually } from './api.ts';
import { awaitFixture } from './run-fixtures.ts';

export const KEY = 'fault-suite-key';
const ROOT = new URL('../../', import.meta.url).pathname;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: free } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return free;
}

/**
 * Starts the receiver and the cloud before the tests of the describe block it is called in (both
 * stopped after them). The receiver records every request whatever it answers, and records as
 * accepted the event ids it answered with a 2xx.
 */
export function faultSuite() {
  let receiver: Receiver;
  let dataDir: string;
  let port: number;
  let cloud: ChildProcess | undefined;
  /** What the receiver answers now. */
  let answer: Answer = 503;
  const acceptedIds = new Set<string>();
  const call = apiClient(() => `http://127.0.0.1:${port}`);

  /** `npm start` as a user runs it, in its own process group (so SIGKILL reaches the process that holds the cloud). */
  async function startCloud(): Promise<void> {
    const child = spawn('node', ['bin/with-local-ca.mjs', 'node', '--import', 'tsx', 'bin/local.ts'], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PORT: String(port),
        LOCAL_DATA_DIR: dataDir,
        DEMO_DAYS: '0',
        LOCAL_TIME_SCALE: '60',
        WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
        LOCAL_API_KEYS: `${KEY}=pro`,
        LOG_LEVEL: 'ERROR',
        // As every test cloud's (local-cloud.ts): a loaded machine must not cut off a request AWS would finish.
        LOCAL_DEADLINE_SCALE: process.env.LOCAL_DEADLINE_SCALE ?? '5',
      },
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Press Ctrl-C to stop.')) resolve();
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.on('exit', (code) => reject(new Error(`the local cloud exited (${code}) before it was ready:\n${output.slice(-2000)}`)));
    });
    cloud = child;
  }

  async function stopCloud(signal: 'SIGKILL' | 'SIGINT'): Promise<void> {
    const child = cloud!;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // SIGKILL the whole group: the wrapper and the cloud it runs die at once, as on a crash. SIGINT as Ctrl-C sends it.
    process.kill(-child.pid!, signal);
    const code = await exited;
    cloud = undefined;
    // A clean stop ends the process itself (the tsx CLI, which relays signals, once turned a Ctrl-C
    // into a SIGKILL of a cloud busy for more than 60 ms).
    if (signal === 'SIGINT') expect(code).toBe(0);
  }

  beforeAll(async () => {
    receiver = await startReceiver((request) => {
      const now = answer;
      if (now === 200) acceptedIds.add(String(request.headers['svc-event-id']));
      return now;
    });
    dataDir = mkdtempSync(join(tmpdir(), 'archive-faults-'));
    // The run's synthesis of the stack, where `npm start` keeps it: the first start reads it instead of synthesizing again.
    cpSync((await awaitFixture(inject('runFixturesDir'), 'template')).synthCache, join(dataDir, 'synth'), { recursive: true });
    port = await freePort();
    await startCloud();
  });

  afterAll(async () => {
    if (cloud) await stopCloud('SIGKILL');
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  return {
    call,
    acceptedIds,
    receiver: () => receiver,
    answer: (next: Answer) => {
      answer = next;
    },
    startCloud,
    stopCloud,
    /** An endpoint at the receiver's `path`; answers its id. */
    async createEndpoint(path: string): Promise<string> {
      const created = await call(KEY, 'POST', '/v1/webhooks/endpoints', { url: receiver.url(path) });
      expect(created.status).toBe(201);
      return created.body.data.id;
    },
    /** Queues `count` signed webhook.test deliveries at the endpoint; answers their event ids. */
    async queueTests(endpointId: string, count: number): Promise<string[]> {
      const ids: string[] = [];
      for (let i = 0; i < count; i += 1) {
        const queued = await call(KEY, 'POST', `/v1/webhooks/endpoints/${endpointId}/test`);
        expect(queued.status).toBe(202);
        ids.push(queued.body.data.event_id);
      }
      return ids;
    },
    /**
     * Waits until the receiver has accepted every one of `eventIds`; past the wait, fails naming the
     * missing deliveries as the endpoint's log has them (state, attempts, next attempt, last error).
     */
    async awaitAccepted(endpointId: string, eventIds: readonly string[]): Promise<void> {
      try {
        await eventually(
          () => eventIds.filter((id) => !acceptedIds.has(id)),
          (missing) => missing.length === 0,
        );
      } catch (error) {
        const log = await call(KEY, 'GET', `/v1/webhooks/endpoints/${endpointId}/deliveries?limit=200`);
        const missing = ((log.body.data as any[]) ?? []).filter((d) => !acceptedIds.has(d.event_id) && eventIds.includes(d.event_id));
        throw new Error(`${(error as Error).message}; not accepted: ${JSON.stringify(missing)}`);
      }
    },
    /** Event ids the receiver got at `path`. */
    deliveredIds: (path: string) => new Set(receiver.requests.filter((r) => r.path === path).map((r) => String(r.headers['svc-event-id']))),
    /** How many times the receiver got each event id. */
    attemptsOf: (id: string) => receiver.requests.filter((r) => r.headers['svc-event-id'] === id).length,
  };
}
