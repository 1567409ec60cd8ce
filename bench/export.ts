/**
 * Bulk export figures (issue 20): a week of `perpx` trades, the demo market's busiest family (its
 * 75 markets, prices, size decimals and shares of the flow, and its position accounting for
 * start_position, closed_pnl and direction; the trade flow itself is drawn directly, as the full
 * simulation takes about 4 s per simulated hour), ingested through `ingestRecords` into scratch
 * emulators and compacted into the symbol-day files an export reads. The job is planned with
 * `planExport` and stored, then every partition is run by `exportPartition` one after another, as
 * one partition worker runs them (the state machine runs up to 8 such workers at once): rows/s and
 * MB/s written, against DuckDB alone copying the same rows through the same projection from the
 * same local files (the floor), the two interleaved partition by partition. Also the peak RSS growth
 * while the largest partition is exported. DynamoDB (dynalite) and S3 (s3rver) run in this process,
 * on the same 2 cores. Size: BENCH_EXPORT_ROWS (default 2,100,000) for a quicker look.
 */
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DuckDBInstance, listValue, BIGINT, LIST, VARCHAR } from '@duckdb/node-api';
import { ingestRecords } from '../functions/core/archive/ingest.ts';
import { compactArchive } from '../functions/core/archive/compact.ts';
import { visibleFiles } from '../functions/core/archive/files.ts';
import { DAY_MS, dayOf } from '../functions/core/archive/layout.ts';
import { planExport } from '../functions/core/exports/plan.ts';
import { newExportId } from '../functions/core/exports/jobs.ts';
import { exportPartition, type PartitionDeps } from '../functions/core/exports/partition.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { exportObjects, exportStore } from '../functions/shared/deps.ts';
import { initialCatalog } from '../functions/local/demo/catalog.ts';
import { applyFill, directionLabel, type Position } from '../functions/local/demo/ledger.ts';
import { formatFixed, formatUnits, priceDecimals } from '../functions/local/demo/decimal.ts';
import { Rng, hash32 } from '../functions/local/demo/random.ts';
import { startScratchEmulators } from '../functions/local/scratch-emulators.ts';
import type { ArchiveDeps } from '../functions/ports/archive.ts';
import type { SqlQuery } from '../functions/ports/sql.ts';
import type { ExportJobRecord, ExportPartition } from '../functions/ports/exports.ts';
import type { TradeRecord } from '../schemas/datasets.ts';
import { EXPORT_FORMATS } from '../schemas/exports.ts';
import { figure, ms, row } from './stats.ts';

const DAYS = 7;
const TOTAL_ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 2_100_000);
const WALLETS = 20_000;
const BUILDERS = 6;
const INGEST_RECORDS = 100_000;
const MB = 1e6;
const MIB = 2 ** 20;
const YEAR_MS = 365 * DAY_MS;

/**
 * A week of trades from `start`, handed to `sink` `INGEST_RECORDS` at a time. Taker orders arrive
 * through each symbol-day (its share of the flow, +-20% a day), each filled in 1-3 fills: the
 * taker's row and, half the time, the maker's, every row with its own trade id, as the demo does.
 */
