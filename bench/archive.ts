/**
 * Archive figures: ingest throughput through the real ingest code (Parquet written with DuckDB,
 * uploaded to s3rver, manifest in dynalite), bytes per trade row after compaction, and the
 * reader's time for a 1000-row time-range read next to DuckDB reading the same local files
 * directly (the floor).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { DATASETS, INGESTED_DATASETS, rowGroupRowsOf, sortOrderOf, type IngestedDataset } from '../schemas/datasets.ts';
import { ingestBatch } from '../functions/core/archive/ingest.ts';
import { SCHEDULED_FOLD_BUDGET_MS, SETTLE_MS, compactArchive } from '../functions/core/archive/compact.ts';
import { readWindow } from '../functions/core/archive/read-pages.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { createDemoMarket } from '../functions/local/demo/market.ts';
import { startScratchEmulators } from '../functions/local/scratch-emulators.ts';
import { compareToFloor, figure, row } from './stats.ts';

const HOUR = 3_600_000;
const MINUTE = 60_000;

/**
 * Compaction through a day of the demo market on a clock the bench moves: a batch every five
 * minutes, compaction after each (with the scheduled run's fold budget), then the day closing.
 * Prints rows rewritten per row ingested and the longest run per hour of the day (the schedule runs
 * every minute).
 */
export async function benchCompactionDay(options: { hours: number }): Promise<void> {
  const env = await startScratchEmulators();
  try {
    let now = 0;
    const deps = { ...archiveDeps(), clock: { now: () => now } };
    const day = Math.floor((Date.now() - 2 * 24 * HOUR) / (24 * HOUR)) * 24 * HOUR;
    const market = createDemoMarket({ seed: 7, startMs: day, intensity: 1 });
    let ingested = 0;
    let rewritten = 0;
    const longestPerHour: number[] = [];
    for (let end = day + 5 * MINUTE; end <= day + options.hours * HOUR; end += 5 * MINUTE) {
      const batch = market.advance(end);
      ingested += batch.length;
      now = end + 1_000;
      await ingestBatch(deps, 'normalized', batch.map((r) => JSON.stringify(r)).join('\n'));
      now = end + 30_000;
      const t = performance.now();
      rewritten += (await compactArchive(deps, { foldBudgetMs: SCHEDULED_FOLD_BUDGET_MS })).rowsWritten;
      const hour = Math.floor((end - 1 - day) / HOUR);
      longestPerHour[hour] = Math.max(longestPerHour[hour] ?? 0, performance.now() - t);
    }
    // The day closes: runs a minute apart until every fold is done.
    const closing: number[] = [];
    for (now = day + 24 * HOUR + SETTLE_MS + MINUTE; ; now += MINUTE) {
      const t = performance.now();
      const report = await compactArchive(deps, { foldBudgetMs: SCHEDULED_FOLD_BUDGET_MS });
      closing.push(performance.now() - t);
      rewritten += report.rowsWritten;
      if (report.foldsDeferred === 0) break;
    }
    console.log(`\nCompaction through a day (${options.hours} h of the demo market, ${ingested.toLocaleString()} records, a batch and a run every 5 minutes)`);
    figure({ name: 'compaction: rows rewritten per row ingested (goal <= 3)', value: rewritten / ingested, unit: 'rows' });
    figure(
      { name: 'compaction: longest run in any hour of the day', value: Math.max(...longestPerHour) / 1000, unit: 's' },
      `${longestPerHour.map((v) => `${(v / 1000).toFixed(1)}`).join(' ')} s (by hour)`,
    );
    figure(
      { name: 'compaction: longest run folding the closed day', value: Math.max(...closing) / 1000, unit: 's', samples: closing.length },
      `${closing.map((v) => `${(v / 1000).toFixed(1)}`).join(' ')} s (runs a minute apart)`,
    );
  } finally {
    await env.stop();
  }
}

/**
 * The ingest floor: DuckDB alone turning a batch's JSON lines into ZSTD Parquet, one file per
 * dataset: one read of the lines with every ingested dataset's declared columns (no type inference,
 * no validation), then a sorted COPY per dataset; no upload, no manifest.
 */
function copyOf(db: DuckDBConnection): (bytes: Uint8Array, datasets: ReadonlySet<IngestedDataset>) => Promise<void> {
  const columns = new Map<string, string>(INGESTED_DATASETS.flatMap((d) => DATASETS[d].columns.map((c) => [c.name, c.type] as const)));
  const types = [`"dataset": 'VARCHAR'`, ...[...columns].map(([name, type]) => `"${name}": '${type}'`)].join(', ');
  return async (bytes, datasets) => {
    const file = join(tmpdir(), `bench-ingest-floor-${process.pid}.jsonl`);
    writeFileSync(file, bytes);
    try {
      await db.run(
        `CREATE OR REPLACE TEMP TABLE batch AS SELECT * FROM read_json('${file}', format = 'newline_delimited', maximum_object_size = 134217728, columns = {${types}})`,
      );
      for (const dataset of datasets) {
        await db.run(`COPY (SELECT ${DATASETS[dataset].columns.map((c) => `"${c.name}"`).join(', ')} FROM batch
            WHERE dataset = '${dataset}' ORDER BY ${sortOrderOf(dataset)
              .map((c) => `"${c}"`)
              .join(', ')})
          TO '${file}.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroupRowsOf(dataset)})`);
        rmSync(`${file}.parquet`, { force: true });
      }
    } finally {
      rmSync(file, { force: true });
    }
  };
}

