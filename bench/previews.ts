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
 * - a replay job of the rule over the 30 days, its days run one after another: rows read per second
 *   (stopped after BENCH_PREVIEW_REPLAY_S, default 300 s, with the rate of the days done);
 * - every other estimable type at its longest lookback (30 days), and every dry-run type over a
 *   day, each beside DuckDB alone answering the same question from the same raw files: fills and
 *   PGA payments from trades (20 a market-day), transfers (2,000 a day), funding (hourly settled
 *   rates and a half-hour prediction), hip4 settlements (40 a day), liquidations above; the account
 *   types watch five wallets; open interest every five minutes (a slow walk with jumps) for
 *   market.oi_delta. oracle.jump is not measured (no hip3 market is seeded).
 * DynamoDB (dynalite) and S3 (s3rver) run in this process, on the same cores. With
 * BENCH_PREVIEW_DIR the seeded, compacted archive is kept there and reused by the next run of the
 * same size (seeding 30 days x 300 markets takes many minutes; the timed part can then run alone).
 */
import { DuckDBInstance, listValue, BIGINT, LIST, VARCHAR, DOUBLE } from '@duckdb/node-api';
import { ingestRecords } from '../functions/core/archive/ingest.ts';
import { compactArchive } from '../functions/core/archive/compact.ts';
import { visibleFiles } from '../functions/core/archive/files.ts';
import { DAY_MS, dayOf } from '../functions/core/archive/layout.ts';
import { archiveReferences } from '../functions/core/detect/archive-references.ts';
import { dryRun, estimateWithCost } from '../functions/core/detect/preview.ts';
import type { PreviewDeps } from '../functions/core/detect/scan.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { newReplayId, replayPartitions, runReplayPartition } from '../functions/core/detect/replays.ts';
import type { ReplayJobRecord } from '../functions/ports/replays.ts';
import { breadthStore, replayStore, webhookStores } from '../functions/shared/deps.ts';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng, hash32 } from '../functions/local/demo/random.ts';
import { startScratchEmulators } from '../functions/local/scratch-emulators.ts';
import type {
  FundingRecord,
  LiquidationRecord,
  NormalizedRecord,
  OpenInterestRecord,
  SettlementRecord,
  TradeRecord,
  TransferRecord,
} from '../schemas/datasets.ts';
import { compareToFloor, figure, ms, row } from './stats.ts';

const DAYS = Number(process.env.BENCH_PREVIEW_DAYS ?? 30);
const MARKETS = Number(process.env.BENCH_PREVIEW_MARKETS ?? 300);
const FILLS = Number(process.env.BENCH_PREVIEW_FILLS ?? 60);
const HOUR_MS = 3_600_000;
const THRESHOLD = 1_000;
const USERS = Array.from({ length: 5_000 }, (_, i) => `0x${new Rng(hash32(31, i)).hex(40)}`);
const TRADES = Number(process.env.BENCH_PREVIEW_TRADES ?? 20);
const TRANSFERS = 2_000;
const SETTLEMENTS = 40;
/** The wallets the account types' callers watch. */
const WATCHED = USERS.slice(0, 5);
const RUNS = Number(process.env.BENCH_PREVIEW_RUNS ?? 12);
const REPLAY_BUDGET_S = Number(process.env.BENCH_PREVIEW_REPLAY_S ?? 300);

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
        dataset: 'liquidations',
        family: 'perpx',
        symbol: `M${market}`,
        ts,
        trade_id: tradeId++,
        liquidated_user: user,
        price: price.toPrecision(6),
        size: (notional / fills / price).toPrecision(6),
        side: rng.uniform(0, 1) < 0.5 ? 'A' : 'B',
      } as LiquidationRecord);
    }
  }
  return out;
}

