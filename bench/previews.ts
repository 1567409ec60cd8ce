/**
 * Webhook preview figures (issue 23): a 30-day archive of 300 perpx markets' liquidations
 * (BENCH_PREVIEW_DAYS, BENCH_PREVIEW_MARKETS, BENCH_PREVIEW_FILLS fills a market-day for a smaller or
 * larger one), ingested into scratch emulators and compacted as the schedule leaves it at 12:30 on
 * the last day: closed days in day files, the last day's closed hours in hour files, the open hour
 * in deltas, with the hourly liquidation rollup derived alongside. Then, through the same core
 * functions the handler calls (budget token, manifest, rollup, replay of the uncovered hours):
 * - estimate of market.liquidation (min 1,000 USD) over 30 days, p50/p99 against the floor: DuckDB
 *   alone answering the same question (events per day at or above the threshold) from the raw
 *   liquidation files;
 * - the same estimate replayed (a condition the rollup cannot answer), once: its time, the rows it
 *   read and whether the budget cut its window;
 * - dry-run of market.liquidation over its longest lookback (one day), p50/p99 against DuckDB alone
 *   reading that day's rows newest first;
 * - a replay job of the rule over the 30 days, its days run one after another: rows read per second.
 * DynamoDB (dynalite) and S3 (s3rver) run in this process, on the same cores.
 */
import { DuckDBInstance, listValue, BIGINT, LIST, VARCHAR, DOUBLE } from '@duckdb/node-api';
import { ingestRecords } from '../functions/core/archive/ingest.ts';
import { compactArchive } from '../functions/core/archive/compact.ts';
import { visibleFiles } from '../functions/core/archive/files.ts';
import { DAY_MS, dayOf } from '../functions/core/archive/layout.ts';
import { archiveReferences } from '../functions/core/detect/archive-references.ts';
import { dryRun, estimateWithCost, type PreviewDeps } from '../functions/core/detect/preview.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { newReplayId, replayPartitions, runReplayPartition } from '../functions/core/webhooks/replays.ts';
import type { ReplayJobRecord } from '../functions/ports/replays.ts';
import { breadthStore, replayStore, webhookStores } from '../functions/shared/deps.ts';
import { Rng, hash32 } from '../functions/local/demo/random.ts';
import { startScratchEmulators } from '../functions/local/scratch-emulators.ts';
import type { LiquidationRecord } from '../schemas/datasets.ts';
import { compareToFloor, figure, ms, row } from './stats.ts';

const DAYS = Number(process.env.BENCH_PREVIEW_DAYS ?? 30);
const MARKETS = Number(process.env.BENCH_PREVIEW_MARKETS ?? 300);
const FILLS = Number(process.env.BENCH_PREVIEW_FILLS ?? 60);
const HOUR_MS = 3_600_000;
const THRESHOLD = 1_000;
const USERS = Array.from({ length: 5_000 }, (_, i) => `0x${new Rng(hash32(31, i)).hex(40)}`);

/** Liquidation fills of one market-day: cascades of 1-4 fills of one account at one instant. */
function dayOf_(market: number, day: number, start: number): LiquidationRecord[] {
  const rng = new Rng(hash32(97, market, day));
  const price = 10 ** rng.uniform(-1, 4.8);
  const out: LiquidationRecord[] = [];
  let tradeId = (market * 1_000 + day) * 1_000;
  while (out.length < FILLS) {
    const ts = start + Math.floor(rng.uniform(0, DAY_MS - 1));
    const user = USERS[Math.floor(rng.uniform(0, USERS.length))]!;
    const fills = 1 + Math.floor(rng.uniform(0, 4));
    // Notional per cascade spread over five decades (tens of USD to millions).
    const notional = 10 ** rng.uniform(1, 6.5);
    for (let f = 0; f < fills; f++) {
      out.push({
        dataset: 'liquidations', family: 'perpx', symbol: `M${market}`, ts, trade_id: tradeId++, liquidated_user: user,
        price: price.toPrecision(6), size: (notional / fills / price).toPrecision(6), side: rng.uniform(0, 1) < 0.5 ? 'A' : 'B',
      } as LiquidationRecord);
    }
  }
  return out;
}