export async function benchArchive(options: { hours: number }): Promise<void> {
  const env = await startScratchEmulators();
  try {
    const deps = archiveDeps();
    const start = Math.floor((Date.now() - (options.hours + 1) * HOUR) / HOUR) * HOUR;
    const market = createDemoMarket({ seed: 7, startMs: start });

    // Each batch is ingested, then DuckDB alone turns the same lines into Parquet (the floor), so both see the same machine.
    const copyDb = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
    const copyFloor = copyOf(copyDb);
    let records = 0;
    let trades = 0;
    let ingestMs = 0;
    let copyMs = 0;
    for (let h = 1; h <= options.hours; h++) {
      const batch = market.advance(start + h * HOUR);
      records += batch.length;
      trades += batch.filter((r) => r.dataset === 'trades').length;
      // Bytes, as the queue's consumer hands a batch read from S3 to ingest.
      const bytes = Buffer.from(batch.map((r) => JSON.stringify(r)).join('\n'));
      let t = performance.now();
      await ingestBatch(deps, 'normalized', bytes);
      ingestMs += performance.now() - t;
      t = performance.now();
      await copyFloor(bytes, new Set(batch.map((r) => r.dataset)));
      copyMs += performance.now() - t;
    }
    const ingestRate = records / (ingestMs / 1000);
    const copyRate = records / (copyMs / 1000);

    // Live batches: one second of the market each, as the collector lands them.
    let liveEnd = start + options.hours * HOUR;
    let liveRecords = 0;
    const liveBatches = () => {
      const batch = market.advance((liveEnd += 1000));
      liveRecords += batch.length;
      return { bytes: Buffer.from(batch.map((r) => JSON.stringify(r)).join('\n')), datasets: new Set(batch.map((r) => r.dataset)) };
    };
    console.log(`\nLive one-second batches of the demo market`);
    await compareToFloor(
      'ingest of a live one-second batch (parse+Parquet+S3+manifest)',
      ({ bytes }) => ingestBatch(deps, 'normalized', bytes),
      ({ bytes, datasets }) => copyFloor(bytes, datasets),
      { pick: liveBatches, floorLabel: 'DuckDB COPY of the same lines (floor)' },
    );
    row('  records per live batch', `${(liveRecords / 201).toFixed(0)} on average`);
    copyDb.closeSync();

    const t = performance.now();
    await compactArchive(deps);
    const compactMs = performance.now() - t;

    const compacted = (
      await Promise.all(['BTC', 'ETH', 'SOL', 'HYPE'].map((s) => deps.manifest.compactedFiles('trades', 'perpx', s, '2000-01-01', '2999-12-31')))
    ).flat();
    const bytes = compacted.reduce((sum, f) => sum + f.bytes, 0);
    const rows = compacted.reduce((sum, f) => sum + f.rows, 0);

    console.log(`\nArchive (${options.hours} h of the demo market: ${records.toLocaleString()} records, ${trades.toLocaleString()} trades)`);
    figure(
      {
        name: 'ingest throughput (records/s, parse+Parquet+S3+manifest)',
        value: Math.round(ingestRate),
        unit: 'records/s',
        floor: Math.round(copyRate),
        ratio: ingestRate / copyRate,
      },
      `${Math.round(ingestRate).toLocaleString()} records/s; DuckDB COPY of the same lines ${Math.round(copyRate).toLocaleString()} (${(ingestRate / copyRate).toFixed(2)} of it, batch by batch)`,
    );
    figure({ name: 'compaction of everything ingested', value: compactMs, unit: 'ms' });
    figure({ name: 'bytes per trade row on disk (ZSTD, compacted)', value: bytes / rows, unit: 'bytes' });

    // A 1000-row page from the middle of BTC's history, cache warm.
    const from = start + Math.floor(options.hours / 2) * HOUR;
    const request = { dataset: 'trades' as const, family: 'perpx' as const, symbol: 'BTC', from, to: start + options.hours * HOUR, limit: 1000 };
    const first = await readWindow(deps, request);
    const files = await deps.files.paths(compacted.filter((f) => f.symbol === 'BTC' && f.maxTs >= from).slice(0, first.filesRead));
    const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
    const connection = await instance.connect();
    const floorSql = `SELECT * FROM read_parquet($files) WHERE symbol = $symbol AND ts BETWEEN $from AND $to ORDER BY ts, trade_id LIMIT 1000`;
    const { listValue, LIST, VARCHAR, BIGINT } = await import('@duckdb/node-api');
    // The floor reads the same rows into JavaScript objects, as the reader hands them on.
    const floor = async () =>
      (
        await connection.runAndReadAll(
          floorSql,
          { files: listValue(files), symbol: 'BTC', from: BigInt(from), to: BigInt(request.to) },
          { files: LIST(VARCHAR), symbol: VARCHAR, from: BIGINT, to: BIGINT },
        )
      ).getRowObjectsJS();
    await compareToFloor(
      `reader, 1000-row range read (${first.rows.length} rows, ${first.filesRead} files), rows to JS`,
      () => readWindow(deps, request),
      floor,
    );
    connection.closeSync();
  } finally {
    await env.stop();
  }
}
