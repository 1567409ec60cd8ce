/**
 * `npm run bench -- --only venue-detection [--minutes N] [--scale S]` (issue 43): the venue-rate
 * generator's order statuses, book diffs and fills (mainnet's BTC figures; `--scale` up to
 * exchange-wide), parsed by ingest's own parser, through the ingest job's detection
 * (`detectInBatch`, composed as functions/queues/ingest.ts composes it: the rule book on DynamoDB,
 * deliveries queued on SQS) with 1,000 rules of mixed account and market types and filters over 10
 * enterprise accounts watching 10,000 addresses, 50 of them trading in the market. Each format's
 * batch is detected on its own, as ingest hands it over; parsing is ingest's cost and not counted.
 * The emulators run in a process of their own, as the services are to a function (a rule book
 * reload's reads cost the emulators, not the worker); nothing consumes the delivery queue, so it
 * is emptied between batches, untimed.
 */
import { loadavg } from 'node:os';
import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { startScratchEmulators } from '#local/scratch-emulators.ts';
import { localAccountId, seedLocalAccounts } from '#local/accounts.ts';
import { VenueRateGenerator } from '#local/venue/generator.ts';
import { venueBatches, type VenueBatch, type VenueFormat } from '#local/venue/batches.ts';
import { Rng } from '#local/demo/random.ts';
import { accountStore, clock, queueSender, webhookStores } from '#shared/deps.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { parseBatch } from '#core/archive/parse.ts';
import { createRuleBook, type DispatchCounts } from '#core/detect/dispatch.ts';
import { detectInBatch } from '#core/detect/batch-run.ts';
import { BATCH_DETECTORS } from '#core/events/registry.ts';
import { archiveReferences } from '#core/detect/archive-references.ts';
import { createEndpoint } from '#core/webhooks/endpoints.ts';
import { createSubscription, watchAddress } from '#core/webhooks/subscriptions.ts';
import { eachBounded } from '#core/bounded.ts';
import type { Caller } from '#core/accounts.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';
import { figure, ms, percentile, row } from '../stats.ts';

const ACCOUNTS = 10;
const RULES_PER_ACCOUNT = 100;
const WATCHED_PER_ACCOUNT = 1_000;
/** Watched addresses that trade in the generated market (drawn from its first fills). */
const ACTIVE_WATCHED = 50;
/** Setup writes in flight (watched addresses, endpoints, rules). */
const SETUP_CONCURRENCY = 16;
const LOOPBACK = { resolve: async () => ['127.0.0.1'], allowHosts: ['127.0.0.1'] };
const FORMATS: readonly VenueFormat[] = ['node_order_statuses_streaming', 'node_raw_book_diffs_streaming', 'node_fills_streaming'];

/** Per account: 40 fill rules (half naming one watched address), 20 engine-cancel, 10 liquidated, 25 market liquidation, 5 transfer rules. */
function ruleBodies(rng: Rng, mine: readonly string[], symbols: readonly string[]): Record<string, unknown>[] {
  return Array.from({ length: RULES_PER_ACCOUNT }, (_, i) => {
    if (i < 40) return { event_type: 'account.fill', filters: i % 2 ? { addresses: [rng.pick(mine)] } : { min_notional_usd: rng.pick([0, 1_000, 10_000]) } };
    if (i < 60) return { event_type: 'account.order_rejected', filters: i % 2 ? { symbols: [rng.pick(symbols)] } : {} };
    if (i < 70) return { event_type: 'account.liquidated', filters: { min_notional_usd: rng.pick([0, 10_000]) } };
    if (i < 95)
      return {
        event_type: 'market.liquidation',
        filters: i % 5 ? { symbols: [rng.pick(symbols)], min_notional_usd: rng.pick([1_000, 100_000]) } : { min_notional_usd: 1_000_000 },
      };
    return { event_type: 'account.transfer', filters: { min_notional_usd: rng.pick([10, 10_000]) } };
  });
}