/** Trades of one market-day: the account types' fills, and now and then a priority gas payment. */
function tradesOf(market: number, day: number, start: number): TradeRecord[] {
  const rng = new Rng(hash32(98, market, day));
  const price = 10 ** rng.uniform(-1, 4.8);
  return Array.from({ length: TRADES }, (_, i) => {
    const notional = 10 ** rng.uniform(1, 5.5);
    const gas = rng.uniform(0, 1) < 0.02 ? rng.uniform(0.5, 5).toFixed(2) : null;
    return {
      dataset: 'trades',
      family: 'perpx',
      symbol: `M${market}`,
      ts: start + Math.floor(rng.uniform(0, DAY_MS - 1)),
      trade_id: 500_000_000 + (market * 1_000 + day) * 1_000 + i,
      side: rng.uniform(0, 1) < 0.5 ? 'A' : 'B',
      price: price.toPrecision(6),
      size: (notional / price).toPrecision(6),
      user_address: USERS[Math.floor(rng.uniform(0, USERS.length))]!,
      crossed: true,
      priority_gas: gas,
    } as TradeRecord;
  });
}

/** A day's ledger: sends between wallets, values over six decades. */
function transfersOf(day: number, start: number): TransferRecord[] {
  const rng = new Rng(hash32(99, day));
  return Array.from(
    { length: TRANSFERS },
    (_, i) =>
      ({
        dataset: 'transfers',
        family: 'perpx',
        symbol: 'USDC',
        ts: start + Math.floor(rng.uniform(0, DAY_MS - 1)),
        user_address: USERS[Math.floor(rng.uniform(0, USERS.length))]!,
        kind: 'send',
        role: i % 2 ? 'source' : 'destination',
        amount: '1',
        usdc_value: (10 ** rng.uniform(0, 6)).toFixed(2),
        tx_hash: `0xbench${day}_${i}`,
      }) as TransferRecord,
  );
}

/** A market-day of funding: the settled rate each hour (its sign wanders) and a prediction at half past. */
function fundingOf(market: number, day: number, start: number): FundingRecord[] {
  const rng = new Rng(hash32(100, market, day));
  return Array.from({ length: 24 }, (_, h) => {
    const rate = rng.uniform(-1, 1.4) / 100_000;
    return [
      { dataset: 'funding', family: 'perpx', symbol: `M${market}`, ts: start + h * HOUR_MS, funding_rate: rate.toFixed(8) },
      { dataset: 'funding', family: 'perpx', symbol: `M${market}`, ts: start + h * HOUR_MS + 1_800_000, funding_rate: (rate * 0.9).toFixed(8) },
    ] as FundingRecord[];
  }).flat();
}

/** A market-day of open interest every five minutes: a slow walk with now and then a jump of several percent. */
function openInterestOf(market: number, day: number, start: number): OpenInterestRecord[] {
  const rng = new Rng(hash32(102, market, day));
  let oi = 10 ** rng.uniform(5, 7);
  return Array.from({ length: DAY_MS / OI_STEP_MS }, (_, i) => {
    oi *= 1 + (rng.uniform(0, 1) < 0.01 ? rng.uniform(-0.12, 0.12) : rng.uniform(-0.004, 0.004));
    return {
      dataset: 'open_interest',
      family: 'perpx',
      symbol: `M${market}`,
      ts: start + i * OI_STEP_MS,
      open_interest: oi.toFixed(2),
      mark_price: '1',
      oracle_price: '1',
    } as OpenInterestRecord;
  });
}
const OI_STEP_MS = 300_000;

/** A day's settled hip4 outcome sides. */
function settlementsOf(day: number, start: number): SettlementRecord[] {
  const rng = new Rng(hash32(101, day));
  return Array.from(
    { length: SETTLEMENTS },
    (_, i) =>
      ({
        dataset: 'settlements',
        family: 'hip4',
        symbol: `#${day * 100 + i}`,
        ts: start + Math.floor(rng.uniform(0, DAY_MS - 1)),
        resolution: i % 2 ? 'yes' : 'no',
        settle_price: '1',
        open_interest: (10 ** rng.uniform(1, 6)).toFixed(2),
      }) as SettlementRecord,
  );
}

/** Runs one measurement; a 504 (or any failure) is printed as the figure's outcome and the bench goes on. */
async function measured(label: string, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    row(label, `failed: ${(error as { code?: string }).code ?? ''} ${(error as Error).message}`);
  }
}

/**
 * Compacts one dataset; the emulators share the process and the cores, so a connection reset under
 * load is retried (compaction resumes where it stopped).
 */