async function seedWeek(start: number, sink: (records: TradeRecord[]) => Promise<void>): Promise<number> {
  const { assets, markets } = initialCatalog(42, start, 0);
  const perps = markets.filter((m) => m.family === 'perpx');
  const totalActivity = perps.reduce((sum, m) => sum + m.activity, 0);
  const wallets = Array.from({ length: WALLETS }, (_, i) => `0x${new Rng(hash32(7, i)).hex(40)}`);
  const builders = wallets.slice(0, BUILDERS);
  // Activity per wallet is heavy-tailed (a few market makers and bots make most of the flow).
  const walletRng = new Rng(11);
  const cumulative = new Float64Array(WALLETS);
  for (let i = 0, sum = 0; i < WALLETS; i++) cumulative[i] = sum += walletRng.pareto(1, 1.1);
  const prices = perps.map((m) => assets.find((a) => a.key === m.asset)!.price);
  const positions = new Map<number, Position>();
  let tradeId = 900_000_000_000;
  let orderId = 400_000_000_000;
  let written = 0;
  let batch: TradeRecord[] = [];

  for (let d = 0; d < DAYS; d++) {
    const day = start + d * DAY_MS;
    for (const [s, market] of perps.entries()) {
      const rng = new Rng(hash32(23, d, s));
      const rows = Math.max(1, Math.round((TOTAL_ROWS / DAYS) * (market.activity / totalActivity) * rng.uniform(0.8, 1.2)));
      const unitSize = 10 ** -market.szDecimals;
      const asset = assets.find((a) => a.key === market.asset)!;
      // The walk's step per order, so the day's moves follow the asset's annual volatility.
      const step = asset.annualVol * Math.sqrt(DAY_MS / rows / YEAR_MS);
      for (let n = 0; n < rows; ) {
        const ts = day + Math.floor((n / rows) * (DAY_MS - 1));
        const taker = rng.weighted(cumulative);
        const buy = rng.chance(0.5);
        const txHash = `0x${rng.hex(64)}`;
        const oid = orderId++;
        const cloid = rng.chance(0.3) ? `0x${rng.hex(32)}` : undefined;
        const twapId = rng.chance(0.02) ? 1_000_000 + rng.int(500_000) : undefined;
        const builder = rng.chance(0.1) ? rng.pick(builders) : undefined;
        const fills = 1 + rng.int(3);
        for (let f = 0; f < fills && n < rows; f++) {
          prices[s] = prices[s]! * Math.exp(step * rng.normal());
          const priceText = formatFixed(prices[s]!, priceDecimals(prices[s]!, 6 - market.szDecimals));
          const price = Number(priceText);
          const units = Math.max(1, Math.round(rng.logNormal(800, 1.4) / price / unitSize));
          const maker = rng.weighted(cumulative);
          for (const [wallet, crossed] of rng.chance(0.5)
            ? ([
                [taker, true],
                [maker, false],
              ] as const)
            : ([[taker, true]] as const)) {
            if (n >= rows) break;
            const signed = (buy === crossed ? 1 : -1) * units;
            const key = wallet * 128 + s;
            const position = positions.get(key) ?? { units: 0, entry: 0 };
            positions.set(key, position);
            const outcome = applyFill(position, signed, price, unitSize);
            const notional = units * unitSize * price;
            const record: TradeRecord = {
              dataset: 'trades',
              family: 'perpx',
              symbol: market.symbol,
              ts,
              trade_id: tradeId++,
              side: signed > 0 ? 'B' : 'A',
              price: priceText,
              size: formatUnits(units, market.szDecimals),
              crossed,
              fee: formatFixed(notional * (crossed ? 0.00045 : 0.00015), 6),
              fee_token: 'USDC',
              closed_pnl: formatFixed(outcome.closedPnl, 6),
              direction: directionLabel(outcome, signed, 'perp'),
              start_position: formatUnits(outcome.startUnits, market.szDecimals),
              user_address: wallets[wallet]!,
              tx_hash: txHash,
              order_id: crossed ? oid : orderId++,
              maker_address: wallets[maker]!,
              taker_address: wallets[taker]!,
              is_liquidation: false,
            };
            if (crossed && cloid !== undefined) record.cloid = cloid;
            if (crossed && twapId !== undefined) record.twap_id = twapId;
            if (crossed && builder !== undefined) {
              record.builder_address = builder;
              record.builder_fee = formatFixed(notional * 0.0005, 6);
            }
            batch.push(record);
            n += 1;
            if (batch.length === INGEST_RECORDS) {
              await sink(batch);
              written += batch.length;
              batch = [];
            }
          }
        }
      }
    }
  }
  if (batch.length > 0) await sink(batch);
  return written + batch.length;
}

