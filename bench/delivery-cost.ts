/**
 * What a million exhausted deliveries cost, counted from the requests the code makes rather than
 * from a table: N deliveries are driven to exhaustion (28 attempts) through the whole local cloud
 * against a receiver that always answers 500, with LOCAL_TIME_SCALE=3600 so the 24-hour ladder takes
 * about a minute, and every request the functions make is counted at the SDK clients
 * (bench/request-meter.ts), every invocation at the local Lambda runtime. The hourly waits are parked
 * timers as in AWS (the park decision is made on the rung's wait in service time), released by the
 * local timer sweep every second (60 s / the scale); what the sweep does for each timer (its sends
 * and deletes) is counted per delivery, and what each run does whatever it holds (cursor, bucket
 * queries) as a flat monthly cost at one run a minute, as EventBridge starts it in AWS.
 *
 * SQS receives and deletes are those of the Lambda event source in AWS, not of the local poll loops:
 * one ReceiveMessage per batch it hands the function and one DeleteMessageBatch for the batch's
 * successes; its empty long polls are a flat cost of the queue, not of a delivery. Batches are as
 * full here as this run made them (all N deliveries climb the ladder together).
 *
 * The endpoints' failure streaks are reset every scaled hour through an uncounted client, as the
 * successes of a busy endpoint's other traffic would (decision 13): an endpoint failing everything
 * is auto-disabled after six hours and its deliveries never exhaust.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalCloud } from '../functions/local/cloud.ts';
import { localAccountId } from '../functions/local/accounts.ts';
import { invoke, observeInvocations, type InvocationRecord } from '../functions/local/invoke.ts';
import { clock, dynamoDocumentClient, queueSender, sqsClient, webhookStores } from '../functions/shared/deps.ts';
import { config } from '../functions/shared/config.ts';
import { TABLES, type FunctionName } from '../functions/resources.ts';
import { queueOccurrence } from '../functions/core/webhooks/deliveries.ts';
import { deliveryIdOf, eventIdOf } from '../functions/core/webhooks/envelope.ts';
import type { EndpointRecord, SubscriptionRecord } from '../functions/ports/webhooks.ts';
import { startReceiver } from '../functions/local/receiver.ts';
import { attachRequestMeter, meterScope, type Tally } from './request-meter.ts';
import { figure, row, setEnv } from './stats.ts';

/** Public list prices (us-east-1), dollars. */
export const PRICES = {
  sqsRequest: 0.4 / 1e6,
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  lambdaRequest: 0.2 / 1e6,
  lambdaGbSecond: 0.0000133334,
  stepFunctionsTransition: 25 / 1e6,
} as const;

const TIME_SCALE = 3600;
const KEY = 'bench-cost-key';
const DELIVERY_LANES: readonly FunctionName[] = ['deliver', 'deliver-slow'];
const QUEUE_TIME = 'queue time';
/** What the bench itself reads (to see the deliveries end): not counted. */
const OBSERVER = 'bench';
/** What a timer sweep does per timer; the rest of a run is the same whatever it holds. */
const PER_TIMER = /^(SQS SendMessage|DynamoDB (DeleteItem|BatchWriteItem))/;
const RUNS_A_MONTH = 43_800;

interface Bill {
  sqsRequests: number;
  readUnits: number;
  writeUnits: number;
  lambdaRequests: number;
  gbSeconds: number;
}
const emptyBill = (): Bill => ({ sqsRequests: 0, readUnits: 0, writeUnits: 0, lambdaRequests: 0, gbSeconds: 0 });
const dollars = (b: Bill) => ({
  sqs: b.sqsRequests * PRICES.sqsRequest,
  dynamodb: b.writeUnits * PRICES.dynamoWriteUnit + b.readUnits * PRICES.dynamoReadUnit,
  lambda: b.lambdaRequests * PRICES.lambdaRequest + b.gbSeconds * PRICES.lambdaGbSecond,
});
function add(bill: Bill, operation: string, t: Tally): void {
  if (operation.startsWith('SQS ')) bill.sqsRequests += t.requests;
  bill.readUnits += t.readUnits;
  bill.writeUnits += t.writeUnits;
}

