/**
 * Soak (issue 21): the whole local cloud in this process, as `npm start` runs it (schedules and SQS
 * pollers on, a small seeded demo market writing live batches), under `minutes` of steady mixed load
 * over HTTP with a pro key, then `idleMinutes` with no client traffic. Load, paced so two cores are
 * not saturated: market pages (a 1000-row trades page and its cursor pages, 500 one-minute candles,
 * the order book) about once a second; webhook management (limits, list endpoints, create and
 * delete a subscription) every two seconds; a `webhook.test` delivery twice a second to an HTTPS
 * receiver that answers 500 to 3 requests in 10 (by a counter), so deliveries ride the retry ladder
 * (LOCAL_TIME_SCALE=60: retries after about 0.1 s, 0.5 s, 2 s, 10 s, 60 s).
 * Measured per class: requests, throughput, p50/p99 latency at the client, 5xx (printed) and other
 * errors; test deliveries queued versus delivered; process RSS and heapUsed sampled every 5 s, after
 * warm-up (the first minute) versus at the end of the load and at the end of the idle phase.
 * Needs NODE_EXTRA_CA_CERTS=functions/local/tls/ca.pem at process start (the `bench` script sets it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCloud } from '../functions/local/cloud.ts';
import { startReceiver } from '../functions/local/receiver.ts';
import { FIGURES, figure, ms, percentile, row, setEnv } from './stats.ts';

const KEY = 'bench-soak-pro-key';
const TIME_SCALE = '60';
const SAMPLE_EVERY_MS = 5_000;
const MB = 2 ** 20;

interface RouteStats {
  latencies: number[];
  requests: number;
  serverErrors: { at: number; method: string; path: string; status: number; body: string }[];
  /** Other failures (a status other than the one expected, or no response), by status or error. */
  otherErrors: Map<string, number>;
}

