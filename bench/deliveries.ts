/**
 * Webhook delivery figures through the whole local stack: 100 endpoints (one enterprise account, so
 * no allowance or daily cap gets in the way), each with a `market.liquidation` rule, all pointing at
 * one in-process HTTPS receiver on 100 paths. Each round is one occurrence matched by all 100 rules,
 * handed to `queueOccurrences` in one call as detection hands a batch's matches; the delivery queue is drained by the
 * local SQS poll loops running functions/queues/deliver.ts. Measured: deliveries per second (first
 * queued -> last received) and the latency from the occurrence to its arrival at the receiver.
 * Floor: before each round, the same 100 signed POSTs sent straight to the same receiver paths by
 * the service's own sender (same agent settings), timed the same way (round start -> arrival), so
 * both see the same machine; the ratio is what the pipeline between them adds.
 * Needs NODE_EXTRA_CA_CERTS=functions/local/tls/ca.pem at process start (the `bench` script sets it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startLocalCloud } from '../functions/local/cloud.ts';
import { localAccountId } from '../functions/local/accounts.ts';
import { clock, queueSender, webhookStores } from '../functions/shared/deps.ts';
import { queueOccurrence, queueOccurrences } from '../functions/core/webhooks/deliveries.ts';
import { eventIdOf } from '../functions/core/webhooks/envelope.ts';
import { SIGNATURE_HEADER, signatureHeader, verifySignature } from '../functions/core/webhooks/signature.ts';
import { createHttpsSender } from '../functions/adapters/https-sender.ts';
import type { EndpointRecord, SubscriptionRecord } from '../functions/ports/webhooks.ts';
import { startReceiver, type ReceivedRequest } from '../functions/local/receiver.ts';
import { FIGURES, figure, ms, percentile, row } from './stats.ts';

const ENDPOINTS = 100;
const KEY = 'bench-enterprise-key';
/** Receiver paths of the floor's direct POSTs, apart from the endpoints' `/hook/<i>`. */
const FLOOR_PATH = '/floor/';

