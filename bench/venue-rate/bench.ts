/**
 * `npm run bench -- --only venue-rate [--minutes N] [--scale S]` (issue 43): the venue-rate
 * generator's market (mainnet's BTC figures; `--scale` up to exchange-wide) through the real ingest
 * code in the node's own formats (parse, checks, Parquet, s3rver, manifest in dynalite), one worker;
 * then compaction of what was ingested, step by step (the open hour's delta merge, the hour fold,
 * the day fold), each step's time and peak resident memory; the bytes stored per resting order,
 * order event and diff; and the L4 book at random instants of the run beside DuckDB alone on the
 * same files. A BTC hour is 44 million order events: on a small machine `--minutes` runs a part of
 * it, and the figures say what the hour projects to (time grows with rows; memory does not).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { DuckDBInstance, listValue, LIST, VARCHAR, BIGINT } from '@duckdb/node-api';
import { ingestBatch } from '#core/archive/ingest.ts';
import { DAY_FOLD_STEP_ROWS, SETTLE_MS, compactArchive } from '#core/archive/compact.ts';
import { visibleFiles } from '#core/archive/files.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { startScratchEmulators } from '#local/scratch-emulators.ts';
import { VenueRateGenerator } from '#local/venue/generator.ts';
import { venueBatches, type VenueFormat } from '#local/venue/batches.ts';
import { Rng } from '#local/demo/random.ts';
import type { BatchFormat } from '#schemas/messages.ts';
import type { Dataset } from '#schemas/datasets.ts';
import { compareToFloor, figure, routeInvoker } from '../stats.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Exchange-wide over BTC: one mainnet block held 843 raw book diffs, 221 of them BTC's. */
const EXCHANGE_OVER_BTC = 843 / 221;

/** The process's peak resident memory since the last reset (Linux: VmHWM, reset by writing 5 to clear_refs). */
const peak = {
  reset(): boolean {
    try {
      writeFileSync('/proc/self/clear_refs', '5');
      return true;
    } catch {
      return false;
    }
  },
  mb(): number {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  },
};