async function createRules(keys: readonly string[], active: readonly string[], symbols: readonly string[]): Promise<void> {
  const deps = { store: webhookStores(), clock, ...LOOPBACK };
  const rng = new Rng(4343);
  // Drawn before any write, so the seeded mix is the same whatever order the writes finish in.
  const accounts = keys.map((key, a) => {
    const mine = Array.from({ length: WATCHED_PER_ACCOUNT }, () => `0x${rng.hex(40)}`);
    // The active addresses dealt out over the accounts, each watched by one.
    for (let i = a; i < active.length; i += keys.length) mine[i] = active[i]!;
    return { caller: { id: localAccountId(key), plan: 'enterprise' } as Caller, mine, bodies: ruleBodies(rng, mine, symbols) };
  });
  const watches = accounts.flatMap(({ caller, mine }) => mine.map((address) => ({ caller, address })));
  // The first of each account's through the core (plan checks, allowance); the rest as the same
  // stored rows, which is all detection reads: each allowance mark rewrites the account's usage item,
  // so 1,000 an account through the core took minutes of setup.
  await eachBounded(accounts, SETUP_CONCURRENCY, async ({ caller, mine }) => {
    await watchAddress(deps, caller, { address: mine[0]! });
  });
  const createdAt = new Date(clock.now()).toISOString();
  await eachBounded(
    watches.filter((_, i) => i % WATCHED_PER_ACCOUNT !== 0),
    SETUP_CONCURRENCY,
    async ({ caller, address }) => {
      await deps.store.rules.addAddress(caller.id, { address, label: '', createdAt });
    },
  );
  const rules = accounts.flatMap(({ caller, bodies }, a) => bodies.map((body, i) => ({ caller, body, url: `https://127.0.0.1:9/hook/${a}/${i}` })));
  await eachBounded(rules, SETUP_CONCURRENCY, async ({ caller, body, url }) => {
    // One endpoint per rule: rules sharing a trigger on one endpoint would collapse into one delivery there.
    const endpoint = await createEndpoint(deps, caller, { url }); // never called: pollers are off
    await createSubscription(deps, caller, { endpoint_id: endpoint.id, ...body });
  });
}

function parsed(format: VenueFormat, text: string): NormalizedRecord[] {
  const result = parseBatch(format, text);
  if (!result.ok) throw new Error(`${format} batch refused by the parser: ${result.reason}`);
  return result.records;
}

