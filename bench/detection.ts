/**
 * Seconds-class detection figures, against the local cloud's emulators so DynamoDB and SQS costs are real:
 *  1. Throughput: synthetic normalized batches through `detectInBatch`, composed exactly as
 *     functions/queues/ingest.ts composes it, with 1,000 active rules (10 enterprise accounts x 100).
 *     The SQS pollers are off, so nothing drains the delivery queue: the time is detection + queueing.
 *     Its floor, interleaved batch by batch: the same batches through the detectors and the matcher
 *     alone (rules in memory, no store reads or writes). The requests the queueing makes are
 *     counted (bench/request-meter.ts) and given per match.
 *  2. Latency: with the pollers on, one-liquidation batches put into S3 under landing/normalized/
 *     travel S3 notification -> ingest queue -> ingest poller -> ingest (Parquet + manifest) ->
 *     detection -> delivery queue -> delivery engine -> a loopback HTTPS receiver.
 * Needs NODE_EXTRA_CA_CERTS=functions/local/tls/ca.pem at process start (the `bench` script sets it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { startLocalCloud } from '../functions/local/cloud.ts';
import { localAccountId } from '../functions/local/accounts.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../functions/local/emulators.ts';
import { accountStore, clock, dynamoDocumentClient, queueSender, sqsClient, webhookStores } from '../functions/shared/deps.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { createRuleBook, matchCandidates, watchedBy, type DispatchCounts } from '../functions/core/detect/dispatch.ts';
import { batchCandidates, detectInBatch } from '../functions/core/detect/batch-run.ts';
import { BATCH_DETECTORS } from '../functions/core/events/registry.ts';
import { archiveReferences } from '../functions/core/detect/archive-references.ts';
import { createEndpoint } from '../functions/core/webhooks/endpoints.ts';
import type { Caller } from '../functions/core/accounts.ts';
import { createSubscription, watchAddress } from '../functions/core/webhooks/subscriptions.ts';
import { buildEnvelope, deliveryIdOf, eventIdOf } from '../functions/core/webhooks/envelope.ts';
import { deliveryJob, newDelivery } from '../functions/core/webhooks/deliveries.ts';
import type { NormalizedRecord } from '../schemas/datasets.ts';
import { startReceiver, type ReceivedRequest } from '../functions/local/receiver.ts';
import { figure, ms, percentile, row, timeRuns } from './stats.ts';
import { attachRequestMeter, meterScope } from './request-meter.ts';

const ACCOUNTS = 10;
const RULES_PER_ACCOUNT = 100; // 85 market.liquidation, 10 account.fill, 5 account.transfer
const WATCHED_PER_ACCOUNT = 5;
const ROWS_PER_BATCH = 5_000;
/** Batches run again, untimed, to count the requests queueing makes. */
const METERED_BATCHES = 2;
const SYMBOLS = ['BTC', 'ETH', 'SOL', 'HYPE', 'XRP', 'DOGE', ...Array.from({ length: 44 }, (_, i) => `ALT${i}`)];
const PRICE = SYMBOLS.map((_, i) => (i === 0 ? 90_000 : i === 1 ? 3_000 : 300 / i));
const LOOPBACK = { resolve: async () => ['127.0.0.1'], allowHosts: ['127.0.0.1'] };

// Seeded (mulberry32), so runs are comparable.
let seed = 42;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
};
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
/** Markets are not equally busy: market i is drawn with weight ~ 1/(i+1). */
const busySymbol = () => Math.min(SYMBOLS.length - 1, Math.floor(Math.exp(random() * Math.log(SYMBOLS.length + 1)) - 1));
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const recent = () => Date.now() - Math.floor(random() * 300_000); // inside every rule's default max_age_s (3600)
let nextId = 1;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const timed = async (work: () => Promise<unknown>) => (await timeRuns(1, work))[0]!;

