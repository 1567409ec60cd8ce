/**
 * The fault suite: the local cloud (`npm start`, a child process) is killed with SIGKILL while
 * deliveries are pending, in flight and waiting on the rungs of the retry ladder, then started
 * again on the same data; and stopped cleanly in the same state. Every delivery must reach the
 * receiver at least once: the records are durable, and the overdue sweep sends again the jobs the
 * in-memory queue lost. LOCAL_TIME_SCALE=60 makes the ladder's first hour one minute.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Answer, type Receiver } from '../../functions/local/receiver.ts';
import { apiClient, eventually } from '../helpers/api.ts';

const KEY = 'fault-suite-key';
const ROOT = new URL('../../', import.meta.url).pathname;
let receiver: Receiver;
let dataDir: string;
let port: number;
let cloud: ChildProcess | undefined;
/** What the receiver answers now; a request is recorded whatever it answers. */
let answer: Answer = 503;
const call = apiClient(() => `http://127.0.0.1:${port}`);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: free } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return free;
}

/** `npm start` as a user runs it, in its own process group (so SIGKILL reaches the process that holds the cloud). */
async function startCloud(): Promise<void> {
  const child = spawn('node', ['bin/with-local-ca.mjs', 'tsx', 'bin/local.ts'], {
    cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env, PORT: String(port), LOCAL_DATA_DIR: dataDir, DEMO_DAYS: '0', LOCAL_TIME_SCALE: '60', WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
      LOCAL_API_KEYS: `${KEY}=pro`, LOG_LEVEL: 'ERROR',
    },
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Press Ctrl-C to stop.')) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.on('exit', (code) => reject(new Error(`the local cloud exited (${code}) before it was ready:\n${output.slice(-2000)}`)));
  });
  cloud = child;
}

async function stopCloud(signal: 'SIGKILL' | 'SIGINT'): Promise<void> {
  const child = cloud!;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // SIGKILL the whole group: the wrapper and the cloud it runs die at once, as on a crash. SIGINT as Ctrl-C sends it.
  process.kill(-child.pid!, signal);
  await exited;
  cloud = undefined;
}

/** Queues `count` signed webhook.test deliveries at the endpoint; answers their event ids. */
async function queueTests(endpointId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const queued = await call(KEY, 'POST', `/v1/webhooks/endpoints/${endpointId}/test`);
    expect(queued.status).toBe(202);
    ids.push(queued.body.data.event_id);
  }
  return ids;
}

const deliveredIds = () => new Set(receiver.requests.filter((r) => r.path === '/faults').map((r) => String(r.headers['svc-event-id'])));
/** Event ids the receiver answered with a 2xx. */
const acceptedIds = new Set<string>();

beforeAll(async () => {
  receiver = await startReceiver((request) => {
    const now = answer;
    if (now === 200) acceptedIds.add(String(request.headers['svc-event-id']));
    return now;
  });
  dataDir = mkdtempSync(join(tmpdir(), 'archive-faults-'));
  port = await freePort();
  await startCloud();
});

afterAll(async () => {
  if (cloud) await stopCloud('SIGKILL');
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('deliveries across a crash and a restart', () => {
  let endpointId: string;
  beforeAll(async () => {
    const created = await call(KEY, 'POST', '/v1/webhooks/endpoints', { url: receiver.url('/faults') });
    expect(created.status).toBe(201);
    endpointId = created.body.data.id;
  });

  it('delivers every delivery at least once after kill -9 with deliveries waiting on the ladder, in flight and pending', async () => {
    // Waiting on the ladder: refused for a while, so they sit on the 5 s to 2 min rungs (scaled) when the cloud dies.
    answer = 503;
    const retrying = await queueTests(endpointId, 12);
    await eventually(() => retrying.every((id) => receiver.requests.filter((r) => r.headers['svc-event-id'] === id).length >= 2), Boolean);
    // In flight: the receiver holds the connections open.
    answer = 'hang';
    const inFlight = await queueTests(endpointId, 6);
    await eventually(() => inFlight.every((id) => deliveredIds().has(id)), Boolean);
    // Pending: queued in the last instant before the crash.
    const pending = await queueTests(endpointId, 6);

    await stopCloud('SIGKILL');
    answer = 200;
    await startCloud();

    const all = [...retrying, ...inFlight, ...pending];
    await eventually(() => all.filter((id) => !acceptedIds.has(id)), (missing) => missing.length === 0);
    const log = await call(KEY, 'GET', `/v1/webhooks/endpoints/${endpointId}/deliveries?limit=200`);
    const states = new Map((log.body.data as any[]).map((d) => [d.event_id, d.state]));
    expect(all.map((id) => states.get(id))).toEqual(all.map(() => 'delivered'));
  });

  it('delivers everything after a clean stop in the same state', async () => {
    answer = 503;
    const retrying = await queueTests(endpointId, 8);
    await eventually(() => retrying.every((id) => receiver.requests.filter((r) => r.headers['svc-event-id'] === id).length >= 2), Boolean);
    const pending = await queueTests(endpointId, 4);

    await stopCloud('SIGINT');
    answer = 200;
    await startCloud();

    const all = [...retrying, ...pending];
    await eventually(() => all.filter((id) => !acceptedIds.has(id)), (missing) => missing.length === 0);
  });
});