export async function benchVenueRate(options: { minutes: number; scale: number; seed?: number }): Promise<void> {
  const env = await startScratchEmulators();
  try {
    let now = 0;
    const deps = { ...archiveDeps(), clock: { now: () => now } };
    // An hour two days back: its day closes on the bench's clock, and reads see it as history.
    const start = Math.floor((Date.now() - 2 * DAY) / DAY) * DAY + 12 * HOUR;
    const end = start + options.minutes * 60_000;
    const generator = new VenueRateGenerator({ seed: options.seed ?? 43, scale: options.scale, startMs: start });
    const byFormat = new Map<BatchFormat, { rows: number; ms: number; bytes: number }>();
    // CPU time of this process (DuckDB's threads and the emulators' work included): the machine's other load does not enter it.
    let ingestCpuMs = 0;
    const ingest = async (format: BatchFormat, text: string, at?: number) => {
      now = (at ?? now) + 1_000;
      const t = performance.now();
      const cpu = process.cpuUsage();
      const outcome = await ingestBatch(deps, format, text, undefined, at === undefined ? {} : { at });
      const ms = performance.now() - t;
      const used = process.cpuUsage(cpu);
      if (format !== 'node_l4_snapshot') ingestCpuMs += (used.user + used.system) / 1000;
      if (outcome.status !== 'ingested') throw new Error(`${format} batch not ingested: ${JSON.stringify(outcome).slice(0, 400)}`);
      const seen = byFormat.get(format) ?? { rows: 0, ms: 0, bytes: 0 };
      byFormat.set(format, { rows: seen.rows + outcome.records, ms: seen.ms + ms, bytes: seen.bytes + Buffer.byteLength(text) });
    };

    const first = generator.snapshot();
    await ingest('node_l4_snapshot', first.text, first.at);
    let generateMs = 0;
    let checkpoints = 1;
    let restingInCheckpoints = generator.resting;
    const batches = venueBatches(generator, end);
    // The schedule compacts every minute: each run merges the minute's ingest deltas of the open hour.
    const merges: { ms: number; cpuMs: number; rows: number; peakMb: number }[] = [];
    let rewritten = 0;
    const merge = async (at: number) => {
      now = at;
      const measured = peak.reset();
      const t = performance.now();
      const cpu = process.cpuUsage();
      const report = await compactArchive(deps);
      const used = process.cpuUsage(cpu);
      merges.push({ ms: performance.now() - t, cpuMs: (used.user + used.system) / 1000, rows: report.rowsWritten, peakMb: measured ? peak.mb() : Number.NaN });
      rewritten += report.rowsWritten;
    };
    let nextMerge = start + 60_000;
    for (let t = performance.now(), next = batches.next(); !next.done; t = performance.now(), next = batches.next()) {
      generateMs += performance.now() - t;
      const batch = next.value;
      if (batch.toMs >= nextMerge) {
        await merge(nextMerge + 30_000);
        nextMerge += 60_000;
      }
      now = batch.toMs;
      for (const [format, { text, lines }] of Object.entries(batch.texts) as [VenueFormat, { text: string; lines: number }][]) {
        // A format with no event in the span sends no batch (ingest refuses an empty one).
        if (lines > 0) await ingest(format, text);
      }
      if (batch.snapshot) {
        await ingest('node_l4_snapshot', batch.snapshot.text, batch.snapshot.at);
        checkpoints += 1;
        restingInCheckpoints += generator.resting;
      }
    }
    const simulatedS = (end - start) / 1000;
    const streamed = [...byFormat].filter(([format]) => format !== 'node_l4_snapshot');
    const rows = streamed.reduce((n, [, f]) => n + f.rows, 0);
    const ingestMs = streamed.reduce((n, [, f]) => n + f.ms, 0);
    const perWorker = rows / (ingestMs / 1000);
    const btcRowsPerS = rows / simulatedS / options.scale;
    console.log(
      `\nVenue rate (${options.minutes} min of ${generator.markets.length} market(s), scale ${options.scale}: ${rows.toLocaleString()} rows; generated in ${(generateMs / 1000).toFixed(0)} s, not counted)`,
    );
    for (const [format, f] of byFormat)
      console.log(
        `  ${format.padEnd(34)} ${f.rows.toLocaleString().padStart(11)} rows  ${(f.rows / (f.ms / 1000)).toFixed(0).padStart(7)} rows/s  ${(f.bytes / f.rows).toFixed(0)} bytes of input a row`,
      );
    figure({ name: 'ingest: rows/s per worker, node streamed formats (statuses, diffs, fills)', value: Math.round(perWorker), unit: 'rows/s' });
    figure({ name: 'ingest: rows per CPU-second of the bench process (emulators included)', value: Math.round(rows / (ingestCpuMs / 1000)), unit: 'rows/s' });
    figure(
      { name: 'ingest: one worker over real time at the BTC rate (goal >= 1.0x)', value: perWorker / btcRowsPerS, unit: 'x' },
      `${(perWorker / btcRowsPerS).toFixed(2)}x (BTC writes ${Math.round(btcRowsPerS).toLocaleString()} rows/s)`,
    );
    figure({
      name: `ingest: workers needed exchange-wide (${EXCHANGE_OVER_BTC.toFixed(2)}x BTC)`,
      value: Math.ceil((EXCHANGE_OVER_BTC * btcRowsPerS) / perWorker),
      unit: 'workers',
    });
    // The same by CPU time: what a worker with a core of its own does, whatever else loads this machine.
    const perCpu = rows / (ingestCpuMs / 1000);
    figure({ name: 'ingest: one worker over real time at the BTC rate, by CPU time', value: perCpu / btcRowsPerS, unit: 'x' });
    figure({ name: `ingest: workers needed exchange-wide, by CPU time`, value: Math.ceil((EXCHANGE_OVER_BTC * btcRowsPerS) / perCpu), unit: 'workers' });
    const snapshots = byFormat.get('node_l4_snapshot')!;
    figure({
      name: `ingest: one L4 snapshot of ${Math.round(restingInCheckpoints / checkpoints).toLocaleString()} orders`,
      value: snapshots.ms / checkpoints,
      unit: 'ms',
      samples: checkpoints,
    });

    // Compaction: the last minute's merge, then the hour folded once settled, then the day.
    await merge(end + 30_000);
    const ingestedRows = rows + snapshots.rows;
    const longest = merges.reduce((a, b) => (b.ms > a.ms ? b : a));
    figure(
      {
        name: "compaction, merge of a minute of the open hour's ingest deltas (each scheduled run): longest",
        value: longest.ms / 1000,
        unit: 's',
        samples: merges.length,
      },
      `${(longest.ms / 1000).toFixed(1)} s for ${longest.rows.toLocaleString()} rows (runs: ${merges.map((m) => (m.ms / 1000).toFixed(1)).join(' ')} s; goal <= 60 s)`,
    );
    figure({ name: 'compaction, merge of a minute of ingest deltas: CPU seconds of the longest run', value: longest.cpuMs / 1000, unit: 's' });
    figure({
      name: 'compaction, merge of a minute of ingest deltas: peak resident memory of the process',
      value: Math.max(...merges.map((m) => m.peakMb)),
      unit: 'MB',
    });
    // What a step of each fold would rewrite at the BTC rate: the whole symbol-hour; of a day, at most
    // DAY_FOLD_STEP_ROWS (a BTC day is past it, so it stays in hour files: no step folds it).
    const btcRowsPerHour = (rows / simulatedS / options.scale) * 3_600;
    let hourFoldRows = 0;
    for (const [i, [step, at, target, what]] of (
      [
        ['fold of the closed hour into symbol-hour files', start + HOUR + SETTLE_MS + 60_000, btcRowsPerHour, 'a BTC symbol-hour in one step'],
        [
          'fold of the closed day into symbol-day files',
          Math.floor(start / DAY) * DAY + DAY + SETTLE_MS + 60_000,
          Math.min(24 * btcRowsPerHour, DAY_FOLD_STEP_ROWS),
          'a step of DAY_FOLD_STEP_ROWS rows',
        ],
      ] as const
    ).entries()) {
      now = at;
      const measured = peak.reset();
      const t = performance.now();
      const cpu = process.cpuUsage();
      const report = await compactArchive(deps);
      const s = (performance.now() - t) / 1000;
      const used = process.cpuUsage(cpu);
      const cpuS = (used.user + used.system) / 1e6;
      rewritten += report.rowsWritten;
      if (i === 0) hourFoldRows = report.rowsWritten;
      const share = target / report.rowsWritten;
      figure({ name: `compaction, ${step}: time`, value: s, unit: 's' }, `${s.toFixed(1)} s for ${report.rowsWritten.toLocaleString()} rows`);
      // Time grows with the rows a step rewrites.
      figure(
        { name: `compaction, ${step}: time projected to ${what}`, value: s * share, unit: 's' },
        `${(s * share).toFixed(0)} s for ${(target / 1e6).toFixed(1)} M rows (goal <= 60 s a step)`,
      );
      figure({ name: `compaction, ${step}: CPU seconds`, value: cpuS, unit: 's' });
      figure({ name: `compaction, ${step}: CPU seconds projected to ${what}`, value: cpuS * share, unit: 's' });
      if (measured) figure({ name: `compaction, ${step}: peak resident memory of the process`, value: peak.mb(), unit: 'MB' });
    }
    figure({ name: 'compaction: rows rewritten per row ingested (goal <= 3)', value: rewritten / ingestedRows, unit: 'rows' });
    // A BTC day at the venue's rate is past the day fold's step bound: its hour files are its last tier.
    const btcDayRows = (rows / simulatedS / options.scale) * 86_400;
    figure({
      name: "compaction: rows rewritten per row ingested, a BTC day at the venue's rate (past DAY_FOLD_STEP_ROWS: kept in hour files)",
      value: btcDayRows > DAY_FOLD_STEP_ROWS ? (merges.reduce((n, m) => n + m.rows, 0) + hourFoldRows) / ingestedRows : rewritten / ingestedRows,
      unit: 'rows',
    });

    // Storage, from the day files a reader sees.
    const filesOf = async (dataset: Dataset) =>
      (
        await Promise.all(
          generator.markets.map(async ({ symbol }) =>
            visibleFiles(await deps.manifest.compactedFiles(dataset, 'perpx', symbol, '2000-01-01', '2999-12-31'), [], symbol),
          ),
        )
      ).flat();
    const [checkpointFiles, orderFiles, eventFiles, diffFiles] = await Promise.all([
      filesOf('l4_checkpoints'),
      filesOf('l4_checkpoint_orders'),
      filesOf('order_events'),
      filesOf('l4_diffs'),
    ]);
    const bytes = (files: typeof eventFiles) => files.reduce((n, f) => n + f.bytes, 0);
    const count = (files: typeof eventFiles) => files.reduce((n, f) => n + f.rows, 0);
    // The columnar rows the book is read from; the JSON sides stay as ingested (the rows derive from them).
    figure({ name: 'L4 checkpoint storage: bytes per resting order (goal <= 40)', value: bytes(orderFiles) / restingInCheckpoints, unit: 'bytes' });
    figure({
      name: 'L4 checkpoint storage: bytes per resting order of the JSON sides as ingested',
      value: bytes(checkpointFiles) / restingInCheckpoints,
      unit: 'bytes',
    });
    figure({ name: 'order events: bytes stored per event', value: bytes(eventFiles) / count(eventFiles), unit: 'bytes' });
    figure({ name: 'L4 diffs: bytes stored per diff', value: bytes(diffFiles) / count(diffFiles), unit: 'bytes' });

    await benchBook(
      deps,
      diffFiles.filter((f) => f.symbol === 'BTC'),
      checkpointFiles.filter((f) => f.symbol === 'BTC'),
      orderFiles.filter((f) => f.symbol === 'BTC'),
      start,
      end,
    );
  } finally {
    await env.stop();
  }
}