/** Mostly trades by anyone; ~0.5% of trades by watched wallets (order sweeps of 1-3 fills); ~0.8% liquidation fills (cascades of 1-4); ~1% transfers. */
function syntheticBatch(watched: readonly string[]): NormalizedRecord[] {
  const rows: Record<string, unknown>[] = [];
  while (rows.length < ROWS_PER_BATCH) {
    const s = busySymbol();
    const [symbol, ts, price] = [SYMBOLS[s]!, recent(), (PRICE[s]! * (1 + (random() - 0.5) / 100)).toFixed(4)];
    const roll = random();
    if (roll < 0.003) {
      const [user, fills, notional] = [address(0x100000 + Math.floor(random() * 20_000)), 1 + Math.floor(random() * 4), 50 * 10 ** (random() * 4.6)];
      for (let f = 0; f < fills; f++) {
        rows.push({
          dataset: 'liquidations',
          family: 'perpx',
          symbol,
          ts,
          trade_id: nextId++,
          liquidated_user: user,
          price,
          size: (notional / fills / Number(price)).toFixed(6),
          side: pick(['A', 'B']),
          closed_pnl: '-10',
        });
      }
    } else if (roll < 0.013) {
      const usdc = (10 * 10 ** (random() * 4)).toFixed(2);
      const user = random() < 0.2 ? pick(watched) : address(0x100000 + Math.floor(random() * 20_000));
      rows.push({
        dataset: 'transfers',
        family: 'perpx',
        symbol: 'USDC',
        ts,
        user_address: user,
        kind: pick(['deposit', 'withdraw', 'send']),
        role: pick(['source', 'destination']),
        amount: usdc,
        usdc_value: usdc,
        tx_hash: `0x${(nextId++).toString(16)}`,
      });
    } else {
      const mine = random() < 0.005;
      const [user, side] = [mine ? pick(watched) : address(0x100000 + Math.floor(random() * 20_000)), pick(['A', 'B'])];
      for (let f = 0, fills = mine ? 1 + Math.floor(random() * 3) : 1; f < fills; f++) {
        rows.push({
          dataset: 'trades',
          family: 'perpx',
          symbol,
          ts,
          trade_id: nextId++,
          side,
          price,
          size: (10 ** (random() * 4) / Number(price)).toFixed(6),
          crossed: true,
          user_address: user,
        });
      }
    }
  }
  return rows as unknown as NormalizedRecord[];
}

/** One endpoint per rule: rules sharing a trigger on one endpoint would collapse into one delivery there. */
async function createRules(keys: readonly string[]): Promise<void> {
  const deps = { store: webhookStores(), clock, ...LOOPBACK };
  // Drawn before the accounts are set up concurrently, so the seeded mix is the same every run.
  const accounts = keys.map((key, a) => {
    const mine = Array.from({ length: WATCHED_PER_ACCOUNT }, (_, i) => address(0xabc000 + a * WATCHED_PER_ACCOUNT + i));
    // Customers pick a few markets over a notional bound; one in ten takes every market, but only big ones.
    const bodies = Array.from({ length: RULES_PER_ACCOUNT }, (_, i) =>
      i < 85
        ? {
            event_type: 'market.liquidation',
            filters:
              i % 10 === 0
                ? { min_notional_usd: pick([250_000, 1_000_000]) }
                : { symbols: [...new Set([pick(SYMBOLS), pick(SYMBOLS)])], min_notional_usd: pick([1_000, 10_000, 50_000, 100_000]) },
          }
        : i < 95
          ? { event_type: 'account.fill', filters: i % 2 ? { addresses: [pick(mine)] } : { min_notional_usd: pick([0, 1_000, 10_000]) } }
          : { event_type: 'account.transfer', filters: { min_notional_usd: pick([10, 1_000, 10_000]) } },
    );
    return { caller: { id: localAccountId(key), plan: 'enterprise' } as Caller, mine, bodies };
  });
  await Promise.all(
    accounts.map(async ({ caller, mine, bodies }, a) => {
      for (const wallet of mine) await watchAddress(deps, caller, { address: wallet });
      for (const [i, body] of bodies.entries()) {
        const endpoint = await createEndpoint(deps, caller, { url: `https://127.0.0.1:9/hook/${a}/${i}` }); // never called: pollers are off
        await createSubscription(deps, caller, { endpoint_id: endpoint.id, ...body });
      }
    }),
  );
}