async function compactRetrying(
  deps: Parameters<typeof compactArchive>[0],
  dataset: 'liquidations' | 'trades' | 'transfers' | 'funding' | 'settlements' | 'open_interest',
): Promise<void> {
  await retrying(`compaction of ${dataset}`, () => compactArchive(deps, { datasets: [dataset] }));
}

/** Runs seeding work again after a failure (a connection reset from the in-process emulators under load), a few times. */
async function retrying<T>(what: string, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= 8) throw error;
      row(`  ${what} retried`, String((error as Error).message));
      await new Promise((resolve) => setTimeout(resolve, 2_000 * attempt));
    }
  }
}

/** The archive's size: a kept archive is reused only by a run of the same size. */
const SIZE = { days: DAYS, markets: MARKETS, fills: FILLS, trades: TRADES, oiStepMs: OI_STEP_MS };

export async function benchPreviews(): Promise<void> {
  const keepIn = process.env.BENCH_PREVIEW_DIR;
  const marker = keepIn && join(keepIn, 'bench-previews.json');
  const kept = marker && existsSync(marker) ? (JSON.parse(readFileSync(marker, 'utf8')) as typeof SIZE & { first: number }) : undefined;
  const reuse = kept !== undefined && Object.entries(SIZE).every(([k, v]) => kept[k as keyof typeof SIZE] === v);
  if (keepIn && !reuse) rmSync(keepIn, { recursive: true, force: true });
  if (keepIn) mkdirSync(keepIn, { recursive: true });
  const env = await startScratchEmulators({ keepIn });
  const floorDb = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
  try {
    // The last day is "today": its clock stands at 12:30.
    const first = reuse ? kept.first : Math.floor(Date.now() / DAY_MS) * DAY_MS - DAYS * DAY_MS;
    const now = first + (DAYS - 1) * DAY_MS + 12.5 * HOUR_MS;
    const deps = { ...archiveDeps(), clock: { now: () => now } };
    console.log(
      `\nWebhook previews: ${DAYS} days x ${MARKETS} perpx markets, ${FILLS} liquidation fills a market-day${reuse ? ` (the archive kept in ${keepIn})` : ''}`,
    );
    if (!reuse) await seed(deps, first, now);
    if (marker && !reuse) writeFileSync(marker, JSON.stringify({ ...SIZE, first }));
    const rollupFiles = visibleFiles(await deps.manifest.compactedFiles('liquidation_rollups_1h', 'perpx', undefined, dayOf(first), dayOf(now)), []);
    row('rollup rows over the window', `${rollupFiles.reduce((n, f) => n + f.rows, 0).toLocaleString()} in ${rollupFiles.length} files`);

    let account = 0;
    // The previews' clock runs from `now` at the real pace, so their time budget holds as in production.
    const startedAt = Date.now();
    const previewDeps: PreviewDeps = {
      store: webhookStores(),
      clock: { now: () => now + (Date.now() - startedAt) },
      archive: deps,
      breadth: breadthStore(),
      references: archiveReferences(deps),
    };
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
    await measured(`estimate market.liquidation, ${DAYS} days, ${MARKETS} markets (rollup)`, () =>
      compareToFloor(
        `estimate market.liquidation, ${DAYS} days, ${MARKETS} markets (rollup)`,
        async () => {
          const answer = await estimateWithCost(previewDeps, caller(), estimateBody);
          if (answer.basis.mode !== 'exact') throw new Error(`estimate not from the rollup: ${answer.basis.note}`);
        },
        () =>
          floorDb.runAndReadAll(
            `SELECT ts // 86400000 AS day, count(*) AS events FROM (
           SELECT ts, round(sum(CAST(size AS DOUBLE) * CAST(price AS DOUBLE)), 2) AS notional FROM read_parquet($files)
           WHERE ts BETWEEN $from AND $to GROUP BY symbol, liquidated_user, ts) WHERE notional >= $threshold GROUP BY day`,
            { files: listValue(paths), from: BigInt(now - DAYS * DAY_MS), to: BigInt(now - 1), threshold: THRESHOLD },
            types,
          ),
        { runs: 20 },
      ),
    );

    await measured(`estimate market.liquidation, ${DAYS} days, replayed (no rollup), one call`, async () => {
      const replayStarted = performance.now();
      const replayed = await estimateWithCost(previewDeps, caller(), {
        ...estimateBody,
        config: {
          conditions: [
            { metric: 'notional_usd', op: '>=', value: THRESHOLD },
            { metric: 'side', op: 'in', value: ['long', 'short'] },
          ],
        },
      });
      const replayMs = performance.now() - replayStarted;
      figure(
        { name: `estimate market.liquidation, ${DAYS} days, replayed (no rollup), one call`, value: replayMs, unit: 'ms' },
        `${ms(replayMs)}, ${replayed.rowsScanned.toLocaleString()} rows read, window from ${replayed.window.from}${replayed.basis.note ? ` (${replayed.basis.note})` : ''}`,
      );
    });

    await measured(`dry-run market.liquidation, 1 day (its longest lookback), ${MARKETS} markets`, () =>
      compareToFloor(
        `dry-run market.liquidation, 1 day (its longest lookback), ${MARKETS} markets`,
        async () => {
          await dryRun(previewDeps, caller(), { event_type: 'market.liquidation', lookback_s: 86_400, limit: 100 });
        },
        () =>
          floorDb.runAndReadAll(
            'SELECT * FROM read_parquet($files) WHERE ts BETWEEN $from AND $to ORDER BY ts DESC',
            { files: listValue(lastDayPaths), from: BigInt(now - DAY_MS), to: BigInt(now - 1) },
            { files: LIST(VARCHAR), from: BIGINT, to: BIGINT },
          ),
        { runs: 20 },
      ),
    );

    // A replay job of the same rule over the 30 days, its days run one after another as one task
    // worker runs them (the state machine runs four at a time): rows read per second.
    const replays = replayStore();
    const job: ReplayJobRecord = {
      accountId: 'acct_bench_replay',
      jobId: newReplayId(now),
      state: 'running',
      eventType: 'market.liquidation',
      config: { conditions: [{ metric: 'notional_usd', op: 'greater_than_or_equal', value: THRESHOLD }], params: {}, min_notional_usd: THRESHOLD },
      deliver: false,
      from: first,
      to: now,
      createdAt: now,
      partitionsTotal: 0,
      partitionsDone: 0,
      rowsScanned: 0,
      matched: 0,
      delivered: 0,
    };
    const partitions = replayPartitions(first, now);
    await replays.createJob({ ...job, partitionsTotal: partitions.length });
    const replayDeps = {
      ...previewDeps,
      replays,
      store: webhookStores(),
      delivery: { store: webhookStores(), queues: { send: async () => undefined } as never, clock: previewDeps.clock },
      planOf: async () => 'pro' as const,
    };
    const jobStarted = performance.now();
    let replayRows = 0;
    let replayMatched = 0;
    let daysDone = 0;
    for (const partition of [...partitions].reverse()) {
      if ((performance.now() - jobStarted) / 1000 > REPLAY_BUDGET_S) break;
      daysDone += 1;
      const outcome = await runReplayPartition(replayDeps, job, partition);
      if (outcome.status !== 'recorded') throw new Error(`replay day ${partition.i}: ${JSON.stringify(outcome)}`);
      replayRows += outcome.rows;
      replayMatched += outcome.matched;
    }
    const replayS = (performance.now() - jobStarted) / 1000;
    figure(
      { name: `replay job market.liquidation, ${DAYS} days, ${MARKETS} markets, one worker, rows/s`, value: replayRows / replayS, unit: 'rows/s' },
      `${Math.round(replayRows / replayS).toLocaleString()} rows/s (${replayRows.toLocaleString()} rows, ${replayMatched.toLocaleString()} occurrences stored, ${replayS.toFixed(1)} s, ${daysDone} of ${partitions.length} days, newest first)`,
    );

    await benchOtherTypes({ deps, previewDeps, floorDb, now });
  } finally {
    floorDb.closeSync();
    await env.stop();
  }
}

