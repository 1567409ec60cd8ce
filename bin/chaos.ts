/**
 * `npm run chaos -- --minutes N [--rate 0.05] [--seed 1]`: the cloud-faults suite's flows for N
 * minutes on a local cloud of its own (a temporary data directory), rounds of each plan in turn
 * (flaky stores, compaction killed at its write points, every SQS message twice); then, with the
 * faults off, checks the archive row by row against every batch landed, deliveries against those
 * accepted and S3 against the manifest, and prints what it injected and what it checked. Exits 1
 * if a check fails.
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
import { everyMessageTwice, flakyStores, killedAtWritePoints } from '../functions/local/fault-plans.ts';
import {
  SYMBOLS,
  call,
  callPatiently,
  checkArchive,
  checkObjects,
  landBatch,
  newTally,
  readTrades,
  tradeBatches,
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
  const failed =
    archive.lost.length
    + archive.twice.length
    + archive.differing.length
    + (reads.statuses[500] ?? 0)
    + reads.badUnavailable.length
    + missing().length
    + objects.missing.length
    + objects.orphans.length;
  console.log(failed === 0 ? 'All checks passed.' : 'Some checks FAILED.');
  process.exitCode = failed === 0 ? 0 : 1;
} finally {
  await cloud.stop();
  await receiver.close();
  s3.destroy();
  rmSync(dataDir, { recursive: true, force: true });
}