export async function benchDeliveryCost(options: { deliveries?: number; endpoints?: number } = {}): Promise<void> {
  const endpointCount = options.endpoints ?? 10;
  const perEndpoint = Math.max(1, Math.ceil((options.deliveries ?? 100) / endpointCount));
  const total = perEndpoint * endpointCount;
  const restoreEnv = setEnv({ WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', LOCAL_TIME_SCALE: String(TIME_SCALE) });
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-delivery-cost-'));
  const receiver = await startReceiver(() => 500);
  const cloud = await startLocalCloud({ port: 0, dataDir, apiKeys: [{ key: KEY, plan: 'enterprise' }], schedules: false, logLevel: 'ERROR', sandbox: false });
  const stops: (() => void)[] = [];
  try {
    const call = async (path: string, body: unknown) => {
      const res = await fetch(cloud.url + path, {
        method: 'POST',
        headers: { 'X-API-Key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data: { id: string } };
      if (res.status !== 201 && res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    };
    const account = localAccountId(KEY);
    const rules: { subscription: SubscriptionRecord; endpoint: EndpointRecord }[] = [];
    for (let i = 0; i < endpointCount; i++) {
      const endpoint = await call('/v1/webhooks/endpoints', { url: receiver.url(`/cost/${i}`) });
      const rule = await call('/v1/webhooks/subscriptions', { endpoint_id: endpoint.id, event_type: 'market.liquidation' });
      rules.push({
        subscription: (await webhookStores().rules.get(account, rule.id))!,
        endpoint: (await webhookStores().endpoints.get(account, endpoint.id))!,
      });
    }

    const meter = attachRequestMeter({ dynamo: dynamoDocumentClient(), sqs: sqsClient() });
    stops.push(() => meter.detach());
    const invocations: InvocationRecord[] = [];
    stops.push(observeInvocations((record) => invocations.push(record)));

    // A busy endpoint's other traffic, standing in for its successes: the streak restarts every scaled hour.
    const webhooksTable = config()[TABLES.webhooks.envVar] as string;
    const resetStreaks = setInterval(() => {
      for (const { endpoint } of rules) {
        void cloud.dynamo
          .send(
            new UpdateCommand({
              TableName: webhooksTable,
              Key: { pk: `ACCT#${account}`, sk: `EP#${endpoint.id}` },
              UpdateExpression: 'SET consecutive_failures = :zero REMOVE first_failure_at',
              ExpressionAttributeValues: { ':zero': 0 },
            }),
          )
          .catch(() => undefined);
      }
    }, 3_600_000 / TIME_SCALE);
    stops.push(() => clearInterval(resetStreaks));
    const deps = { store: webhookStores(), queues: queueSender(), clock };
    const ids: string[] = [];
    const startedAt = Date.now();
    await meterScope.run(QUEUE_TIME, async () => {
      for (let round = 0; round < perEndpoint; round++) {
        const occurrence = {
          key: randomUUID(),
          type: 'market.liquidation',
          occurredAt: Date.now(),
          data: { venue: 'perpx', symbol: 'BTC', notional_usd: 1e5, api_url: '/v1/perpx/liquidations/BTC' },
        };
        await Promise.all(
          rules.map(async (rule) => {
            if ((await queueOccurrence(deps, { plan: 'enterprise', ...rule }, occurrence)) !== 'queued') throw new Error('a delivery was not queued');
            ids.push(deliveryIdOf(eventIdOf(occurrence.key, rule.subscription.triggerId), rule.endpoint.id));
          }),
        );
      }
    });

    // Until every delivery is exhausted, or no attempt was made for 30 s (a scaled 8 hours): a
    // stuck ladder then shows what it reached, and the cost is scaled from the attempts made.
    let states: Map<string, number> = new Map();
    let lastProgress = { at: Date.now(), attempts: 0 };
    while (Date.now() - lastProgress.at < 30_000) {
      // A read the loaded emulator drops is only tried again next second.
      const records = await meterScope.run(OBSERVER, () => Promise.all(ids.map((id) => webhookStores().deliveries.get(account, id)))).catch(() => undefined);
      if (records) {
        states = new Map();
        for (const r of records) states.set(`${r?.state} ${r?.attempts}`, (states.get(`${r?.state} ${r?.attempts}`) ?? 0) + 1);
        if (records.every((r) => r?.state === 'exhausted' && r.attempts === 28)) break;
      }
      if (receiver.requests.length > lastProgress.attempts) lastProgress = { at: Date.now(), attempts: receiver.requests.length };
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const wallMs = Date.now() - startedAt;
    const sweeps = invocations.filter((i) => i.name === 'timer-sweep').length;
    // One run of the overdue sweep, for its flat cost per run.
    await invoke('delivery-sweep', {});

    const attempts = receiver.requests.length;
    // Every cost below is per exhausted delivery: scaled by 28 attempts over the attempts made (1 when all exhausted).
    const scale = (total * 28) / attempts;
    console.log(
      `\nCost of exhausted deliveries (counted: ${total} deliveries to ${endpointCount} endpoints answering 500, LOCAL_TIME_SCALE=${TIME_SCALE}, the hourly waits parked)`,
    );
    row('deliveries: state attempts -> count', [...states].map(([k, v]) => `${k}: ${v}`).join(', '));
    row('attempts received / expected', `${attempts} / ${total * 28}  (wall ${(wallMs / 1000).toFixed(0)} s, ${sweeps} timer sweeps)`);

    // Per delivery: the delivery lanes, queue time, and the sweep's per-timer work.
    const perDelivery = emptyBill();
    const flatPerSweep = emptyBill();
    const flatPerOverdueSweep = emptyBill();
    const lines: string[] = [];
    for (const [label, operations] of meter.counts) {
      for (const [operation, t] of operations) {
        if (label === OBSERVER) continue;
        if (DELIVERY_LANES.includes(label as FunctionName) || label === QUEUE_TIME || (label === 'timer-sweep' && PER_TIMER.test(operation)))
          add(perDelivery, operation, t);
        else if (label === 'timer-sweep') add(flatPerSweep, operation, t);
        else if (label === 'delivery-sweep') add(flatPerOverdueSweep, operation, t);
        else if (label !== 'other') continue;
        // Made outside any function or scope the bench knows: shown, never billed to a delivery.
        lines.push(
          `${label}: ${operation}  ${((t.requests * scale) / total).toFixed(2)} req${t.messages ? `, ${((t.messages * scale) / total).toFixed(2)} msg` : ''}${t.readUnits ? `, ${((t.readUnits * scale) / total).toFixed(2)} RU` : ''}${t.writeUnits ? `, ${((t.writeUnits * scale) / total).toFixed(2)} WU` : ''}`,
        );
      }
    }
    // The event source mapping's side of each batch the delivery lanes were handed.
    const batches = invocations.filter((i) => DELIVERY_LANES.includes(i.name));
    const batched = batches.reduce((sum, i) => sum + i.records, 0);
    perDelivery.sqsRequests += batches.length * 2;
    perDelivery.lambdaRequests += batches.length;
    perDelivery.gbSeconds += batches.reduce((sum, i) => sum + (i.ms / 1000) * (i.memoryMb / 1024), 0);
    const sweepInvocations = invocations.filter((i) => i.name === 'timer-sweep');
    for (const line of lines) row(`  ${line.split('  ')[0]!}`, line.split('  ')[1]!);
    row(
      '  event source: ReceiveMessage + DeleteMessageBatch',
      `${((batches.length * 2 * scale) / total).toFixed(2)} req  (${batches.length} batches of ${(batched / batches.length).toFixed(1)} messages on average)`,
    );

    const per = (value: number) => ((value * scale) / total) * 1e6;
    const durationCost = per(perDelivery.gbSeconds * PRICES.lambdaGbSecond);
    const cost = dollars({ ...perDelivery, gbSeconds: 0 });
    const perMillion = { sqs: per(cost.sqs), dynamodb: per(cost.dynamodb), lambda: per(cost.lambda) };
    const perMillionTotal = perMillion.sqs + perMillion.dynamodb + perMillion.lambda;
    row('per delivery: SQS requests', `${((perDelivery.sqsRequests * scale) / total).toFixed(1)}  -> $${perMillion.sqs.toFixed(2)} per million deliveries`);
    row(
      'per delivery: DynamoDB read / write units',
      `${((perDelivery.readUnits * scale) / total).toFixed(1)} / ${((perDelivery.writeUnits * scale) / total).toFixed(1)}  -> $${perMillion.dynamodb.toFixed(2)}`,
    );
    row('per delivery: Lambda invocations', `${((perDelivery.lambdaRequests * scale) / total).toFixed(2)}  -> $${perMillion.lambda.toFixed(2)}`);
    figure(
      { name: 'cost per million exhausted deliveries (counted requests x list prices)', value: perMillionTotal, unit: '$', samples: total },
      `$${perMillionTotal.toFixed(2)}  (SQS $${perMillion.sqs.toFixed(2)}, DynamoDB $${perMillion.dynamodb.toFixed(2)}, Lambda requests $${perMillion.lambda.toFixed(2)}; goal <= $30)`,
    );
    // Apart: a batch's wall time here is this shared machine's load as much as the code's (uptime beside it).
    figure(
      {
        name: 'Lambda duration per million exhausted deliveries (wall time on this machine x memory)',
        value: durationCost,
        unit: '$',
        samples: batches.length,
      },
      `$${durationCost.toFixed(2)}  (${((perDelivery.gbSeconds * scale) / total).toFixed(3)} GB-s a delivery; load average ${loadavg()[0]!.toFixed(1)})`,
    );
    // Flat: one timer-sweep execution and one overdue sweep a minute, whatever the traffic.
    const sweepRun = dollars(flatPerSweep);
    const sweepLambda = sweepInvocations.reduce((sum, i) => sum + PRICES.lambdaRequest + (i.ms / 1000) * (i.memoryMb / 1024) * PRICES.lambdaGbSecond, 0);
    const perSweep = (sweepRun.sqs + sweepRun.dynamodb + sweepLambda) / Math.max(1, sweeps);
    const overdue = dollars(flatPerOverdueSweep);
    row(
      'flat, timer sweep (per run, x 43,800 runs a month)',
      `$${(perSweep * RUNS_A_MONTH).toFixed(2)} a month (${(flatPerSweep.readUnits / Math.max(1, sweeps)).toFixed(1)} RU, ${(flatPerSweep.writeUnits / Math.max(1, sweeps)).toFixed(2)} WU a run), plus its state transitions`,
    );
    row(
      'flat, overdue sweep (one run counted, x 43,800)',
      `$${((overdue.dynamodb + overdue.sqs + PRICES.lambdaRequest) * RUNS_A_MONTH).toFixed(2)} a month (${flatPerOverdueSweep.readUnits.toFixed(1)} RU a run)`,
    );
  } finally {
    for (const stop of stops) stop();
    await cloud.stop();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
    restoreEnv();
  }
}