/** A full garbage collection, so the memory baseline does not depend on when V8 last collected. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Peak RSS while `work` runs, sampled every 20 ms on this thread's timer and at the end. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ result: T; base: number; peak: number }> {
  collectGarbage();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage().rss);
  };
  const timer = setInterval(sample, 20);
  try {
    const result = await work();
    sample();
    return { result, base, peak };
  } finally {
    clearInterval(timer);
  }
}

/** Wraps an async function to add its wall time to a tally. */
const timed =
  <A extends unknown[], R>(fn: (...args: A) => Promise<R>, add: (ms: number) => void) =>
  async (...args: A): Promise<R> => {
    const started = performance.now();
    try {
      return await fn(...args);
    } finally {
      add(performance.now() - started);
    }
  };

/** The local path and rows of each symbol-day's visible file (keyed `day|symbol`); throws on anything but a day file. */
async function dayFiles(deps: ArchiveDeps, days: readonly string[]): Promise<Map<string, { path: string; rows: number }>> {
  const bySlot = new Map<string, { path: string; rows: number }>();
  for (const day of days) {
    const files = visibleFiles(await deps.manifest.compactedFilesOfDay('trades', 'perpx', day), []);
    const paths = await deps.files.paths(files);
    files.forEach((file, i) => {
      if (file.tier !== undefined || file.symbol === undefined) throw new Error(`not a symbol-day file: ${file.key}`);
      bySlot.set(`${day}|${file.symbol}`, { path: paths[i]!, rows: file.rows });
    });
  }
  return bySlot;
}