export async function benchPreviews(): Promise<void> {
  const env = await startScratchEmulators();
  const floorDb = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
  try {
    // The last day is "today": its clock stands at 12:30.
    const first = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAYS * DAY_MS;
    const now = first + (DAYS - 1) * DAY_MS + 12.5 * HOUR_MS;
    const deps = { ...archiveDeps(), clock: { now: () => now } };
    console.log(`\nWebhook previews: ${DAYS} days x ${MARKETS} perpx markets, ${FILLS} liquidation fills a market-day`);
    const seedStarted = performance.now();
    let fills = 0;
    for (let d = 0; d < DAYS; d++) {
      const records = Array.from({ length: MARKETS }, (_, m) => dayOf_(m, d, first + d * DAY_MS)).flat().filter((r) => r.ts < now);
      fills += records.length;
      await ingestRecords(deps, records);
    }
    const seedS = (performance.now() - seedStarted) / 1000;
    const compactStarted = performance.now();
    await compactArchive(deps, { datasets: ['liquidations'] });
    const compactS = (performance.now() - compactStarted) / 1000;
    row('fills ingested', `${fills.toLocaleString()} in ${seedS.toFixed(1)} s; compacted (with the rollup) in ${compactS.toFixed(1)} s`);
    const rollupFiles = visibleFiles(await deps.manifest.compactedFiles('liquidation_rollups_1h', 'perpx', undefined, dayOf(first), dayOf(now)), []);
    row('rollup rows over the window', `${rollupFiles.reduce((n, f) => n + f.rows, 0).toLocaleString()} in ${rollupFiles.length} files`);

    let account = 0;
    // The previews' clock runs from `now` at the real pace, so their time budget holds as in production.
    const startedAt = Date.now();
    const previewDeps: PreviewDeps = { store: webhookStores(), clock: { now: () => now + (Date.now() - startedAt) }, archive: deps, breadth: breadthStore(), references: archiveReferences(deps) };
    const caller = () => ({ id: `acct_bench_${account++}`, plan: 'pro' as const });

    // The raw files of the window, local (the handler's file cache has them after the first call too).
    const sourceFiles = visibleFiles(
      (await Promise.all(Array.from({ length: DAYS }, (_, d) => deps.manifest.compactedFilesOfDay('liquidations', 'perpx', dayOf(first + d * DAY_MS))))).flat(),
      await deps.manifest.deltaFiles('liquidations', 'perpx', dayOf(first), dayOf(now)),
    );
    const paths = await deps.files.paths(sourceFiles);
    const lastDay = sourceFiles.filter((f) => f.maxTs >= now - DAY_MS);
    const lastDayPaths = await deps.files.paths(lastDay);
    const types = { files: LIST(VARCHAR), from: BIGINT, to: BIGINT, threshold: DOUBLE };

    const estimateBody = { event_type: 'market.liquidation', config: { min_notional_usd: THRESHOLD }, lookback_days: 30 };
    await compareToFloor(`estimate market.liquidation, ${DAYS} days, ${MARKETS} markets (rollup)`,
      async () => {
        const answer = await estimateWithCost(previewDeps, caller(), estimateBody);
        if (answer.basis.mode !== 'exact') throw new Error(`estimate not from the rollup: ${answer.basis.note}`);
      },
      () => floorDb.runAndReadAll(
        `SELECT ts // 86400000 AS day, count(*) AS events FROM (
           SELECT ts, round(sum(CAST(size AS DOUBLE) * CAST(price AS DOUBLE)), 2) AS notional FROM read_parquet($files)
           WHERE ts BETWEEN $from AND $to GROUP BY symbol, liquidated_user, ts) WHERE notional >= $threshold GROUP BY day`,
        { files: listValue(paths), from: BigInt(now - DAYS * DAY_MS), to: BigInt(now - 1), threshold: THRESHOLD }, types),
      { runs: 20 });

    const replayStarted = performance.now();
    const replayed = await estimateWithCost(previewDeps, caller(), {
      ...estimateBody, config: { conditions: [{ metric: 'notional_usd', op: '>=', value: THRESHOLD }, { metric: 'side', op: 'in', value: ['long', 'short'] }] },
    });
    const replayMs = performance.now() - replayStarted;
    figure({ name: `estimate market.liquidation, ${DAYS} days, replayed (no rollup), one call`, value: replayMs, unit: 'ms' },
      `${ms(replayMs)}, ${replayed.rowsScanned.toLocaleString()} rows read, window from ${replayed.window.from}${replayed.basis.note ? ` (${replayed.basis.note})` : ''}`);

    await compareToFloor(`dry-run market.liquidation, 1 day (its longest lookback), ${MARKETS} markets`,
      async () => { await dryRun(previewDeps, caller(), { event_type: 'market.liquidation', lookback_s: 86_400, limit: 100 }); },
      () => floorDb.runAndReadAll('SELECT * FROM read_parquet($files) WHERE ts BETWEEN $from AND $to ORDER BY ts DESC',
        { files: listValue(lastDayPaths), from: BigInt(now - DAY_MS), to: BigInt(now - 1) }, { files: LIST(VARCHAR), from: BIGINT, to: BIGINT }),
      { runs: 20 });

    // A replay job of the same rule over the 30 days, its days run one after another as one task
    // worker runs them (the state machine runs four at a time): rows read per second.
    const replays = replayStore();
    const job: ReplayJobRecord = {
      accountId: 'acct_bench_replay', jobId: newReplayId(now), state: 'running', eventType: 'market.liquidation',
      config: { conditions: [{ metric: 'notional_usd', op: 'greater_than_or_equal', value: THRESHOLD }], params: {}, min_notional_usd: THRESHOLD },
      deliver: false, from: first, to: now, createdAt: now, partitionsTotal: 0, partitionsDone: 0, rowsScanned: 0, matched: 0, delivered: 0,
    };
    const partitions = replayPartitions(first, now);
    await replays.createJob({ ...job, partitionsTotal: partitions.length });
    const replayDeps = {
      ...previewDeps, replays, store: webhookStores(), delivery: { store: webhookStores(), queues: { send: async () => undefined } as never, clock: previewDeps.clock },
      planOf: async () => 'pro' as const,
    };
    const jobStarted = performance.now();
    let replayRows = 0;
    let replayMatched = 0;
    for (const partition of partitions) {
      const outcome = await runReplayPartition(replayDeps, job, partition);
      if (outcome.status !== 'recorded') throw new Error(`replay day ${partition.i}: ${JSON.stringify(outcome)}`);
      replayRows += outcome.rows;
      replayMatched += outcome.matched;
    }
    const replayS = (performance.now() - jobStarted) / 1000;
    figure({ name: `replay job market.liquidation, ${DAYS} days, ${MARKETS} markets, one worker, rows/s`, value: replayRows / replayS, unit: 'rows/s' },
      `${Math.round(replayRows / replayS).toLocaleString()} rows/s (${replayRows.toLocaleString()} rows, ${replayMatched.toLocaleString()} occurrences stored, ${replayS.toFixed(1)} s, ${partitions.length} days)`);
  } finally {
    floorDb.closeSync();
    await env.stop();
  }
}
