/**
 * Canceling a replay job (DELETE /v1/webhooks/subscriptions/replays/{id}) against dynalite,
 * local-aws-sqs, s3rver and DuckDB: the job turns canceled once (409 after), its execution is
 * stopped, the rows of the days recorded before are billed, and a day running when the cancel
 * comes delivers nothing more and is not counted. The state machine's StopExecution is the
 * `Workflows` port (no Step Functions emulator here: the e2e contract test runs it on the local
 * cloud); this records what it was asked.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { queueSender, replayStore, webhookStores, breadthStore } from '#shared/deps.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { archiveReferences } from '#core/detect/archive-references.ts';
import { ingestBatch } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { createEndpoint } from '#core/webhooks/endpoints.ts';
import { createSubscription } from '#core/webhooks/subscriptions.ts';
import { cancelReplay, newReplayId, replayPartitions, runReplayPartition, type ReplayPartitionDeps } from '#core/detect/replays.ts';
import { AppError } from '#core/errors.ts';
import type { Caller } from '#core/accounts.ts';
import type { Workflows } from '#ports/exports.ts';
import type { ReplayExecutionInput } from '#schemas/messages.ts';
import type { ReplayJobRecord } from '#ports/replays.ts';
import type { LiquidationRecord } from '#schemas/datasets.ts';

let env: ScratchEmulators;
const NOW = Date.parse('2026-10-02T12:00:00Z');
const DAY1 = Date.parse('2026-10-01T00:00:00Z');
const clock = { now: () => NOW };

beforeAll(async () => {
  env = await startScratchEmulators();
});
afterAll(async () => {
  await env?.stop();
});

/** The Workflows port as the test sees it: what was started and stopped. */
function recordingWorkflows(): Workflows<ReplayExecutionInput> & { stopped: string[] } {
  const stopped: string[] = [];
  return {
    stopped,
    start: async () => undefined,
    stop: async (name) => {
      stopped.push(name);
    },
  };
}

async function runningJob(caller: Caller, fields: Partial<ReplayJobRecord> = {}): Promise<ReplayJobRecord> {
  const partitions = replayPartitions(DAY1, DAY1 + 86_400_000);
  const job: ReplayJobRecord = {
    accountId: caller.id,
    jobId: newReplayId(NOW),
    state: 'queued',
    eventType: 'market.liquidation',
    config: { conditions: [], params: {} },
    deliver: false,
    from: DAY1,
    to: DAY1 + 86_400_000,
    createdAt: NOW,
    partitionsTotal: partitions.length,
    partitionsDone: 0,
    rowsScanned: 0,
    matched: 0,
    delivered: 0,
    ...fields,
  };
  await replayStore().createJob(job);
  await replayStore().transition(caller.id, job.jobId, ['queued'], 'running', { startedAt: NOW });
  return { ...job, state: 'running' };
}

const conflictOf = (work: Promise<unknown>) =>
  work.then(
    () => undefined,
    (error: unknown) => (error instanceof AppError ? error.code : String(error)),
  );

