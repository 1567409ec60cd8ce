/**
 * `npm run chaos -- --minutes N [--rate 0.05] [--seed 1]`: the cloud-faults suite's flows for N
 * minutes on a local cloud of its own (a temporary data directory), rounds of each plan in turn
 * (flaky stores, compaction killed at its write points, every SQS message twice); then, with the
 * faults off, checks the archive row by row against every batch landed, deliveries against those
 * accepted and S3 against the manifest; then an export killed at each of its write points (checked
 * against the archive), one canceled while deletions fail (collected once due) and breadth under
 * the flaky stores (the same snapshots; reads 200 or 503). Prints what it injected and what it
 * checked; exits 1 if a check fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { S3Client } from '@aws-sdk/client-s3';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../functions/local/emulators.ts';
import { invoke } from '../functions/local/invoke.ts';
import { startReceiver } from '../functions/local/receiver.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { exportObjects, exportStore } from '../functions/shared/deps.ts';
import { everyMessageTwice, exportCancelUndeleted, exportKilledAtWritePoints, flakyStores, killedAtWritePoints } from '../functions/local/fault-plans.ts';
import {
  SYMBOLS,
  call,
  callPatiently,
  checkArchive,
  checkExport,
  checkExportObjects,
  checkObjects,
  landBatch,
  newTally,
  readTrades,
  tradeBatches,
  type CallTally,
  type FlowTarget,
} from '../functions/local/fault-flows.ts';
import { NO_FAULTS } from '../schemas/fault-plan.ts';
import type { NormalizedRecord } from '../schemas/datasets.ts';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '5' }, rate: { type: 'string', default: '0.05' }, seed: { type: 'string', default: '1' } },
});
const minutes = Number(values.minutes);
const rate = Number(values.rate);
const seed = Number(values.seed);
if (!(minutes > 0 && minutes <= 24 * 60)) throw new Error('--minutes must be more than 0 and at most 1440');
if (!(rate >= 0 && rate <= 0.5)) throw new Error('--rate must be from 0 to 0.5');
if (!Number.isInteger(seed)) throw new Error('--seed must be an integer');

process.env.WEBHOOK_ALLOWED_TARGETS = '127.0.0.1';
process.env.LOCAL_DEADLINE_SCALE ??= '5';
const { startLocalCloud } = await import('../functions/local/cloud.ts');
const DAY = 86_400_000;
const MIN = 60_000;
const FIRST_DAY = Date.UTC(2026, 10, 20);
const DAYS = ['2026-11-20', '2026-11-21'];
const KEY = 'chaos-build-key';

const dataDir = mkdtempSync(join(tmpdir(), 'archive-chaos-'));
const receiver = await startReceiver();
const cloud = await startLocalCloud({ port: 0, dataDir, apiKeys: [{ key: KEY, plan: 'build' }], schedules: false, logLevel: 'ERROR', faults: NO_FAULTS });
const s3 = new S3Client({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: cloud.emulators.endpoints.s3, forcePathStyle: true });
const target: FlowTarget = { url: cloud.url, key: KEY, s3, bucket: cloud.emulators.names.buckets.archive };
const injected: Record<string, number> = {};
const reads = newTally();
const landed: NormalizedRecord[] = [];
const accepted = new Set<string>();
const compactions = { ok: 0, failed: 0 };
const RECENT = { from: Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000, to: Math.floor(Date.now() / 3_600_000) * 3_600_000 };
const recent: NormalizedRecord[] = [];

const compact = () =>
  invoke('compact', {}).then(
    () => {
      compactions.ok += 1;
      return true;
    },
    () => {
      compactions.failed += 1;
      return false;
    },
  );
const addReport = () => {
  for (const [label, n] of Object.entries(cloud.faults!.report().injected)) injected[label] = (injected[label] ?? 0) + n;
};

try {
  const endpoint = await call(target, newTally(), 'POST', '/v1/webhooks/endpoints', { url: receiver.url('/chaos') });
  if (endpoint.status !== 201) throw new Error(`could not create the receiver's endpoint: ${endpoint.status}`);
  const until = Date.now() + minutes * 60_000;
  for (let round = 0; Date.now() < until; round += 1) {
    const kind = round % 3;
    const roundSeed = seed * 1000 + round;
    cloud.faults!.setPlan(kind === 0 ? flakyStores(roundSeed, rate) : kind === 1 ? killedAtWritePoints(roundSeed) : everyMessageTwice(roundSeed, 5_000));
    const batches = tradeBatches(roundSeed, 3, FIRST_DAY, 2);
    for (const [i, batch] of batches.entries()) {
      landed.push(...batch);
      await landBatch(target, DAYS[0]!, `chaos-${round}-${i}`, batch);
      if (kind !== 1) await landBatch(target, DAYS[0]!, `chaos-${round}-${i}-again`, batch);
    }
    for (let i = 0; i < 3; i += 1) {
      const queued = await callPatiently(target, newTally(), 'POST', `/v1/webhooks/endpoints/${endpoint.body.data.id}/test`);
      if (queued.status === 202) accepted.add(queued.body.data.event_id);
    }
    // An hour that closed lately too: its deltas merge into a delta compaction, then an hour file.
    const recentBatch = tradeBatches(roundSeed, 1, RECENT.from, 1 / 24)[0]!;
    recent.push(...recentBatch);
    await landBatch(target, new Date(RECENT.from).toISOString().slice(0, 10), `chaos-${round}-recent`, recentBatch);
    // Reads while compaction runs: each symbol's whole window, every page (a 503 is asked again, as a client would).
    await Promise.all([...SYMBOLS.map((symbol) => readTrades(target, reads, symbol, FIRST_DAY, FIRST_DAY + 2 * DAY).catch(() => undefined)), compact()]);
    // A killed run is completed by the next one (as the minute schedule would run it).
    for (let run = 0; run < 6 && !(await compact()); run += 1);
    addReport();
    cloud.faults!.setPlan(NO_FAULTS);
    process.stdout.write(`round ${round + 1} (${['flaky stores', 'killed at write points', 'every message twice'][kind]}) done\n`);
  }

  // Faults off: the queues drain, compaction finishes what was killed, then the checks.
  const settleBy = Date.now() + 5 * 60_000;
  const settled = async (records: readonly NormalizedRecord[], from: number, to: number) => {
    const expected = new Set(records.map((r) => `${r.symbol}#${(r as { trade_id: number }).trade_id}`)).size;
    while ((await checkArchive(target, newTally(), records, from, to)).read < expected && Date.now() < settleBy) await new Promise((r) => setTimeout(r, 2_000));
  };
  await settled(landed, FIRST_DAY, FIRST_DAY + 2 * DAY);
  await settled(recent, RECENT.from, RECENT.to);
  await compact();
  const days = await checkArchive(target, newTally(), landed, FIRST_DAY, FIRST_DAY + 2 * DAY);
  const hour = await checkArchive(target, newTally(), recent, RECENT.from, RECENT.to);
  const archive = {
    expected: days.expected + hour.expected,
    read: days.read + hour.read,
    lost: [...days.lost, ...hour.lost],
    twice: [...days.twice, ...hour.twice],
    differing: [...days.differing, ...hour.differing],
  };
  const deliverBy = Date.now() + 3 * 60_000;
  const missing = () => [...accepted].filter((id) => !receiver.requests.some((r) => r.headers['svc-event-id'] === id));
  while (missing().length > 0 && Date.now() < deliverBy) await new Promise((r) => setTimeout(r, 2_000));
  const received = new Set(receiver.requests.map((r) => String(r.headers['svc-event-id'])));
  const objects = await checkObjects(target, archiveDeps(), [
    ...DAYS,
    ...new Set([RECENT.from, Date.now()].map((t) => new Date(t).toISOString().slice(0, 10))),
  ]);

  // Exports: one killed once at each write point, one canceled while every deletion fails.
  const exportDeps = { exports: exportStore(), exportObjects: exportObjects(), clock: { now: () => Date.now() } };
  const exportsBucket = cloud.emulators.names.buckets.exports;
  const exportBody = { schema: 'trades', family: 'perpx', symbols: [...SYMBOLS], start: FIRST_DAY, end: FIRST_DAY + 2 * DAY };
  const waitFor = async <T>(read: () => Promise<T>, done: (value: T) => boolean, ms: number): Promise<T> => {
    const by = Date.now() + ms;
    for (;;) {
      const value = await read();
      if (done(value) || Date.now() > by) return value;
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  const jobOf = (id: string) => callPatiently(target, newTally(), 'GET', `/v1/exports/${id}`);
  cloud.faults!.setPlan(exportKilledAtWritePoints(seed * 1000 + 900));
  const killed = await callPatiently(target, newTally(), 'POST', '/v1/exports', exportBody);
  if (killed.status === 202) {
    await waitFor(
      () => jobOf(killed.body.data.id),
      (r) => ['completed', 'failed', 'canceled'].includes(r.body.data?.state),
      5 * 60_000,
    );
    // Finish's retry announces after the completion it was killed behind.
    await waitFor(
      async () => cloud.faults!.report().injected['sqs SendMessage server-error'] ?? 0,
      (n) => n > 0,
      30_000,
    );
  }
  addReport();
  cloud.faults!.setPlan(NO_FAULTS);
  const exported =
    killed.status === 202
      ? await checkExport(target, exportsBucket, exportDeps, killed.body.data.id)
      : { state: `refused ${killed.status}`, files: 0, rowsDiffering: [], objectsDiffering: [] };
  cloud.faults!.setPlan(exportCancelUndeleted(seed * 1000 + 901, SYMBOLS.length - 1));
  const toCancel = await callPatiently(target, newTally(), 'POST', '/v1/exports', exportBody);
  let cancelStatus = toCancel.status;
  if (toCancel.status === 202) {
    await waitFor(
      () => jobOf(toCancel.body.data.id),
      (r) => r.body.data?.progress.partitions_done >= SYMBOLS.length - 1,
      60_000,
    );
    cancelStatus = (await call(target, newTally(), 'DELETE', `/v1/exports/${toCancel.body.data.id}`)).status;
    await new Promise((r) => setTimeout(r, 8_000));
  }
  addReport();
  cloud.faults!.setPlan(NO_FAULTS);
  const exportObjectsDue = await checkExportObjects(target, exportsBucket, exportDeps, 24);

  // Breadth over the recent hour: the snapshots written without faults, then again with the stores
  // failing (each run run again when it fails, as the schedule does) while its routes are read.
  await landBatch(
    target,
    new Date(RECENT.from).toISOString().slice(0, 10),
    'chaos-instruments',
    SYMBOLS.map(
      (symbol) =>
        ({
          dataset: 'instruments',
          family: 'perpx',
          symbol,
          ts: RECENT.from - DAY,
          market_type: 'perp',
          sz_decimals: 5,
          max_leverage: 40,
        }) as NormalizedRecord,
    ),
  );
  await waitFor(
    () => callPatiently(target, newTally(), 'GET', '/v1/perpx/instruments'),
    (r) => SYMBOLS.every((s) => r.body.data?.some((i: { symbol: string }) => i.symbol === s)),
    60_000,
  );
  await compact();
  const backfill = { backfill: { from: RECENT.from + MIN, to: RECENT.to - MIN } };
  const minute = { time: new Date(RECENT.to).toISOString() };
  const breadthHistory = async (tally: CallTally) => {
    const res = await callPatiently(target, tally, 'GET', `/v1/perpx/breadth/above-vwap?start=${RECENT.from + MIN}&end=${RECENT.to}&limit=1000`);
    return JSON.stringify(res.body.data);
  };
  await invoke('breadth', backfill);
  const cleanMinute = JSON.stringify(await invoke('breadth', minute));
  const cleanHistory = await breadthHistory(newTally());
  const asScheduled = async (event: unknown) => {
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      try {
        return await invoke('breadth', event);
      } catch {
        /* run again, as the schedule's retry would */
      }
    }
    return undefined;
  };
  cloud.faults!.setPlan(flakyStores(seed * 1000 + 902, rate));
  const breadthReads = newTally();
  const reading = (async () => {
    for (let i = 0; i < 10; i += 1) {
      await Promise.all([call(target, breadthReads, 'GET', '/v1/perpx/breadth/above-vwap/current'), breadthHistory(breadthReads)]);
    }
  })();
  await asScheduled(backfill);
  const faultedMinute = JSON.stringify(await asScheduled(minute));
  await reading;
  addReport();
  cloud.faults!.setPlan(NO_FAULTS);
  const breadth = {
    minuteSame: faultedMinute === cleanMinute,
    historySame: (await breadthHistory(newTally())) === cleanHistory,
    snapshots: (JSON.parse(cleanHistory) as unknown[]).length,
  };

  console.log('\nInjected:');
  for (const [label, n] of Object.entries(injected).sort()) console.log(`  ${label.padEnd(40)} ${n}`);
  console.log('Checked:');
  console.log(
    `  archive rows        ${archive.read} read of ${archive.expected} landed; lost ${archive.lost.length}, twice ${archive.twice.length}, differing ${archive.differing.length}`,
  );
  console.log(`  reads under faults  ${JSON.stringify(reads.statuses)}; 503s without Retry-After or the spec's body: ${reads.badUnavailable.length}`);
  console.log(`  compactions         ${compactions.ok} completed, ${compactions.failed} failed (killed or throttled)`);
  console.log(
    `  deliveries          ${accepted.size} accepted, ${missing().length} not received, ${[...received].filter((id) => !accepted.has(id)).length} received but never accepted, ${receiver.requests.length - received.size} duplicates (same event id)`,
  );
  console.log(
    `  objects             ${objects.objects} in S3, ${objects.listed} listed; ${objects.missing.length} listed but missing, ${objects.orphans.length} orphans left once due`,
  );
  console.log(
    `  export killed       ${exported.state}, ${exported.files} files; rows differing from the archive ${exported.rowsDiffering.length}, objects differing from their entries ${exported.objectsDiffering.length}`,
  );
  console.log(
    `  export canceled     cancel answered ${cancelStatus}; export objects a day later: ${exportObjectsDue.objects} in S3, ${exportObjectsDue.listed} listed by completed jobs, ${exportObjectsDue.collected} collected; ${exportObjectsDue.missing.length} listed but missing, ${exportObjectsDue.unlisted.length} unlisted left`,
  );
  console.log(
    `  breadth             ${breadth.snapshots} snapshots; under faults: minute ${breadth.minuteSame ? 'same' : 'DIFFERENT'}, history ${breadth.historySame ? 'same' : 'DIFFERENT'}; reads ${JSON.stringify(breadthReads.statuses)}, bad 503s ${breadthReads.badUnavailable.length}`,
  );
  const failed =
    archive.lost.length
    + archive.twice.length
    + archive.differing.length
    + (reads.statuses[500] ?? 0)
    + reads.badUnavailable.length
    + missing().length
    + objects.missing.length
    + objects.orphans.length
    + (exported.state === 'completed' ? 0 : 1)
    + exported.rowsDiffering.length
    + exported.objectsDiffering.length
    + (cancelStatus === 200 ? 0 : 1)
    + exportObjectsDue.missing.length
    + exportObjectsDue.unlisted.length
    + (breadth.minuteSame && breadth.historySame ? 0 : 1)
    + (breadthReads.statuses[500] ?? 0)
    + breadthReads.badUnavailable.length;
  console.log(failed === 0 ? 'All checks passed.' : 'Some checks FAILED.');
  process.exitCode = failed === 0 ? 0 : 1;
} finally {
  await cloud.stop();
  await receiver.close();
  s3.destroy();
  rmSync(dataDir, { recursive: true, force: true });
}