export async function benchDeliveries(options: { deliveries?: number } = {}): Promise<void> {
  const rounds = Math.max(1, Math.ceil((options.deliveries ?? 2_000) / ENDPOINTS));
  const total = rounds * ENDPOINTS;
  // Read by the cloud's config when it starts: lets endpoints point at a loopback receiver.
  const allowedBefore = process.env.WEBHOOK_ALLOWED_TARGETS;
  process.env.WEBHOOK_ALLOWED_TARGETS = '127.0.0.1';
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-deliveries-'));
  const receiver = await startReceiver();
  const cloud = await startLocalCloud({ port: 0, dataDir, apiKeys: [{ key: KEY, plan: 'enterprise' }], schedules: false, logLevel: 'ERROR' });
  try {
    const call = async (path: string, body: unknown) => {
      const res = await fetch(cloud.url + path, {
        method: 'POST',
        headers: { 'X-API-Key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data: { id: string; secret?: string } };
      if (res.status !== 201 && res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    };
    // Setup goes through the API, as a customer would; the secrets are only ever shown here.
    const account = localAccountId(KEY);
    const secrets = new Map<string, string>(); // receiver path -> endpoint secret
    const rules: { subscription: SubscriptionRecord; endpoint: EndpointRecord }[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const path = `/hook/${i}`;
      const endpoint = await call('/v1/webhooks/endpoints', { url: receiver.url(path) });
      secrets.set(path, endpoint.secret!);
      const rule = await call('/v1/webhooks/subscriptions', { endpoint_id: endpoint.id, event_type: 'market.liquidation' });
      // What a detector holds when it matches: the stored rule and endpoint records.
      rules.push({
        subscription: (await webhookStores().rules.get(account, rule.id))!,
        endpoint: (await webhookStores().endpoints.get(account, endpoint.id))!,
      });
    }

    // Arrival bookkeeping: the same event id goes to every endpoint, so (path, event id) names a delivery.
    const occurredAt = new Map<string, number>(); // event id -> occurrence time
    const arrivals = new Map<string, number>();
    let duplicates = 0;
    let seen = 0;
    const floorArrivals = new Map<string, number>(); // floor request id -> arrival
    const absorb = () => {
      for (; seen < receiver.requests.length; seen++) {
        const r: ReceivedRequest = receiver.requests[seen]!;
        if (r.path.startsWith(FLOOR_PATH)) {
          floorArrivals.set(String(r.headers['svc-event-id']), r.receivedAt);
          continue;
        }
        const id = `${r.path} ${String(r.headers['svc-event-id'])}`;
        if (arrivals.has(id)) duplicates++;
        else arrivals.set(id, r.receivedAt);
      }
    };

    const deps = { store: webhookStores(), queues: queueSender(), clock };
    const callMs: number[] = [];
    const outcomes = new Map<string, number>();
    // The floor's sender: the service's own, a fresh agent as a delivery function's container has.
    const direct = createHttpsSender({ resolve: async () => ['127.0.0.1'], allowHosts: ['127.0.0.1'] });
    const floorLatencies: number[] = [];
    let floorSendMs = 0;
    const cpuBefore = process.cpuUsage();
    const firstQueued = Date.now();
    for (let round = 0; round < rounds; round++) {
      // Floor round: the same POSTs, signed, straight to the receiver, all received before the pipeline's round starts.
      const floorStart = Date.now();
      const floorIds = rules.map((_, i) => `floor-${round}-${i}`);
      await Promise.all(
        rules.map(async ({ endpoint }, i) => {
          const body = JSON.stringify({ id: floorIds[i], type: 'market.liquidation', data: { venue: 'perpx', symbol: 'BTC' } });
          const sent = await direct({
            url: receiver.url(`${FLOOR_PATH}${i}`),
            body,
            headers: { [SIGNATURE_HEADER]: signatureHeader([endpoint.secret], Math.floor(Date.now() / 1000), body), 'svc-event-id': floorIds[i]! },
          });
          if (!sent.ok) throw new Error(`floor POST failed: ${sent.error}`);
        }),
      );
      absorb();
      for (const id of floorIds) floorLatencies.push(floorArrivals.get(id)! - floorStart);
      floorSendMs += Date.now() - floorStart;
      const occurrence = {
        key: randomUUID(),
        type: 'market.liquidation',
        occurredAt: Date.now(),
        data: { venue: 'perpx', symbol: 'BTC', notional_usd: 1e5, api_url: '/v1/perpx/liquidations/BTC' },
      };
      // The event id is derived; every rule here has the same trigger, so one id per occurrence.
      occurredAt.set(eventIdOf(occurrence.key, rules[0]!.subscription.triggerId), occurrence.occurredAt);
      const start = performance.now();
      const queued = await queueOccurrences(
        deps,
        rules.map((rule) => ({ rule: { plan: 'enterprise' as const, ...rule }, occurrence })),
      );
      callMs.push(performance.now() - start);
      for (const outcome of queued) outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    const producerMs = Date.now() - firstQueued;

    // Wait for every delivery, bounded: a stuck pipeline prints what is missing instead of hanging.
    const deadline = Date.now() + 60_000 + total * 20;
    for (absorb(); arrivals.size < total && Date.now() < deadline; absorb()) await new Promise((r) => setTimeout(r, 50));
    const lastReceived = Math.max(...arrivals.values());
    const cpu = process.cpuUsage(cpuBefore);
    const latencies = [...arrivals].map(([id, at]) => at - occurredAt.get(id.split(' ')[1]!)!);

    // Signatures: every 20th request, checked as a receiver would, with the secret shown at creation.
    const sample = receiver.requests.filter((r) => !r.path.startsWith(FLOOR_PATH)).filter((_, i) => i % 20 === 0);
    const verified = sample.filter((r) => verifySignature(r.headers['svc-signature'] as string | undefined, r.body, [secrets.get(r.path)!]).ok).length;

    console.log(`\nWebhook deliveries (local cloud, ${ENDPOINTS} endpoints on one HTTPS receiver, ${rounds} occurrences x ${ENDPOINTS} rules)`);
    row('deliveries received / queued', `${arrivals.size} / ${total}  (outcomes: ${[...outcomes].map(([k, v]) => `${k} ${v}`).join(', ')})`);
    if (arrivals.size < total) {
      const missing = [...occurredAt.keys()].flatMap((id) => [...secrets.keys()].map((path) => `${path} ${id}`)).filter((id) => !arrivals.has(id));
      row('MISSING after timeout (path event-id)', `${missing.length}: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''}`);
    }
    row('wall time, first queued -> last received', `${ms(lastReceived - firstQueued)}  (the floor's rounds in between)`);
    figure({ name: 'deliveries per second (burst)', value: arrivals.size / ((lastReceived - firstQueued) / 1000), unit: '/s' });
    const [p50, p99, f50, f99] = [percentile(latencies, 50), percentile(latencies, 99), percentile(floorLatencies, 50), percentile(floorLatencies, 99)];
    figure(
      { name: 'delivery burst: occurrence -> receiver, p50', value: p50, unit: 'ms', floor: f50, ratio: p50 / f50, samples: latencies.length },
      `p50 ${ms(p50)}  p90 ${ms(percentile(latencies, 90))}  p99 ${ms(p99)}  max ${ms(Math.max(...latencies))}`,
    );
    FIGURES.push({ name: 'delivery burst: occurrence -> receiver, p99', value: p99, unit: 'ms', floor: f99, ratio: p99 / f99, samples: latencies.length });
    row('  floor: the same POSTs sent straight, interleaved', `p50 ${ms(f50)}  p99 ${ms(f99)}  (${floorLatencies.length} POSTs, ${ms(floorSendMs)} in all)`);
    row('  burst / floor', `p50 ${(p50 / f50).toFixed(1)}x  p99 ${(p99 / f99).toFixed(1)}x`);
    row(
      'CPU of the process per delivery (pipeline and floor)',
      `${ms((cpu.user + cpu.system) / 1000 / total)}  (${((cpu.user + cpu.system) / 1e6).toFixed(1)} s over ${((lastReceived - firstQueued) / 1000).toFixed(1)} s of wall time)`,
    );
    row(
      'producer: matches queued per second',
      `${(total / (producerMs / 1000)).toFixed(0)}  (a round's queueOccurrences call p50 ${ms(percentile(callMs, 50))}, p99 ${ms(percentile(callMs, 99))})`,
    );
    row('duplicates received', String(duplicates));

    // Latency when the stack is not saturated: one occurrence for one rule every 100 ms, as a
    // watched wallet's fills arrive. The figures above measure a burst that keeps the core busy.
    const pacedLatencies: number[] = [];
    for (let i = 0; i < 50; i++) {
      const rule = rules[i % ENDPOINTS]!;
      const occurrence = {
        key: randomUUID(),
        type: 'market.liquidation',
        occurredAt: Date.now(),
        data: { venue: 'perpx', symbol: 'ETH', api_url: '/v1/perpx/liquidations/ETH' },
      };
      const eventId = eventIdOf(occurrence.key, rule.subscription.triggerId);
      await queueOccurrence(deps, { plan: 'enterprise', ...rule }, occurrence);
      const until = Date.now() + 10_000;
      let arrived: ReceivedRequest | undefined;
      while (!(arrived = receiver.requests.find((r) => r.headers['svc-event-id'] === eventId)) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 5));
      if (arrived) pacedLatencies.push(arrived.receivedAt - occurrence.occurredAt);
      await new Promise((r) => setTimeout(r, 100));
    }
    row(
      'occurrence -> receiver, one every 100 ms',
      `p50 ${ms(percentile(pacedLatencies, 50))}  p99 ${ms(percentile(pacedLatencies, 99))}  (${pacedLatencies.length}/50 arrived)`,
    );
    row('signatures verified (sample of every 20th)', `${verified} / ${sample.length}`);
    row('rss after run (whole stack, one process)', `${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`);
  } finally {
    await cloud.stop();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (allowedBefore === undefined) delete process.env.WEBHOOK_ALLOWED_TARGETS;
    else process.env.WEBHOOK_ALLOWED_TARGETS = allowedBefore;
  }
}