/** Ingests the archive's rows a day at a time and compacts it as the schedule leaves it at `now`. */
async function seed(deps: ReturnType<typeof archiveDeps> & { clock: { now: () => number } }, first: number, now: number): Promise<void> {
  const seedStarted = performance.now();
  let fills = 0;
  let others = 0;
  for (let d = 0; d < DAYS; d++) {
    const start = first + d * DAY_MS;
    const records = Array.from({ length: MARKETS }, (_, m) => dayOf_(m, d, start))
      .flat()
      .filter((r) => r.ts < now);
    fills += records.length;
    await retrying('ingest of liquidations', () => ingestRecords(deps, records));
    // Batches of one dataset and 50 markets: a delta's manifest item carries per-symbol statistics of every column.
    const batches: NormalizedRecord[][] = [transfersOf(d, start), settlementsOf(d, start)];
    for (let m = 0; m < MARKETS; m += 50) {
      const markets = Array.from({ length: Math.min(50, MARKETS - m) }, (_, i) => m + i);
      batches.push(
        markets.flatMap((market) => tradesOf(market, d, start)),
        markets.flatMap((market) => fundingOf(market, d, start)),
        markets.flatMap((market) => openInterestOf(market, d, start)),
      );
    }
    for (const batch of batches) {
      const rows = batch.filter((r) => r.ts < now);
      others += rows.length;
      if (rows.length) await retrying(`ingest of ${rows[0]!.dataset}`, () => ingestRecords(deps, rows));
    }
  }
  const seedS = (performance.now() - seedStarted) / 1000;
  const compactStarted = performance.now();
  await compactRetrying(deps, 'liquidations');
  const compactS = (performance.now() - compactStarted) / 1000;
  row(
    'fills ingested',
    `${fills.toLocaleString()} in ${seedS.toFixed(1)} s (with ${others.toLocaleString()} trades, transfers, funding, settlement and open-interest rows); compacted (with the rollup) in ${compactS.toFixed(1)} s`,
  );
  const otherStarted = performance.now();
  for (const dataset of ['trades', 'transfers', 'funding', 'settlements', 'open_interest'] as const) await compactRetrying(deps, dataset);
  row('the other datasets compacted (with their rollups)', `${((performance.now() - otherStarted) / 1000).toFixed(1)} s`);
}