interface MemorySample {
  at: number;
  phase: 'load' | 'idle';
  rss: number;
  heapUsed: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const pct = (from: number, to: number) => ((to - from) / from) * 100;
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(1)}%`;

/** Runs `work` every `periodMs` until `until` (a late round starts the next one at once, without catching up). */
async function every(periodMs: number, until: number, work: () => Promise<void>): Promise<void> {
  let next = Date.now();
  while (Date.now() < until) {
    await work();
    next += periodMs;
    const wait = next - Date.now();
    if (wait > 0) await sleep(Math.min(wait, Math.max(0, until - Date.now())));
    else next = Date.now();
  }
}

/** Least-squares slope of y over x. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return sxy / sxx;
}

export async function benchSoak(options: { minutes?: number; idleMinutes?: number } = {}): Promise<void> {
  const loadMs = (options.minutes ?? 10) * 60_000;
  const idleMs = (options.idleMinutes ?? 2) * 60_000;
  const warmUpMs = Math.min(60_000, loadMs / 2);
  // Read by the cloud's config when it starts: loopback receivers allowed, the ladder divided by 60.
  const restoreEnv = setEnv({ WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', LOCAL_TIME_SCALE: TIME_SCALE });

  // The flaky receiver: every 10 requests, the 2nd, 5th and 8th get a 500 (never two failures in a row).
  // What arrives is folded into these maps as it arrives, and the receiver's own request log is
  // emptied at every memory sample, so the bench's bookkeeping stays small next to the cloud's.
  let received = 0;
  let served500 = 0;
  const queuedAt = new Map<string, number>(); // test event id -> when POST /test answered
  const deliveredAt = new Map<string, number>(); // test event id -> first 200 at the receiver
  const attempts = new Map<string, number>(); // test event id -> requests received
  let duplicates = 0; // a 200 answered again for an event id already delivered
  const otherEvents = new Map<string, number>(); // event type -> requests (rules created by the management load)
  const receiver = await startReceiver((request) => {
    const status = [1, 4, 7].includes(received++ % 10) ? 500 : 200;
    if (status === 500) served500++;
    const eventId = String(request.headers['svc-event-id']);
    const type = String(request.headers['svc-event-type']);
    if (type !== 'webhook.test') otherEvents.set(type, (otherEvents.get(type) ?? 0) + 1);
    else {
      attempts.set(eventId, (attempts.get(eventId) ?? 0) + 1);
      if (status === 200) {
        if (deliveredAt.has(eventId)) duplicates++;
        else deliveredAt.set(eventId, request.receivedAt);
      }
    }
    return status;
  });

  const dataDir = mkdtempSync(join(tmpdir(), 'bench-soak-'));
  const startedAt = Date.now();
  const cloud = await startLocalCloud({
    port: 0,
    dataDir,
    apiKeys: [{ key: KEY, plan: 'pro' }],
    schedules: true,
    pollers: true,
    logLevel: 'ERROR',
    demo: { days: 1 / 24, seed: 42, intensity: 0.3, l2IntervalMs: 300_000, orderLevelHours: 0.25 },
  });
  let sampler: NodeJS.Timeout | undefined;
  let progress: NodeJS.Timeout | undefined;
  let loadStart = Date.now();
  try {
    await cloud.demo!.seeded;
    const seededMs = Date.now() - startedAt;

    const stats = new Map<string, RouteStats>();
    const statsOf = (route: string) => {
      let s = stats.get(route);
      if (!s) stats.set(route, (s = { latencies: [], requests: 0, serverErrors: [], otherErrors: new Map() }));
      return s;
    };
    /** One API call, timed at the client (response body read); the parsed body when the status is `expected`. */
    const call = async (route: string, method: string, path: string, expected: number, body?: unknown): Promise<any> => {
      const s = statsOf(route);
      s.requests++;
      const start = performance.now();
      try {
        const res = await fetch(cloud.url + path, {
          method,
          headers: { 'X-API-Key': KEY, ...(body !== undefined && { 'content-type': 'application/json' }) },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        const text = await res.text();
        s.latencies.push(performance.now() - start);
        if (res.status >= 500)
          s.serverErrors.push({ at: Date.now() - loadStart, method, path: path.slice(0, 120), status: res.status, body: text.slice(0, 300) });
        else if (res.status !== expected) s.otherErrors.set(String(res.status), (s.otherErrors.get(String(res.status)) ?? 0) + 1);
        else return JSON.parse(text);
      } catch (error) {
        const reason = `no response (${(error as Error).cause ? String((error as Error).cause) : (error as Error).message})`.slice(0, 100);
        s.otherErrors.set(reason, (s.otherErrors.get(reason) ?? 0) + 1);
      }
      return undefined;
    };

    const endpoint = await call('setup', 'POST', '/v1/webhooks/endpoints', 201, { url: receiver.url('/soak') });
    if (!endpoint)
      throw new Error(`Could not create the soak endpoint: ${JSON.stringify([...statsOf('setup').otherErrors, ...statsOf('setup').serverErrors])}`);
    const endpointId: string = endpoint.data.id;

    const samples: MemorySample[] = [];
    const sample = (phase: MemorySample['phase']) => {
      const { rss, heapUsed } = process.memoryUsage();
      samples.push({ at: Date.now() - loadStart, phase, rss, heapUsed });
      receiver.requests.splice(0);
    };
    loadStart = Date.now();
    const loadEnd = loadStart + loadMs;
    let phase: MemorySample['phase'] = 'load';
    sample('load');
    sampler = setInterval(() => sample(phase), SAMPLE_EVERY_MS);
    console.log(
      `\nSoak (local cloud in this process: 1-hour demo market seeded in ${(seededMs / 1000).toFixed(0)} s, schedules and pollers on; ${loadMs / 60_000} min of mixed load, then ${idleMs / 60_000} min idle)`,
    );
    progress = setInterval(() => {
      const last = samples.at(-1)!;
      const done = [...stats.values()].reduce((n, s) => n + s.requests, 0);
      row(
        `  ${((Date.now() - loadStart) / 60_000).toFixed(0)} min`,
        `rss ${(last.rss / MB).toFixed(0)} MB  heap ${(last.heapUsed / MB).toFixed(0)} MB  ${done} requests  deliveries ${deliveredAt.size}/${queuedAt.size}`,
      );
    }, 60_000);

    // Market pages: a trades page of 1000 and up to 3 cursor pages after it (then 100-row pages, so a
    // cursor is walked even when the seeded hour fits on one page), candles and the book.
    let cursorPages = 0;
    const walk = async (route: string, first: string, pages: number) => {
      let page = await call(route, 'GET', first, 200);
      for (let i = 0; i < pages && page?.meta?.has_more; i++) {
        cursorPages++;
        page = await call(`${route}, cursor page`, 'GET', `${first}&cursor=${encodeURIComponent(page.meta.next_cursor)}`, 200);
      }
    };
    const market = every(1_000, loadEnd, async () => {
      await walk('market: trades limit=1000', '/v1/perpx/trades/BTC?limit=1000', 3);
      await call('market: candles 1m limit=500', 'GET', '/v1/perpx/candles/BTC?interval=1m&limit=500', 200);
      await call('market: orderbook', 'GET', '/v1/perpx/orderbook/BTC', 200);
      await walk('market: trades limit=100', '/v1/perpx/trades/BTC?limit=100', 2);
    });
    const management = every(2_000, loadEnd, async () => {
      await call('webhooks: limits', 'GET', '/v1/webhooks/limits', 200);
      await call('webhooks: list endpoints', 'GET', '/v1/webhooks/endpoints', 200);
      const created = await call('webhooks: create subscription', 'POST', '/v1/webhooks/subscriptions', 201, {
        endpoint_id: endpointId,
        event_type: 'market.liquidation',
      });
      if (created) await call('webhooks: delete subscription', 'DELETE', `/v1/webhooks/subscriptions/${created.data.id}`, 200);
    });
    const deliveries = every(500, loadEnd, async () => {
      const queued = await call('deliveries: POST /test', 'POST', `/v1/webhooks/endpoints/${endpointId}/test`, 202);
      if (queued) queuedAt.set(queued.data.event_id, Date.now());
    });
    await Promise.all([market, management, deliveries]);
    const loadSeconds = (Date.now() - loadStart) / 1000;
    sample('load');
    const endOfLoad = { queued: queuedAt.size, delivered: deliveredAt.size };
    phase = 'idle';
    await sleep(idleMs);
    clearInterval(sampler);
    clearInterval(progress);
    sample('idle');

    // The delivery log, read once at the end (the newest 200): the cloud's own view of the tail.
    const log = await call('setup', 'GET', `/v1/webhooks/endpoints/${endpointId}/deliveries?limit=200`, 200);
    const logStates = new Map<string, number>();
    for (const d of (log?.data ?? []) as { state: string }[]) logStates.set(d.state, (logStates.get(d.state) ?? 0) + 1);

    // Per class and per route: requests, throughput, latency, errors.
    const classes: [string, string][] = [
      ['market', 'market pages'],
      ['webhooks', 'webhook management'],
      ['deliveries', 'deliveries queued (POST /test)'],
    ];
    const allServerErrors: (RouteStats['serverErrors'][number] & { route: string })[] = [];
    let otherErrorCount = 0;
    for (const [prefix, label] of classes) {
      const routes = [...stats].filter(([route]) => route.startsWith(`${prefix}:`));
      const latencies = routes.flatMap(([, s]) => s.latencies);
      const requests = routes.reduce((n, [, s]) => n + s.requests, 0);
      const serverErrors = routes.reduce((n, [, s]) => n + s.serverErrors.length, 0);
      const others = routes.flatMap(([, s]) => [...s.otherErrors]);
      const otherCount = others.reduce((n, [, c]) => n + c, 0);
      otherErrorCount += otherCount;
      for (const [route, s] of routes) allServerErrors.push(...s.serverErrors.map((e) => ({ ...e, route })));
      const [p50, p99] = [percentile(latencies, 50), percentile(latencies, 99)];
      figure(
        { name: `soak: ${label}, throughput`, value: requests / loadSeconds, unit: 'req/s', samples: requests },
        `${(requests / loadSeconds).toFixed(2)} req/s  (${requests} requests)  p50 ${ms(p50)}  p99 ${ms(p99)}  5xx ${serverErrors}  other errors ${otherCount}`,
      );
      FIGURES.push(
        { name: `soak: ${label}, p50`, value: p50, unit: 'ms', samples: latencies.length },
        { name: `soak: ${label}, p99`, value: p99, unit: 'ms', samples: latencies.length },
        { name: `soak: ${label}, 5xx responses`, value: serverErrors, unit: 'responses', samples: requests },
        { name: `soak: ${label}, other errors`, value: otherCount, unit: 'requests', samples: requests },
      );
      for (const [route, s] of routes) {
        row(
          `  ${route.slice(prefix.length + 2)}`,
          `${s.requests}  p50 ${ms(percentile(s.latencies, 50))}  p99 ${ms(percentile(s.latencies, 99))}`
            + `${s.serverErrors.length ? `  5xx ${s.serverErrors.length}` : ''}${s.otherErrors.size ? `  other: ${[...s.otherErrors].map(([k, v]) => `${k} x${v}`).join(', ')}` : ''}`,
        );
      }
    }
    row('cursor pages walked', String(cursorPages));
    figure({ name: 'soak: 5xx responses, all classes', value: allServerErrors.length, unit: 'responses' });
    for (const e of allServerErrors.slice(0, 20)) row(`  5xx at ${(e.at / 1000).toFixed(0)} s`, `${e.status} ${e.method} ${e.path}: ${e.body}`);
    if (allServerErrors.length > 20) row('  ...', `${allServerErrors.length - 20} more`);
    figure({ name: 'soak: other errors, all classes', value: otherErrorCount, unit: 'requests' });

    // Deliveries: queued by POST /test versus first 200 at the receiver.
    const times = [...deliveredAt].map(([id, at]) => at - (queuedAt.get(id) ?? at));
    const attemptCounts = [...attempts.values()];
    const delivered = deliveredAt.size;
    row('test deliveries delivered / queued, end of load', `${endOfLoad.delivered} / ${endOfLoad.queued}`);
    figure(
      { name: 'soak: test deliveries delivered, end of idle', value: delivered, unit: 'deliveries', samples: queuedAt.size },
      `${delivered} / ${queuedAt.size} queued  (${queuedAt.size - delivered} not yet)`,
    );
    FIGURES.push({ name: 'soak: test deliveries queued', value: queuedAt.size, unit: 'deliveries' });
    row('  queued -> delivered (incl. retries)', `p50 ${ms(percentile(times, 50))}  p99 ${ms(percentile(times, 99))}  max ${ms(Math.max(0, ...times))}`);
    FIGURES.push({ name: 'soak: test delivery, queued -> delivered, p99', value: percentile(times, 99), unit: 'ms', samples: times.length });
    row(
      '  receiver: requests / answered 500',
      `${received} / ${served500}  (attempts a test delivery: max ${Math.max(0, ...attemptCounts)}, duplicates after a 200: ${duplicates})`,
    );
    row('  receiver: other event types', otherEvents.size ? [...otherEvents].map(([k, v]) => `${k} ${v}`).join(', ') : 'none');
    row('  delivery log, newest 200, by state', [...logStates].map(([k, v]) => `${k} ${v}`).join(', ') || '(not read)');

    // Memory: after warm-up versus the end of the load and of the idle phase, plus the trend after warm-up.
    const warm = samples.find((s) => s.at >= warmUpMs) ?? samples[0]!;
    const loadEndSample = samples.filter((s) => s.phase === 'load').at(-1)!;
    const idleEndSample = samples.at(-1)!;
    const first = samples[0]!;
    const loadTrend = samples.filter((s) => s.phase === 'load' && s.at >= warm.at).map((s) => ({ x: s.at / 60_000, y: s.rss / MB }));
    const idleTrend = samples.filter((s) => s.at >= loadEndSample.at).map((s) => ({ x: s.at / 60_000, y: s.rss / MB }));
    const mem = (s: MemorySample) => `rss ${(s.rss / MB).toFixed(0)} MB  heap ${(s.heapUsed / MB).toFixed(0)} MB`;
    row('memory at the start of the load', mem(first));
    row(`memory after warm-up (${(warm.at / 1000).toFixed(0)} s)`, mem(warm));
    row(
      `memory at the end of the load (${(loadEndSample.at / 1000).toFixed(0)} s)`,
      `${mem(loadEndSample)}  (rss ${signed(pct(warm.rss, loadEndSample.rss))}, heap ${signed(pct(warm.heapUsed, loadEndSample.heapUsed))} since warm-up)`,
    );
    row(
      `memory at the end of the idle (${(idleEndSample.at / 1000).toFixed(0)} s)`,
      `${mem(idleEndSample)}  (rss ${signed(pct(loadEndSample.rss, idleEndSample.rss))}, heap ${signed(pct(loadEndSample.heapUsed, idleEndSample.heapUsed))} over the idle)`,
    );
    row(
      'rss peak, load / idle',
      `${(Math.max(...samples.filter((s) => s.phase === 'load').map((s) => s.rss)) / MB).toFixed(0)} MB / ${(Math.max(...samples.filter((s) => s.phase === 'idle').map((s) => s.rss), 0) / MB).toFixed(0)} MB`,
    );
    row(
      'rss trend (least squares), load after warm-up / idle',
      `${slope(loadTrend).toFixed(2)} MB/min / ${slope(idleTrend).toFixed(2)} MB/min  (${samples.length} samples every ${SAMPLE_EVERY_MS / 1000} s)`,
    );
    FIGURES.push(
      { name: 'soak: rss after warm-up', value: warm.rss / MB, unit: 'MB' },
      { name: 'soak: rss at the end of the load', value: loadEndSample.rss / MB, unit: 'MB' },
      { name: 'soak: rss at the end of the idle phase', value: idleEndSample.rss / MB, unit: 'MB' },
      { name: 'soak: rss growth over the load (after warm-up -> end)', value: pct(warm.rss, loadEndSample.rss), unit: '%' },
      { name: 'soak: rss growth over the idle phase', value: pct(loadEndSample.rss, idleEndSample.rss), unit: '%' },
      { name: 'soak: rss growth, after warm-up -> end of idle', value: pct(warm.rss, idleEndSample.rss), unit: '%' },
      { name: 'soak: rss trend over the load after warm-up', value: slope(loadTrend), unit: 'MB/min', samples: loadTrend.length },
      { name: 'soak: heapUsed after warm-up', value: warm.heapUsed / MB, unit: 'MB' },
      { name: 'soak: heapUsed at the end of the load', value: loadEndSample.heapUsed / MB, unit: 'MB' },
      { name: 'soak: heapUsed at the end of the idle phase', value: idleEndSample.heapUsed / MB, unit: 'MB' },
      { name: 'soak: heapUsed growth over the load (after warm-up -> end)', value: pct(warm.heapUsed, loadEndSample.heapUsed), unit: '%' },
    );
  } finally {
    clearInterval(sampler);
    clearInterval(progress);
    await cloud.stop();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
    restoreEnv();
  }
}