describe('canceling a replay job', () => {
  it('cancels a running job once (409 after), stops its execution and bills the days recorded before', async () => {
    // Prepare: a running job one of whose days is recorded.
    const caller: Caller = { id: `acct_${randomUUID().slice(0, 8)}`, plan: 'build' };
    const job = await runningJob(caller);
    expect(
      await replayStore().recordPartition(caller.id, job.jobId, 0, { rowsScanned: 1_234, delivered: 0, occurrences: [{ occurredAt: DAY1, data: { a: 1 } }] }),
    ).toBe('recorded');
    const workflows = recordingWorkflows();
    const charged: number[] = [];
    const deps = {
      replays: replayStore(),
      workflows,
      clock,
      charge: async (rows: number) => {
        charged.push(rows);
      },
    };

    // Act
    const canceled = await cancelReplay(deps, caller, job.jobId);

    // Assess
    expect(canceled).toMatchObject({
      id: job.jobId,
      state: 'canceled',
      finished_at: new Date(NOW).toISOString(),
      progress: { rows_scanned: 1_234, matched: 1 },
    });
    expect(workflows.stopped).toEqual([job.jobId]);
    expect(charged).toEqual([1_234]);
    expect(await conflictOf(cancelReplay(deps, caller, job.jobId))).toBe('conflict');
    expect(await conflictOf(cancelReplay(deps, { ...caller, id: 'acct_someone_else' }, job.jobId))).toBe('not_found');
    expect(charged).toEqual([1_234]);
    // A day recorded after the cancel is not counted, and the job stays canceled.
    expect(await replayStore().recordPartition(caller.id, job.jobId, 1, { rowsScanned: 99, delivered: 0, occurrences: [] })).toBe('not_running');
    expect(await replayStore().getJob(caller.id, job.jobId)).toMatchObject({ state: 'canceled', rowsScanned: 1_234, partitionsDone: 1 });
  });

  it('stops a day that is delivering when the cancel comes: nothing more is queued, and the day is not counted', async () => {
    // Prepare: five liquidations of 10,000 USD on day one, a Build account with an endpoint and a rule, a delivering job.
    const records = Array.from(
      { length: 5 },
      (_, i) =>
        ({
          dataset: 'liquidations',
          family: 'perpx',
          symbol: 'RCX',
          ts: DAY1 + (i + 1) * 3_600_000,
          trade_id: 900_000 + i,
          liquidated_user: `0x${String(i + 1).padStart(40, 'c')}`,
          price: '100',
          size: '100',
          side: 'A',
        }) as LiquidationRecord,
    );
    const archive = { ...archiveDeps(), clock };
    await ingestBatch(archive, 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
    await compactArchive(archive, { datasets: ['liquidations'], families: ['perpx'] });
    const caller: Caller = { id: `acct_${randomUUID().slice(0, 8)}`, plan: 'build' };
    const endpoint = await createEndpoint({ store: webhookStores(), clock, resolve: async () => ['127.0.0.1'], allowHosts: ['127.0.0.1'] }, caller, {
      url: 'https://127.0.0.1:9/hook',
    });
    const rule = await createSubscription({ store: webhookStores(), clock }, caller, {
      endpoint_id: endpoint.id,
      event_type: 'market.liquidation',
      filters: { symbols: ['RCX'] },
    });
    const stored = (await webhookStores().rules.get(caller.id, rule.id))!;
    const job = await runningJob(caller, { subscriptionId: rule.id, deliver: true, config: stored.filters });
    // The owner cancels while the first occurrence is being queued.
    const workflows = recordingWorkflows();
    const real = queueSender();
    let sent = 0;
    const queues: typeof real = {
      ...real,
      async send(queue, message) {
        sent += 1;
        await real.send(queue, message);
        if (sent === 1) await cancelReplay({ replays: replayStore(), workflows, clock, charge: async () => undefined }, caller, job.jobId);
      },
    };
    const deps: ReplayPartitionDeps = {
      archive,
      clock,
      breadth: breadthStore(),
      references: archiveReferences(archive),
      replays: replayStore(),
      store: webhookStores(),
      delivery: { store: webhookStores(), queues, clock },
      planOf: async () => 'build',
    };

    // Act
    const outcome = await runReplayPartition(deps, job, { i: 0, from: DAY1, to: DAY1 + 86_400_000 });

    // Assess: one queued before the cancel, none after; the day found the job canceled when it recorded.
    expect(outcome).toMatchObject({ status: 'not_running', matched: 5, delivered: 1 });
    expect(sent).toBe(1);
    expect(await replayStore().getJob(caller.id, job.jobId)).toMatchObject({ state: 'canceled', partitionsDone: 0, delivered: 0 });
    // A day started after the cancel reads nothing.
    expect(await runReplayPartition(deps, job, { i: 0, from: DAY1, to: DAY1 + 86_400_000 })).toEqual({ status: 'skipped', state: 'canceled' });
  });
});
