/**
 * The local cloud: the emulators, the gateway, the SQS event sources, the schedules and the state
 * machines in one process, wired to the same handlers and the same AWS SDK adapters that deploy.
 * Used by `npm start` (bin/local.ts) and by the integration and e2e tests.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { FUNCTIONS, QUEUES, type FunctionName } from '../resources.ts';
import { config } from '../shared/config.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmulators, type Emulators } from './emulators.ts';
import { exportEnvironment } from './environment.ts';
import { startGateway, type Gateway } from './gateway.ts';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { startEventSource, type Poller } from './poller.ts';
import { invocationsSettled, invoke, invokeElsewhere } from './invoke.ts';
import { startScheduler, type Scheduler } from './scheduler.ts';
import { localStateMachines, type LocalStateMachines } from './state-machines.ts';
import { startStepFunctionsServer } from './step-functions-server.ts';
import { localAccountId, seedLocalAccounts, type LocalKey } from './accounts.ts';
import { monthOf } from '../core/billing/credits.ts';
import { clearCreditUse } from '../adapters/dynamodb-usage.ts';
import { serviceTemplateCachedIn, type ServiceTemplate } from './template.ts';
import { startDemoFeedProcess, type DemoFeed, type DemoFeedOptions, type DemoProcessOptions } from './demo-feed.ts';
import { startSandbox, type Sandbox } from './sandbox.ts';
import { startFaultProxies, type FaultProxies } from './fault-proxy.ts';
import type { FaultPlan } from '#schemas/fault-plan.ts';

export interface LocalCloudOptions {
  port: number;
  dataDir: string;
  apiKeys: readonly LocalKey[];
  /** Run the EventBridge schedules (off in tests that drive jobs themselves). */
  schedules?: boolean;
  /** Run the SQS event sources. */
  pollers?: boolean;
  logLevel?: string;
  /** The service stacks' synthesized template, when the caller has it already (tests share one); else the data directory's, made again when the sources change. */
  template?: ServiceTemplate;
  /** Seed and run the demo market (off in tests unless they ask), in a process of its own. */
  demo?: Omit<DemoProcessOptions, 'dataDir'> & Pick<DemoFeedOptions, 'onProgress'>;
  /**
   * Run the background functions (sandbox.ts) in a process of their own at a lower priority, as
   * separate sandboxes in AWS (default true); off, every function runs in this process (benches
   * that count each function's requests in this process turn it off).
   */
  sandbox?: boolean;
  /**
   * How far below this process the sandbox and the demo feed run (default 0, the same priority).
   * `npm start` sets BACKGROUND_NICENESS, so a user's calls come first while it seeds; a test
   * run's clouds keep 0, where a seed starved by other files at the normal priority held up every
   * file waiting for the run's demo archive.
   */
  niceness?: number;
  /**
   * Puts the fault proxy (fault-proxy.ts) between the functions (and the SQS event sources) and the
   * emulators, starting with this plan; `faults.setPlan` changes it later. Setup and the tests' own
   * clients keep the emulators' endpoints.
   */
  faults?: FaultPlan;
}

export interface LocalCloud {
  url: string;
  emulators: Emulators;
  gateway: Gateway;
  stateMachines: LocalStateMachines;
  demo?: DemoFeed;
  /** The fault proxy, when the cloud was started with a plan. */
  faults?: FaultProxies;
  sqs: SQSClient;
  dynamo: DynamoDBDocumentClient;
  stop(): Promise<void>;
}

/** Points this process (a CLI) at a running local cloud's emulators, as a deployed function would be. */
export function attachToRunningCloud(dataDir: string): void {
  const statePath = join(dataDir, 'local-cloud.json');
  if (!existsSync(statePath)) throw new Error(`No running local cloud found (${statePath}). Start it with npm start first.`);
  const state = JSON.parse(readFileSync(statePath, 'utf8')) as Pick<Emulators, 'endpoints' | 'names'>;
  exportEnvironment(state, dataDir, 'WARN');
}