export async function benchExport(): Promise<void> {
  const env = await startScratchEmulators();
  const floorDb = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
  try {
    const deps = archiveDeps();
    // Seven UTC days that closed at least a day ago (so compaction writes their day files at once).
    const end = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS;
    const start = end - DAYS * DAY_MS;
    const seedStarted = performance.now();
    let ingestMs = 0;
    const ingested = await seedWeek(start, async (records) => {
      const t = performance.now();
      const outcome = await ingestRecords(deps, records);
      ingestMs += performance.now() - t;
      if (outcome.status !== 'ingested') throw new Error(`batch not ingested: ${JSON.stringify(outcome)}`);
    });
    const seedS = (performance.now() - seedStarted) / 1000;
    const compactStarted = performance.now();
    await compactArchive(deps, { datasets: ['trades'] });
    const compactS = (performance.now() - compactStarted) / 1000;
    if ((await deps.manifest.deltaFiles('trades', 'perpx', dayOf(start), dayOf(end - 1))).length > 0) throw new Error('deltas left after compaction');

    const now = Date.now();
    const plan = await planExport(deps.manifest, { schema: 'trades', family: 'perpx', start, end, dry_run: false }, now);
    const job: ExportJobRecord = {
      accountId: 'acct_bench',
      jobId: newExportId(now),
      state: 'queued',
      schema: 'trades',
      family: 'perpx',
      symbols: plan.quote.symbols,
      from: start,
      to: end,
      createdAt: now,
      quote: plan.quote,
      partitionsTotal: plan.partitions.length,
      partitionsDone: 0,
      rowsWritten: 0,
      bytesWritten: 0,
    };
    const store = exportStore();
    await store.createJob(job, plan.partitions);
    const files = await dayFiles(deps, [...new Set(plan.partitions.map((p) => p.d))]);
    const slotOf = (p: { s: string; d: string }) => files.get(`${p.d}|${p.s}`)!;
    const largest = plan.partitions.reduce((a, b) => (slotOf(b).rows > slotOf(a).rows ? b : a));

    // The handler's DuckDB COPY and its upload, timed apart (exportPartition runs one query, the COPY, per partition).
    const spent = { copy: 0, upload: 0 };
    const objects = exportObjects();
    const partitionDeps: PartitionDeps = {
      ...deps,
      exports: store,
      sql: {
        ...deps.sql,
        query: <R extends object>(query: SqlQuery) =>
          timed(deps.sql.query<R>, (t) => {
            spent.copy += t;
          })(query),
      },
      exportObjects: {
        ...objects,
        putFile: timed(objects.putFile, (t) => {
          spent.upload += t;
        }),
      },
    };
    const format = EXPORT_FORMATS.trades;
    // The same projection and order as the handler's (partition.ts builds them from the same format).
    const floorSql = `COPY (SELECT ${format.columns.map((c) => `${c.sql} AS "${c.name}"`).join(', ')}
        FROM read_parquet($files) WHERE symbol = $symbol AND ts BETWEEN $from AND $to ORDER BY ${format.orderBy.map((c) => `"${c}"`).join(', ')})
      TO $path (FORMAT parquet, COMPRESSION zstd)`;
    const floorPath = join(deps.scratchDir, 'export-floor.parquet');

    const types = { files: LIST(VARCHAR), symbol: VARCHAR, from: BIGINT, to: BIGINT, path: VARCHAR };

    type Run = { ms: number; rows: number; bytes: number };
    const runHandler = async (partition: ExportPartition): Promise<Run> => {
      const started = performance.now();
      const outcome = await exportPartition(partitionDeps, job, partition);
      const ms = performance.now() - started;
      if (outcome.status !== 'written') throw new Error(`partition ${partition.i}: ${JSON.stringify(outcome)}`);
      return { ms, rows: outcome.rows, bytes: outcome.bytes };
    };
    const runFloor = async (partition: ExportPartition): Promise<Run> => {
      const dayStart = Date.parse(`${partition.d}T00:00:00Z`);
      const started = performance.now();
      const reader = await floorDb.runAndReadAll(
        floorSql,
        {
          files: listValue([slotOf(partition).path]),
          symbol: partition.s,
          from: BigInt(Math.max(start, dayStart)),
          to: BigInt(Math.min(end, dayStart + DAY_MS) - 1),
          path: floorPath,
        },
        types,
      );
      const ms = performance.now() - started;
      const bytes = statSync(floorPath).size;
      rmSync(floorPath);
      return { ms, rows: Number(reader.getRowObjectsJS()[0]?.Count), bytes };
    };

    const handler = { ms: 0, rows: 0, bytes: 0 };
    const floor = { ms: 0, rows: 0, bytes: 0 };
    const atLargest: { memory?: { base: number; peak: number }; runs?: [Run, Run] } = {};
    for (const partition of plan.partitions) {
      // The largest partition's RSS is sampled (its garbage collection comes before its timing starts).
      const exported = () =>
        partition === largest
          ? peakRss(() => runHandler(partition)).then((m) => {
              atLargest.memory = m;
              return m.result;
            })
          : runHandler(partition);
      // Which runs first alternates, so neither always finds the machine (or the files) warmer.
      let h: Run;
      let f: Run;
      if (partition.i % 2 === 0) {
        h = await exported();
        f = await runFloor(partition);
      } else {
        f = await runFloor(partition);
        h = await exported();
      }
      if (h.rows !== f.rows || h.rows !== slotOf(partition).rows)
        throw new Error(`partition ${partition.i}: handler ${h.rows} rows, floor ${f.rows}, file ${slotOf(partition).rows}`);
      for (const [total, run] of [
        [handler, h],
        [floor, f],
      ] as const) {
        total.ms += run.ms;
        total.rows += run.rows;
        total.bytes += run.bytes;
      }
      if (partition === largest) atLargest.runs = [h, f];
    }
    // The whole job as the state machine runs it: 8 partitions at a time (EXPORT_PARALLELISM), a second job over the same files.
    const concurrent = { ...job, jobId: newExportId(Date.now()) };
    await store.createJob(concurrent, plan.partitions);
    const queue = [...plan.partitions];
    const jobStarted = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await exportPartition({ ...deps, exports: store, exportObjects: objects }, concurrent, next);
      }),
    );
    const jobMs = performance.now() - jobStarted;
    const progress = await store.getJob(job.accountId, job.jobId);
    if (progress?.partitionsDone !== plan.partitions.length || progress.rowsWritten !== ingested || handler.rows !== ingested) {
      throw new Error(`job counted ${progress?.partitionsDone} partitions and ${progress?.rowsWritten} rows; ${handler.rows} exported of ${ingested}`);
    }

    const rate = (run: { ms: number; rows: number }) => run.rows / (run.ms / 1000);
    const mbRate = (run: { ms: number; bytes: number }) => run.bytes / MB / (run.ms / 1000);
    console.log(
      `\nBulk export (perpx trades, ${DAYS} days, ${plan.quote.symbols.length} symbols: ${ingested.toLocaleString()} rows in ${plan.partitions.length} symbol-day files; `
        + `generated and ingested in ${seedS.toFixed(0)} s (ingest ${(ingestMs / 1000).toFixed(0)} s), compacted in ${compactS.toFixed(0)} s)`,
    );
    figure(
      {
        name: 'export: one partition worker (sequential), rows/s written',
        value: Math.round(rate(handler)),
        unit: 'rows/s',
        floor: Math.round(rate(floor)),
        ratio: floor.ms / handler.ms,
        samples: plan.partitions.length,
      },
      `${Math.round(rate(handler)).toLocaleString()} rows/s  (${handler.rows.toLocaleString()} rows in ${(handler.ms / 1000).toFixed(1)} s, ${plan.partitions.length} partitions)`,
    );
    figure(
      {
        name: 'export: one partition worker (sequential), MB/s written (10^6 bytes)',
        value: mbRate(handler),
        unit: 'MB/s',
        floor: mbRate(floor),
        ratio: mbRate(handler) / mbRate(floor),
        samples: plan.partitions.length,
      },
      `${mbRate(handler).toFixed(2)} MB/s  (${(handler.bytes / MB).toFixed(1)} MB of ZSTD Parquet)`,
    );
    row(
      '  DuckDB alone: COPY of the same rows, same projection, same files (floor)',
      `${Math.round(rate(floor)).toLocaleString()} rows/s, ${mbRate(floor).toFixed(2)} MB/s  (${(floor.ms / 1000).toFixed(1)} s, ${(floor.bytes / MB).toFixed(1)} MB)`,
    );
    row('  handler / floor throughput', `${(floor.ms / handler.ms).toFixed(2)}`);
    figure(
      {
        name: 'export: the job, 8 partitions at a time (as the state machine runs them), rows/s written',
        value: Math.round(ingested / (jobMs / 1000)),
        unit: 'rows/s',
        floor: Math.round(rate(floor)),
        ratio: floor.ms / jobMs,
        samples: 1,
      },
      `${Math.round(ingested / (jobMs / 1000)).toLocaleString()} rows/s  (${(jobMs / 1000).toFixed(1)} s; ${(floor.ms / jobMs).toFixed(2)} of the floor)`,
    );
    const rest = handler.ms - spent.copy - spent.upload;
    figure({ name: "  of which the handler's DuckDB COPY", value: spent.copy / 1000, unit: 's' });
    figure({ name: '  of which the upload to the exports bucket (s3rver)', value: spent.upload / 1000, unit: 's' });
    figure(
      { name: '  the rest (job store, manifest, row count, SHA-256)', value: rest / 1000, unit: 's' },
      `${(rest / 1000).toFixed(2)} s  (${(rest / plan.partitions.length).toFixed(1)} ms a partition)`,
    );
    const [lh, lf] = atLargest.runs!;
    const { base, peak } = atLargest.memory!;
    row(
      `  largest partition (${largest.s} ${largest.d}, ${lh.rows.toLocaleString()} rows): handler / floor`,
      `${ms(lh.ms)} / ${ms(lf.ms)} = ${(lf.ms / lh.ms).toFixed(2)} of the floor's throughput`,
    );
    const growth = (peak - base) / MIB;
    figure(
      { name: `export: peak RSS growth, one partition (${lh.rows.toLocaleString()} rows, sampled every 20 ms)`, value: growth, unit: 'MB' },
      `+${growth.toFixed(0)} MB over ${(base / MIB).toFixed(0)} MB (peak ${(peak / MIB).toFixed(0)} MB): this process's RSS, DuckDB's native memory included`,
    );
  } finally {
    floorDb.closeSync();
    await env.stop();
  }
}