async function throughput(batchCount: number): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-detection-'));
  const keys = Array.from({ length: ACCOUNTS }, (_, i) => `bench-detection-enterprise-${i}`);
  const cloud = await startLocalCloud({
    port: 0,
    dataDir,
    apiKeys: keys.map((key) => ({ key, plan: 'enterprise' as const })),
    schedules: false,
    pollers: false,
    logLevel: 'ERROR',
    sandbox: false,
  });
  try {
    const setupMs = await timed(() => createRules(keys));
    // Exactly the ingest job's composition (functions/queues/ingest.ts).
    const store = webhookStores();
    const deps = {
      store,
      queues: queueSender(),
      clock,
      rules: createRuleBook({ store, accounts: accountStore(), clock, ttlMs: 10_000 }),
      references: archiveReferences(archiveDeps()),
    };
    const purgeDeliveries = () => cloud.sqs.send(new PurgeQueueCommand({ QueueUrl: cloud.emulators.names.queueUrls.delivery })).catch(() => undefined);
    const batchTypes = BATCH_DETECTORS.map((d) => d.type);
    const loadMs = await timed(() => Promise.all(batchTypes.map((type) => deps.rules.rules(type))));
    const watched = await watchedBy(
      deps.rules,
      batchTypes.filter((t) => t.startsWith('account.')),
    );
    const batches = Array.from({ length: batchCount }, () => syntheticBatch([...watched].sort()));

    const floorMs: number[] = [],
      writesMs: number[] = [],
      batchMs: number[] = [],
      candidates: number[] = [],
      matched: number[] = [];
    const outcomes = new Map<string, number>();
    const [load, cpu] = [loadavg()[0]!, process.cpuUsage()];
    for (const records of batches) {
      // The floor: the detectors and the matcher alone, records in, matches out.
      floorMs.push(await timed(async () => matchCandidates(deps.rules, batchCandidates(records, watched))));
      // The writes any queueing must make: the same matches' delivery records (new ids) and jobs, in one call each.
      const requests = await matchCandidates(deps.rules, batchCandidates(records, watched));
      const now = clock.now();
      const fresh = requests.map(({ rule, occurrence }) =>
        newDelivery({
          accountId: rule.subscription.accountId,
          endpointId: rule.endpoint.id,
          subscriptionId: rule.subscription.id,
          now,
          payload: buildEnvelope(eventIdOf(`floor:${occurrence.key}`, rule.subscription.triggerId), occurrence, now),
        }),
      );
      writesMs.push(
        await timed(async () => {
          await store.deliveries.createMany(fresh);
          await deps.queues.sendBatch(
            'delivery',
            fresh.map((d) => ({ body: deliveryJob(d), delaySeconds: 0 })),
          );
        }),
      );
      let counts: DispatchCounts = { candidates: 0, matched: 0 };
      batchMs.push(
        await timed(async () => {
          counts = await detectInBatch(deps, records);
        }),
      );
      // Nothing consumes the delivery queue here: emptied between batches (untimed), as the delivery
      // engine keeps it in the service, or the local queue's journal rewrites every unconsumed job.
      await purgeDeliveries();
      candidates.push(counts.candidates);
      matched.push(counts.matched);
      for (const [k, v] of Object.entries(counts)) if (k !== 'candidates' && k !== 'matched') outcomes.set(k, (outcomes.get(k) ?? 0) + (v ?? 0));
    }
    const cpuMs = (({ user, system }) => (user + system) / 1000)(process.cpuUsage(cpu));
    // Requests counted on batches of their own, untimed: the meter reads every item a write changes.
    const meter = attachRequestMeter({ dynamo: dynamoDocumentClient(), sqs: sqsClient() });
    let metered = 0;
    for (let i = 0; i < METERED_BATCHES; i++)
      metered += (await meterScope.run('detection', () => detectInBatch(deps, syntheticBatch([...watched].sort())))).matched;
    meter.detach();
    const rows = batchCount * ROWS_PER_BATCH;
    const [rate, floorRate] = [rows / (sum(batchMs) / 1000), rows / (sum(floorMs) / 1000)];
    const spread = (xs: number[]) => `mean ${(sum(xs) / xs.length).toFixed(0)}, min ${Math.min(...xs)}, max ${Math.max(...xs)}`;
    console.log(
      `\nDetection throughput (local emulators, ${ACCOUNTS * RULES_PER_ACCOUNT} rules over ${ACCOUNTS} enterprise accounts, ${batchCount} batches x ${ROWS_PER_BATCH} rows)`,
    );
    row('setup: 1,000 endpoints + rules via the core', ms(setupMs));
    row('rule book cold load (all batch types)', `${ms(loadMs)}  (reloaded every 10 s, as in ingest; reloads are in the figures below)`);
    figure(
      { name: 'detection: rows per second with 1,000 rules', value: rate, unit: 'rows/s', floor: floorRate, ratio: rate / floorRate, samples: batchCount },
      `${rate.toFixed(0)}  (${rows} rows in ${ms(sum(batchMs))}; 1-minute load average ${load.toFixed(2)} at the start)`,
    );
    row('  floor: detectors + matcher alone, same batches', `${floorRate.toFixed(0)} rows/s  (detection / floor ${(rate / floorRate).toFixed(3)})`);
    row('detectInBatch per batch', `p50 ${ms(percentile(batchMs, 50))}  p99 ${ms(percentile(batchMs, 99))}  max ${ms(Math.max(...batchMs))}`);
    row('  floor per batch', `p50 ${ms(percentile(floorMs, 50))}  p99 ${ms(percentile(floorMs, 99))}`);
    const writesRate = rows / ((sum(floorMs) + sum(writesMs)) / 1000);
    // The second floor adds what any queueing must write: the same matches' records and jobs, in one call each.
    figure(
      {
        name: 'detection: rows per second, beside detectors + matcher + the same writes',
        value: rate,
        unit: 'rows/s',
        floor: writesRate,
        ratio: rate / writesRate,
        samples: batchCount,
      },
      `${writesRate.toFixed(0)} rows/s floor  (detection / floor ${(rate / writesRate).toFixed(2)}; the writes alone p50 ${ms(percentile(writesMs, 50))} a batch)`,
    );
    row('process CPU per batch (emulators included)', `${ms(cpuMs / batchCount)}  (both floors and detection together; ${ms(cpuMs)} in all)`);
    row('candidates per batch (types some rule takes)', spread(candidates));
    row('matches per batch', spread(matched));
    const requests = [...(meter.counts.get('detection') ?? new Map())].sort(([a], [b]) => a.localeCompare(b));
    const perMatch = (n: number) => (n / Math.max(1, metered)).toFixed(3);
    const total = (prefix: string) => sum(requests.filter(([op]) => op.startsWith(prefix)).map(([, t]) => t.requests));
    row(
      'requests per match',
      `DynamoDB ${perMatch(total('DynamoDB'))}, SQS ${perMatch(total('SQS'))}  (${metered} matches in ${METERED_BATCHES} more batches)`,
    );
    for (const [op, t] of requests)
      row(`  ${op}`, `${t.requests} requests${t.messages ? `, ${t.messages} messages` : ''}${t.writeUnits ? `, ${t.writeUnits} write units` : ''}`);
    row('outcomes', [...outcomes].map(([k, v]) => `${k} ${v}`).join(', ') || 'none');
    row('references', 'archive empty here: relative metrics null (manifest lookups only, no DuckDB scans)');
    await purgeDeliveries();
  } finally {
    await cloud.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function latency(samples: number): Promise<void> {
  const key = 'bench-detection-pro';
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-detection-latency-'));
  const receiver = await startReceiver();
  const cloud = await startLocalCloud({ port: 0, dataDir, apiKeys: [{ key, plan: 'pro' }], schedules: false, logLevel: 'ERROR', sandbox: false });
  const s3 = new S3Client({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: cloud.emulators.endpoints.s3, forcePathStyle: true });
  try {
    const caller: Caller = { id: localAccountId(key), plan: 'pro' };
    const store = webhookStores();
    const endpoint = await createEndpoint({ store, clock, ...LOOPBACK }, caller, { url: receiver.url('/latency') });
    const rule = await createSubscription({ store, clock }, caller, {
      endpoint_id: endpoint.id,
      event_type: 'market.liquidation',
      filters: { symbols: ['BTC'] },
    });
    // One liquidation per batch, each a new account and instant, so each is a new occurrence (and a new batch id).
    const put = async (i: number) => {
      const [ts, user] = [Date.now() - 1_000, address(0xdead0000 + i)];
      const record = {
        dataset: 'liquidations',
        family: 'perpx',
        symbol: 'BTC',
        ts,
        trade_id: 50_000_000 + i,
        liquidated_user: user,
        price: '90000',
        size: '0.1',
        side: 'A',
        closed_pnl: '-50',
      };
      const eventId = eventIdOf(`liq:perpx:BTC:${user}:${ts}`, rule.trigger_id);
      const putAt = Date.now();
      await s3.send(
        new PutObjectCommand({
          Bucket: cloud.emulators.names.buckets.archive,
          Key: `landing/normalized/${new Date(ts).toISOString().slice(0, 10)}/latency-${i}.jsonl`,
          Body: `${JSON.stringify(record)}\n`,
        }),
      );
      return { eventId, putAt };
    };
    const arrival = async (eventId: string, until = Date.now() + 30_000) => {
      let hit: ReceivedRequest | undefined;
      while (!(hit = receiver.requests.find((r) => r.headers['svc-event-id'] === eventId)) && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      return hit?.receivedAt;
    };
    // The first batch warms DuckDB, the manifest and the rule book: reported apart.
    const cold = await put(0);
    const coldArrival = await arrival(cold.eventId);
    const sent: { eventId: string; putAt: number }[] = [];
    for (let i = 1; i <= samples; i++) {
      sent.push(await put(i));
      await new Promise((r) => setTimeout(r, 300));
    }
    const queued: number[] = [],
      arrived: number[] = [];
    for (const { eventId, putAt } of sent) {
      const at = await arrival(eventId);
      const delivery = await store.deliveries.get(caller.id, deliveryIdOf(eventId, endpoint.id));
      if (delivery) queued.push(Date.parse(delivery.createdAt) - putAt);
      if (at !== undefined) arrived.push(at - putAt);
    }
    console.log(`\nIngest-to-queue latency, seconds class (local cloud, pollers on, ${samples} one-liquidation batches, one every 300 ms)`);
    row(
      'put -> delivery record created (ingest-to-queue)',
      `p50 ${ms(percentile(queued, 50))}  p99 ${ms(percentile(queued, 99))}  (${queued.length}/${samples})`,
    );
    row('put -> receiver arrival', `p50 ${ms(percentile(arrived, 50))}  p99 ${ms(percentile(arrived, 99))}  (${arrived.length}/${samples})`);
    row('first batch, cold (put -> arrival)', coldArrival === undefined ? 'not arrived in 30 s' : ms(coldArrival - cold.putAt));
    row('includes', 'S3 put, s3rver -> SQS notification, ingest poll (idle wait up to 100 ms), Parquet write + manifest, references, match, queue');
  } finally {
    s3.destroy();
    await cloud.stop();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchDetection(options: { batches?: number; samples?: number } = {}): Promise<void> {
  // Read by the cloud's config when it starts: lets the delivery engine call the loopback receiver.
  const allowedBefore = process.env.WEBHOOK_ALLOWED_TARGETS;
  process.env.WEBHOOK_ALLOWED_TARGETS = '127.0.0.1';
  try {
    await throughput(options.batches ?? 20);
    await latency(options.samples ?? 30);
  } finally {
    if (allowedBefore === undefined) delete process.env.WEBHOOK_ALLOWED_TARGETS;
    else process.env.WEBHOOK_ALLOWED_TARGETS = allowedBefore;
  }
}