export async function benchVenueDetection(options: { minutes: number; scale: number; seed?: number }): Promise<void> {
  const keys = Array.from({ length: ACCOUNTS }, (_, i) => `bench-venue-detection-${i}`);
  const env = await startScratchEmulators({ ownProcess: true });
  try {
    await seedLocalAccounts(
      env.dynamo,
      env.emulators.names.tables.accounts,
      keys.map((key) => ({ key, plan: 'enterprise' as const })),
    );
    // Events of the last hour: inside every rule's default max_age_s (3600), so matches are queued.
    const start = Date.now() - (options.minutes + 1) * 60_000;
    const end = start + options.minutes * 60_000;
    const generator = new VenueRateGenerator({ seed: options.seed ?? 43, scale: options.scale, startMs: start });
    const batches = venueBatches(generator, end);
    const first = batches.next();
    if (first.done) throw new Error('the generator wrote no batch');
    const active = [
      ...new Set(
        parsed('node_fills_streaming', first.value.texts.node_fills_streaming.text).flatMap((r) =>
          'user_address' in r && typeof r.user_address === 'string' ? [r.user_address] : [],
        ),
      ),
    ].slice(0, ACTIVE_WATCHED);
    const setupStart = performance.now();
    await createRules(
      keys,
      active,
      generator.markets.map((m) => m.symbol),
    );
    const setupMs = performance.now() - setupStart;

    // Exactly the ingest job's composition (functions/queues/ingest.ts).
    const store = webhookStores();
    const deps = {
      store,
      queues: queueSender(),
      clock,
      rules: createRuleBook({ store, accounts: accountStore(), clock, ttlMs: 10_000 }),
      references: archiveReferences(archiveDeps()),
    };
    const loadStart = performance.now();
    await Promise.all(BATCH_DETECTORS.map(({ type }) => deps.rules.rules(type)));
    const loadMs = performance.now() - loadStart;
    const purgeDeliveries = () => env.sqs.send(new PurgeQueueCommand({ QueueUrl: env.emulators.names.queueUrls.delivery })).catch(() => undefined);

    const [load, cpuAtStart] = [loadavg()[0]!, process.cpuUsage()];
    let cpuUs = 0;
    const batchMs: number[] = [];
    const totals = new Map<string, number>();
    let rows = 0;
    for (let next: IteratorResult<VenueBatch> = first; !next.done; next = batches.next()) {
      for (const format of FORMATS) {
        const { text, lines } = next.value.texts[format];
        if (lines === 0) continue;
        const records = parsed(format, text);
        const cpu = process.cpuUsage();
        const t = performance.now();
        const counts: DispatchCounts = await detectInBatch(deps, records);
        batchMs.push(performance.now() - t);
        const used = process.cpuUsage(cpu);
        cpuUs += used.user + used.system;
        rows += records.length;
        for (const [k, v] of Object.entries(counts)) totals.set(k, (totals.get(k) ?? 0) + (v ?? 0));
      }
      await purgeDeliveries();
    }
    const wallS = batchMs.reduce((a, b) => a + b, 0) / 1000;
    const simulatedS = (end - start) / 1000;
    const btcRowsPerS = rows / simulatedS / options.scale;
    const perWorker = rows / wallS;
    const perCpu = rows / (cpuUs / 1e6);
    const processCpuS = (({ user, system }) => (user + system) / 1e6)(process.cpuUsage(cpuAtStart));
    console.log(
      `\nDetection at the venue's rate (${options.minutes} min of ${generator.markets.length} market(s), scale ${options.scale}: ${rows.toLocaleString()} rows in ${batchMs.length} batches; 1-minute load average ${load.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end)`,
    );
    row('setup: 10,000 watched addresses, 1,000 endpoints + rules via the core', ms(setupMs));
    row('rule book cold load (all batch types)', `${ms(loadMs)}  (reloaded every 10 s, as in ingest; reloads are in the figures below)`);
    figure(
      {
        name: 'detection, 1,000 rules and 10,000 watched addresses: rows/s per worker (statuses, diffs, fills)',
        value: Math.round(perWorker),
        unit: 'rows/s',
        samples: batchMs.length,
      },
      `${Math.round(perWorker).toLocaleString()} rows/s (load average ${load.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)})`,
    );
    figure(
      {
        name: 'detection, 1,000 rules and 10,000 watched addresses: one worker over real time at the BTC rate (goal >= 1.0x)',
        value: perWorker / btcRowsPerS,
        unit: 'x',
      },
      `${(perWorker / btcRowsPerS).toFixed(1)}x (BTC writes ${Math.round(btcRowsPerS).toLocaleString()} rows/s)`,
    );
    figure({
      name: 'detection, 1,000 rules and 10,000 watched addresses: one worker over real time at the BTC rate, by CPU time',
      value: perCpu / btcRowsPerS,
      unit: 'x',
    });
    row('detectInBatch per batch', `p50 ${ms(percentile(batchMs, 50))}  p99 ${ms(percentile(batchMs, 99))}  max ${ms(Math.max(...batchMs))}`);
    row(
      'candidates, matches',
      `${totals.get('candidates') ?? 0} candidates, ${totals.get('matched') ?? 0} matches (${
        [...totals]
          .filter(([k]) => k !== 'candidates' && k !== 'matched')
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none queued'
      })`,
    );
    row("process CPU over the run (parsing included; the emulators' is their process's)", `${processCpuS.toFixed(1)} s`);
    await purgeDeliveries();
  } finally {
    await env.stop();
  }
}