export async function startLocalCloud(options: LocalCloudOptions): Promise<LocalCloud> {
  // Set before the first SDK client exists; the runtime in Lambda is Node 22 and never warns.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  mkdirSync(options.dataDir, { recursive: true });
  const template = options.template ?? (await serviceTemplateCachedIn(join(options.dataDir, 'synth')));
  const stateMachines = localStateMachines(template);
  const emulators = await startEmulators({ dataDir: options.dataDir });
  const gateway = await startGateway(options.port);
  const stepFunctions = await startStepFunctionsServer(stateMachines, (arn, error) => console.error(`[step functions] ${arn} failed:`, error));
  const faults = options.faults && (await startFaultProxies(emulators.endpoints, options.faults));
  // The functions reach the emulators through the proxy, when there is one.
  exportEnvironment(faults ? { ...emulators, endpoints: faults.endpoints } : emulators, options.dataDir, options.logLevel ?? 'WARN', stepFunctions.endpoint);
  let sandbox: Sandbox | undefined;
  let stopInvokingElsewhere = () => {};
  if (options.sandbox !== false) {
    sandbox = startSandbox(options.dataDir, options.niceness ?? 0);
    stopInvokingElsewhere = invokeElsewhere(sandbox);
  }

  const clientOptions = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const sqs = new SQSClient({ ...clientOptions, endpoint: emulators.endpoints.sqs, useQueueUrlAsEndpoint: false });
  // Lambda's event sources receive as the functions do: through the proxy, duplicates and all.
  const eventSourceSqs = faults ? new SQSClient({ ...clientOptions, endpoint: faults.endpoints.sqs, useQueueUrlAsEndpoint: false }) : sqs;
  const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({ ...clientOptions, endpoint: emulators.endpoints.dynamodb }));
  await seedLocalAccounts(dynamo, emulators.names.tables.accounts, options.apiKeys);
  // Local credits start afresh with each run, so a small allowance shows credit levels being reached every time.
  for (const { key } of options.apiKeys) {
    await clearCreditUse(dynamo, emulators.names.tables.usage, localAccountId(key), monthOf(Date.now()));
  }

  const pollers: Poller[] = [];
  if (options.pollers !== false) {
    for (const [name, def] of Object.entries(FUNCTIONS) as [FunctionName, (typeof FUNCTIONS)[FunctionName]][]) {
      if (!def.consumes) continue;
      const consumer = (event: SQSEvent) => invoke(name, event) as Promise<SQSBatchResponse | undefined>;
      // Lambda runs up to the event source's maximum concurrency of batches at once, so a batch held
      // by a slow receiver holds one of them: as many poll loops (asleep while the queue is empty).
      const queueUrl = emulators.names.queueUrls[def.consumes];
      pollers.push(
        startEventSource(eventSourceSqs, def.consumes, queueUrl, consumer, QUEUES[def.consumes].maxConcurrency, { arrivals: emulators.arrivals(queueUrl) }),
      );
    }
  }
  let scheduler: Scheduler | undefined;
  // The positions job applies fills in time order and never goes back (a fill older than what it has
  // built is quarantined), so while a seed writes days older than the live data it waits for them.
  let seeding = options.demo !== undefined;
  const timeScale = config().LOCAL_TIME_SCALE ?? 1;
  // The scaled ladder parks its hourly rungs as in AWS, so a cloud with a time scale sweeps timers
  // even with its other schedules off.
  if (options.schedules !== false || timeScale > 1) {
    scheduler = startScheduler(
      stateMachines,
      (name, error) => console.error(`[schedule] ${name} failed:`, error),
      timeScale,
      options.schedules === false,
      (name) => seeding && name === 'positions',
    );
  }

  let demo: DemoFeed | undefined;
  if (options.demo) {
    const feed = await startDemoFeedProcess({ ...options.demo, dataDir: options.dataDir, niceness: options.niceness ?? 0 });
    // With schedules on, the seeded span gets the breadth history the minute job would have written
    // over it (the job itself only ever writes the minute that just closed): part of the seed, so
    // breadth answers from the first minute the seed is done. It reaches to the minute the seed
    // ends: the minutes the job wrote while the seed was not yet ingested are written again.
    const seeded = !scheduler
      ? feed.seeded
      : feed.seeded.then(async (span) => {
          const to = Math.max(span.to, Math.floor(Date.now() / 60_000) * 60_000) - 60_000;
          if (to - span.from >= 60_000) {
            await invoke('breadth', { backfill: { from: span.from, to } }).catch((error: unknown) =>
              console.error('[demo] breadth history of the seeded span failed:', error),
            );
          }
          return span;
        });
    void seeded
      .finally(() => {
        seeding = false;
      })
      .catch(() => undefined);
    demo = { ...feed, seeded };
  }

  // Lets CLI tools (npm run keys) find the running emulators.
  const statePath = join(options.dataDir, 'local-cloud.json');
  writeFileSync(statePath, JSON.stringify({ url: gateway.url, endpoints: emulators.endpoints, names: emulators.names, pid: process.pid }, null, 2));

  return {
    url: gateway.url,
    emulators,
    gateway,
    stateMachines,
    demo,
    faults,
    sqs,
    dynamo,
    async stop() {
      await demo?.stop();
      await demo?.seeded.catch(() => undefined);
      scheduler?.stop();
      await Promise.all(pollers.map((p) => p.stop()));
      await gateway.stop();
      await stepFunctions.stop();
      await invocationsSettled();
      stopInvokingElsewhere();
      await sandbox?.stop();
      sqs.destroy();
      if (eventSourceSqs !== sqs) eventSourceSqs.destroy();
      dynamo.destroy();
      await faults?.stop();
      await emulators.stop();
      rmSync(statePath, { force: true });
    },
  };
}