interface OtherTypesInput {
  deps: ReturnType<typeof archiveDeps> & { clock: { now: () => number } };
  previewDeps: PreviewDeps;
  floorDb: Awaited<ReturnType<Awaited<ReturnType<typeof DuckDBInstance.create>>['connect']>>;
  now: number;
}

/**
 * Every other estimable type at its longest lookback (30 days) and every dry-run type over a day,
 * each beside its floor: DuckDB alone answering the same question from the same raw files.
 */
async function benchOtherTypes({ deps, previewDeps, floorDb, now }: OtherTypesInput): Promise<void> {
  const stores = webhookStores();
  let accounts = 0;
  /** A fresh caller watching WATCHED (each preview call its own, so the 6-a-minute budget never waits). */
  const callers = async (n: number) =>
    Promise.all(
      Array.from({ length: n }, async () => {
        const id = `acct_bench_types_${accounts++}`;
        for (const address of WATCHED) await stores.rules.addAddress(id, { address, label: '', createdAt: new Date(now).toISOString() });
        return { id, plan: 'pro' as const };
      }),
    );
  const rawPaths = async (
    dataset: 'trades' | 'transfers' | 'funding' | 'settlements' | 'liquidations' | 'open_interest',
    family: 'perpx' | 'hip4',
    from: number,
  ) => {
    const files = visibleFiles(
      (
        await Promise.all(
          Array.from({ length: Math.ceil((now - from) / DAY_MS) + 1 }, (_, d) => deps.manifest.compactedFilesOfDay(dataset, family, dayOf(from + d * DAY_MS))),
        )
      ).flat(),
      await deps.manifest.deltaFiles(dataset, family, dayOf(from), dayOf(now)),
    ).filter((f) => f.maxTs >= from);
    return deps.files.paths(files);
  };
  const from30 = Math.floor(now / DAY_MS) * DAY_MS - 29 * DAY_MS;
  const paths = {
    trades: await rawPaths('trades', 'perpx', from30),
    transfers: await rawPaths('transfers', 'perpx', from30),
    funding: await rawPaths('funding', 'perpx', from30 - 2 * HOUR_MS),
    settlements: await rawPaths('settlements', 'hip4', from30),
    liquidations: await rawPaths('liquidations', 'perpx', from30),
    openInterest: await rawPaths('open_interest', 'perpx', from30 - HOUR_MS),
  };
  const dayPaths = { trades: await rawPaths('trades', 'perpx', now - DAY_MS), transfers: await rawPaths('transfers', 'perpx', now - DAY_MS) };
  const window = { from: BigInt(from30), to: BigInt(now - 1) };
  const T = { files: LIST(VARCHAR), from: BIGINT, to: BIGINT, users: LIST(VARCHAR) };
  const floor =
    (sql: string, files: string[], extra: Record<string, unknown> = {}, types: Record<string, unknown> = {}) =>
    () =>
      floorDb.runAndReadAll(sql, { files: listValue(files), ...window, ...extra } as never, { files: T.files, from: T.from, to: T.to, ...types } as never);
  const users = { users: listValue(WATCHED) };
  const cases: { type: string; config: Record<string, unknown>; floor: () => Promise<unknown>; runs?: number }[] = [
    {
      type: 'account.liquidated',
      config: { min_notional_usd: THRESHOLD },
      floor: floor(
        `SELECT ts // 86400000 AS day, count(*) FROM (SELECT ts, round(sum(CAST(size AS DOUBLE) * CAST(price AS DOUBLE)), 2) AS n FROM read_parquet($files)
        WHERE ts BETWEEN $from AND $to AND list_contains($users, liquidated_user) GROUP BY symbol, liquidated_user, ts) WHERE n >= 1000 GROUP BY day`,
        paths.liquidations,
        users,
        { users: T.users },
      ),
    },
    {
      type: 'account.fill',
      config: { min_notional_usd: THRESHOLD },
      floor: floor(
        `SELECT ts // 86400000 AS day, count(*) FROM (SELECT ts, round(sum(CAST(size AS DOUBLE) * CAST(price AS DOUBLE)), 2) AS n FROM read_parquet($files)
        WHERE ts BETWEEN $from AND $to AND list_contains($users, user_address) GROUP BY symbol, user_address, side, ts) WHERE n >= 1000 GROUP BY day`,
        paths.trades,
        users,
        { users: T.users },
      ),
    },
    {
      type: 'account.transfer',
      config: { min_notional_usd: THRESHOLD },
      floor: floor(
        `SELECT ts // 86400000 AS day, count(*) FROM read_parquet($files) WHERE ts BETWEEN $from AND $to AND list_contains($users, user_address)
        AND CAST(usdc_value AS DOUBLE) >= 1000 GROUP BY day`,
        paths.transfers,
        users,
        { users: T.users },
      ),
    },
    {
      type: 'market.funding_flip',
      config: {},
      floor: floor(
        `SELECT ts // 86400000 AS day, count(*) FROM (SELECT ts, CAST(funding_rate AS DOUBLE) AS r, lag(CAST(funding_rate AS DOUBLE)) OVER (PARTITION BY symbol ORDER BY ts) AS p
        FROM read_parquet($files) WHERE ts BETWEEN $from - 7200000 AND $to AND ts % 3600000 = 0) WHERE ts >= $from AND r * p < 0 GROUP BY day`,
        paths.funding,
      ),
    },
    {
      type: 'market.pga_payment',
      config: {},
      floor: floor(
        `SELECT day, least(50, count(*)) FROM (SELECT ts // 86400000 AS day FROM read_parquet($files) WHERE ts BETWEEN $from AND $to
        AND priority_gas IS NOT NULL AND CAST(priority_gas AS DOUBLE) >= 1.5) GROUP BY day`,
        paths.trades,
      ),
    },
    {
      type: 'hip4.settlement',
      config: { min_notional_usd: THRESHOLD },
      floor: floor(
        'SELECT ts // 86400000 AS day, count(*) FROM read_parquet($files) WHERE ts BETWEEN $from AND $to AND CAST(open_interest AS DOUBLE) >= 1000 GROUP BY day',
        paths.settlements,
      ),
    },
    {
      // From the crossing histograms (window_s 900, threshold_pct 10 by default); the floor finds each row's base by ASOF join.
      type: 'market.oi_delta',
      config: {},
      floor: floor(
        `WITH r AS (SELECT symbol, ts, CAST(open_interest AS DOUBLE) * CAST(mark_price AS DOUBLE) AS usd FROM read_parquet($files) WHERE ts BETWEEN $from - 3600000 AND $to),
        m AS (SELECT a.symbol, a.ts, a.usd, round((a.usd / b.usd - 1) * 100, 8) AS d FROM r a ASOF LEFT JOIN r b ON a.symbol = b.symbol AND a.ts - 900000 >= b.ts),
        s AS (SELECT *, lag(d) OVER (PARTITION BY symbol ORDER BY ts) AS p FROM m)
        SELECT ts // 86400000 AS day, count(*) FROM s WHERE ts >= $from AND usd >= 100000
          AND ((d >= 10 AND (p IS NULL OR p < 10)) OR (d <= -10 AND (p IS NULL OR p > -10))) GROUP BY day`,
        paths.openInterest,
      ),
    },
    {
      // From the minute reduction (window_s 300, threshold_usd 1,000,000 by default).
      type: 'market.liquidation_burst',
      config: {},
      floor: floor(
        `SELECT count(*) FROM (SELECT symbol, m, sum(n) OVER (PARTITION BY symbol ORDER BY m RANGE BETWEEN 240000 PRECEDING AND CURRENT ROW) AS w FROM (
        SELECT symbol, (ts // 60000) * 60000 + 60000 AS m, sum(CAST(size AS DOUBLE) * CAST(price AS DOUBLE)) AS n FROM read_parquet($files) WHERE ts BETWEEN $from AND $to GROUP BY ALL))
        WHERE w >= 1000000`,
        paths.liquidations,
      ),
    },
  ];
  for (const c of cases) {
    const runs = c.runs ?? RUNS;
    const pool = await callers(runs + 1);
    let next = 0;
    let last: Awaited<ReturnType<typeof estimateWithCost>> | undefined;
    await measured(`estimate ${c.type}, 30 days`, async () => {
      await compareToFloor(
        `estimate ${c.type}, 30 days`,
        async () => {
          last = await estimateWithCost(previewDeps, pool[next++]!, { event_type: c.type, config: c.config, lookback_days: 30 });
        },
        c.floor,
        { runs },
      );
      row(
        '  answer',
        `basis ${last!.basis.mode}, ${last!.rowsScanned.toLocaleString()} rows read, ${last!.total.toLocaleString()} occurrences, window from ${last!.window.from}`,
      );
    });
  }

  const dryRuns: { type: string; floor: () => Promise<unknown> }[] = [
    {
      type: 'account.fill',
      floor: () =>
        floorDb.runAndReadAll(
          'SELECT * FROM read_parquet($files) WHERE ts BETWEEN $from AND $to AND list_contains($users, user_address) ORDER BY ts DESC',
          { files: listValue(dayPaths.trades), from: BigInt(now - DAY_MS), to: BigInt(now - 1), users: listValue(WATCHED) },
          T,
        ),
    },
    {
      type: 'account.transfer',
      floor: () =>
        floorDb.runAndReadAll(
          'SELECT * FROM read_parquet($files) WHERE ts BETWEEN $from AND $to AND list_contains($users, user_address) ORDER BY ts DESC',
          { files: listValue(dayPaths.transfers), from: BigInt(now - DAY_MS), to: BigInt(now - 1), users: listValue(WATCHED) },
          T,
        ),
    },
  ];
  for (const c of dryRuns) {
    const pool = await callers(RUNS + 1);
    let next = 0;
    await measured(`dry-run ${c.type}, 1 day (its longest lookback)`, () =>
      compareToFloor(
        `dry-run ${c.type}, 1 day (its longest lookback)`,
        async () => {
          await dryRun(previewDeps, pool[next++]!, { event_type: c.type, lookback_s: 86_400, limit: 100 });
        },
        c.floor,
        { runs: RUNS },
      ),
    );
  }
}