type Deps = ReturnType<typeof archiveDeps>;

const L4_PAGE_DEPTH = 1_000;

/** The BTC L4 book at random instants of the run, through the route's handler, beside DuckDB alone reading the same rows. */
async function benchBook(
  deps: Deps,
  diffFiles: Parameters<Deps['files']['paths']>[0],
  checkpointFiles: Parameters<Deps['files']['paths']>[0],
  orderFiles: Parameters<Deps['files']['paths']>[0],
  start: number,
  end: number,
): Promise<void> {
  const { handler } = await import('#functions/http/orderbook.ts');
  const route = routeInvoker(handler, 'orderbook');
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const connection = await instance.connect();
  const [diffs, checkpoints, orders] = [
    listValue(await deps.files.paths(diffFiles)),
    listValue(await deps.files.paths(checkpointFiles)),
    listValue(await deps.files.paths(orderFiles)),
  ];
  const types = { files: LIST(VARCHAR), from: BIGINT, to: BIGINT };
  const rng = new Rng(11);
  let at = start;
  const pick = () => {
    at = start + 1_000 + rng.int(end - start - 1_000);
    return String(at);
  };
  const floor = async () => {
    const newest = await connection.runAndReadAll(
      `SELECT max(ts) AS ts FROM read_parquet($files) WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to`,
      { files: checkpoints, from: BigInt(at - DAY), to: BigInt(at) },
      types,
    );
    const from = newest.getRowObjects()[0]!.ts as bigint;
    // The files the route reads: the checkpoint's order rows (columnar), then the diffs after it.
    await connection.runAndReadAll(
      `SELECT side, rank, oid, user_address, price, size, placed_at FROM read_parquet($files) WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to`,
      { files: orders, from, to: from },
      types,
    );
    await connection.runAndReadAll(
      `SELECT ts, block_number, oid, user_address, side, price, diff_type, new_size, insert_before FROM read_parquet($files)
      WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to ORDER BY block_number, seq`,
      { files: diffs, from, to: BigInt(at) },
      types,
    );
  };
  // A page of the 1,000 best orders a side (the whole 51,000-order book is 9.5 MB, past Lambda's 6 MB
  // answer: refused as response_too_large); the book behind it is rebuilt whole all the same.
  await compareToFloor(
    `L4 book at a random instant, ${L4_PAGE_DEPTH.toLocaleString('en-US')} orders a side (BTC, ~51,000 orders; goal p50 <= 150 ms, p99 <= 400 ms, <= 1.3x DuckDB)`,
    () => route('/v1/perpx/orderbook/{symbol}/l4', '/v1/perpx/orderbook/BTC/l4', { symbol: 'BTC' }, { timestamp: pick(), depth: String(L4_PAGE_DEPTH) }),
    floor,
    { runs: 60 },
  );
  connection.closeSync();
}
