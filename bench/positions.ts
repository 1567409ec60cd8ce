/**
 * Positions figures, on synthetic core (`perpx`) data in scratch emulators, through the real ingest,
 * compaction, positions job and route handler (in-process, manifest in dynalite, files in the warm
 * local cache); each read beside DuckDB alone reading the same rows from the same files (the floor):
 *   1. As-of reconstruction: 5 markets, one market-maker wallet with 100,000 fills over 5 days
 *      (`start_position` chained exactly) among 2,000 wallets of about 50 fills each, marks every
 *      minute, funding hourly. The job is run to 1, 3 and 5 days built (test clock) and the datasets
 *      compacted; at each, `/wallets/{address}/positions?timestamp=` at random non-hour instants (the
 *      hour's snapshot plus up to an hour of the wallet's legs), p50/p95 over 100 warm calls, so the
 *      read is seen to stay flat as history grows; floor: the wallet's snapshot rows at the hour and
 *      its legs up to the instant. Then `/wallets/classify` over one folded day: statistics rows a
 *      call combines beside the day's raw rows, and its p50.
 *   2. The snapshot job: 100,000 wallets x 1-3 markets opened by about 300,000 fills within one hour;
 *      one job step over that hour (fills read, folded, 200,000 rows snapshotted, legs and snapshot
 *      written through ingest): wall time, where it went, rows written, peak RSS and JS heap.
 *   3. The bulk hour: 1,000,000 snapshot rows of one hour ingested directly as normalized
 *      `position_snapshots` records (the job would take far longer to produce them) and compacted;
 *      every 50,000-row Arrow page of `/positions?hour=&format=arrow` walked through the handler
 *      following `x-next-cursor`: rows/s and peak RSS growth; floor: DuckDB reading the hour's rows
 *      in the same order, at once and in the same keyset pages.
 * Sizes can be lowered for a quick look: BENCH_POSITIONS_BULK_ROWS, BENCH_POSITIONS_JOB_WALLETS,
 * BENCH_POSITIONS_MM_FILLS (environment variables).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DuckDBInstance, listValue, LIST, VARCHAR, BIGINT, type DuckDBConnection } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { ingestBatch } from '../functions/core/archive/ingest.ts';
import { compactArchive } from '../functions/core/archive/compact.ts';
import { visibleFiles } from '../functions/core/archive/files.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { buildPositions, type PositionsReport } from '../functions/core/positions/build.ts';
import { applyFill, snapshotRows, type Book, type Fill } from '../functions/core/positions/engine.ts';
import { classifyWallets } from '../functions/core/positions/wallet-classes.ts';
import { startScratchEmulators } from '../functions/local/scratch-emulators.ts';
import type { ArchiveDeps, ArchiveFile } from '../functions/ports/archive.ts';
import type { SqlQuery } from '../functions/ports/sql.ts';
import type { Dataset } from '../schemas/datasets.ts';
import { FIGURES, compareToFloor, figure, ms, percentile, routeInvoker, row, timeRuns } from './stats.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const MB = 2 ** 20;

const sizeOf = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const MM_FILLS = sizeOf('BENCH_POSITIONS_MM_FILLS', 100_000);
const HISTORY_DAYS = 5;
const STAGES = [1, 3, 5] as const;
const BACKGROUND_WALLETS = 2_000;
const BACKGROUND_FILLS_PER_DAY = 10;
const JOB_WALLETS = sizeOf('BENCH_POSITIONS_JOB_WALLETS', 100_000);
const BULK_ROWS = sizeOf('BENCH_POSITIONS_BULK_ROWS', 1_000_000);
const BULK_PAGE = 50_000;
const AS_OF_RUNS = 100;

/** Markets: tick size as decimal places, a starting price in ticks. */
const MARKETS = [
  { symbol: 'BTC', places: 0, ticks: 97_000 },
  { symbol: 'ETH', places: 1, ticks: 36_000 },
  { symbol: 'SOL', places: 2, ticks: 21_000 },
  { symbol: 'HYPE', places: 3, ticks: 38_000 },
  { symbol: 'DOGE', places: 5, ticks: 38_000 },
] as const;

/** A small seeded generator (mulberry32), so the data is the same on every run. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), chance: (p: number) => next() < p };
}

const addressOf = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const MARKET_MAKER = addressOf(0xfeed_beef);

/** An integer count of 10^-places units as canonical decimal text (no trailing zeros, no -0). */
function decimal(units: number, places: number): string {
  const magnitude = Math.abs(units);
  const scale = 10 ** places;
  const whole = Math.floor(magnitude / scale);
  const fraction =
    places === 0
      ? ''
      : String(magnitude % scale)
          .padStart(places, '0')
          .replace(/0+$/, '');
  const text = fraction ? `${whole}.${fraction}` : String(whole);
  return units < 0 ? `-${text}` : text;
}
/** Sizes are whole thousandths (lots), so every start_position is exact. */
const lotsText = (lots: number) => decimal(lots, 3);

/** Mark prices in ticks per market per minute of [start, start + minutes): a random walk. */
function markSeries(_start: number, minutes: number, seed: number): Int32Array[] {
  const rng = generator(seed);
  return MARKETS.map((m) => {
    const series = new Int32Array(minutes);
    let ticks: number = m.ticks;
    for (let i = 0; i < minutes; i++) {
      ticks = Math.max(1_000, ticks + Math.round((rng.next() - 0.5) * ticks * 0.002));
      series[i] = ticks;
    }
    return series;
  });
}

/** Marks every minute and funding every hour of [from, to) for every market, as normalized lines. */
function marketLines(marks: Int32Array[], seriesStart: number, from: number, to: number, seed: number): string[] {
  const rng = generator(seed);
  const lines: string[] = [];
  MARKETS.forEach((m, i) => {
    for (let ts = from; ts < to; ts += MINUTE) {
      const mark = decimal(marks[i]![(ts - seriesStart) / MINUTE]!, m.places);
      lines.push(
        JSON.stringify({ dataset: 'open_interest', family: 'perpx', symbol: m.symbol, ts, open_interest: '125000.5', mark_price: mark, oracle_price: mark }),
      );
      if (ts % HOUR === 0) lines.push(JSON.stringify({ dataset: 'funding', family: 'perpx', symbol: m.symbol, ts, funding_rate: decimal(rng.int(25) - 8, 7) }));
    }
  });
  return lines;
}

const instrumentLines = (ts: number) =>
  MARKETS.map((m) =>
    JSON.stringify({
      dataset: 'instruments',
      family: 'perpx',
      symbol: m.symbol,
      ts,
      market_type: 'perp',
      sz_decimals: 3,
      max_leverage: m.symbol === 'BTC' ? 40 : 20,
    }),
  );

interface FillEvent {
  ts: number;
  wallet: number;
  market: number;
  kind: 'mm' | 'background' | 'open';
}

/** Running positions (lots) of every wallet and market, and trade ids. */
class Ledger {
  readonly positions = new Map<number, number>();
  private tradeId: number;
  constructor(firstTradeId: number) {
    this.tradeId = firstTradeId;
  }
  /** The fill's line; `lots` signed (buy positive). */
  fill(event: FillEvent, lots: number, priceTicks: number, crossed: boolean): string {
    const key = event.wallet * 8 + event.market;
    const before = this.positions.get(key) ?? 0;
    const market = MARKETS[event.market]!;
    const after = before + lots;
    if (after === 0) this.positions.delete(key);
    else this.positions.set(key, after);
    const price = decimal(priceTicks, market.places);
    const notional = (Math.abs(lots) / 1000) * (priceTicks / 10 ** market.places);
    return JSON.stringify({
      dataset: 'trades',
      family: 'perpx',
      symbol: market.symbol,
      ts: event.ts,
      trade_id: this.tradeId++,
      side: lots > 0 ? 'B' : 'A',
      price,
      size: lotsText(Math.abs(lots)),
      crossed,
      fee: (notional * 0.00015).toFixed(6),
      fee_token: 'USDC',
      start_position: lotsText(before),
      user_address: event.wallet < 0 ? MARKET_MAKER : addressOf(event.wallet + 1),
    });
  }
  held(event: FillEvent): number {
    return this.positions.get(event.wallet * 8 + event.market) ?? 0;
  }
}

/**
 * One day of fills, time ordered: the market maker's (MM_FILLS spread over the history, quoting all
 * markets, inventory pulled back toward flat) and the background wallets' (1-2 markets each, about
 * 10 fills a day, sometimes closing out).
 */
function historyDay(day: number, ledger: Ledger, marks: Int32Array[], seriesStart: number, rng: ReturnType<typeof generator>): string[] {
  const events: FillEvent[] = [];
  const mmPerDay = Math.round(MM_FILLS / HISTORY_DAYS);
  const spacing = DAY / mmPerDay;
  for (let k = 0; k < mmPerDay; k++)
    events.push({ ts: day + Math.floor(k * spacing + rng.next() * (spacing - 1)), wallet: -1, market: rng.int(MARKETS.length), kind: 'mm' });
  for (let w = 0; w < BACKGROUND_WALLETS; w++) {
    const fills = BACKGROUND_FILLS_PER_DAY / 2 + rng.int(BACKGROUND_FILLS_PER_DAY + 1);
    for (let k = 0; k < fills; k++)
      events.push({ ts: day + rng.int(DAY), wallet: w, market: (w + (rng.chance(0.3) ? 1 : 0)) % MARKETS.length, kind: 'background' });
  }
  events.sort((a, b) => a.ts - b.ts);
  return events.map((event) => {
    const held = ledger.held(event);
    const markTicks = marks[event.market]![Math.floor((event.ts - seriesStart) / MINUTE)]!;
    let lots: number;
    if (event.kind === 'mm') {
      const buy = rng.chance(Math.min(0.95, Math.max(0.05, 0.5 - held / 40_000)));
      lots = (1 + rng.int(500)) * (buy ? 1 : -1);
    } else if (held !== 0 && rng.chance(0.15)) {
      lots = -held;
    } else {
      const buy = rng.chance(Math.min(0.9, Math.max(0.1, 0.5 - held / 20_000)));
      lots = (1 + rng.int(2_000)) * (buy ? 1 : -1);
    }
    return ledger.fill(event, lots, markTicks + rng.int(5) - 2, event.kind !== 'mm');
  });
}

/** Ingests lines in batches of at most `per` lines; throws unless every batch is ingested. */
async function ingestLines(deps: ArchiveDeps, lines: readonly string[], per = 100_000): Promise<void> {
  for (let i = 0; i < lines.length; i += per) {
    const outcome = await ingestBatch(deps, 'normalized', lines.slice(i, i + per).join('\n'));
    if (outcome.status !== 'ingested') throw new Error(`synthetic batch not ingested: ${JSON.stringify(outcome).slice(0, 300)}`);
  }
}

/** Runs the positions job at the test instant `now` until it has nothing left to build. */
async function buildUntilDone(deps: ArchiveDeps, now: number): Promise<PositionsReport> {
  const total: PositionsReport = { steps: 0, legs: 0, snapshots: 0, snapshotRows: 0, skippedLeased: 0, builtThrough: {} };
  for (let run = 0; run < 50; run++) {
    const report = await buildPositions({ ...deps, clock: { now: () => now } }, { families: ['perpx'] });
    if (report.skippedLeased > 0) throw new Error('positions lease held');
    if (report.steps === 0) return { ...total, builtThrough: report.builtThrough };
    total.steps += report.steps;
    total.legs += report.legs;
    total.snapshots += report.snapshots;
    total.snapshotRows += report.snapshotRows;
  }
  throw new Error('positions job did not finish');
}

/** A full garbage collection, so memory baselines do not depend on when V8 last collected. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * Peak resident set and JS heap while `work` runs (after a full collection; sampled every 20 ms on a
 * timer of this thread, plus at the end, so a spike inside one synchronous stretch can be missed).
 */
async function peakMemory<T>(work: () => Promise<T>): Promise<{ result: T; baseRss: number; peakRss: number; baseHeap: number; peakHeap: number }> {
  collectGarbage();
  const start = process.memoryUsage();
  let peakRss = start.rss;
  let peakHeap = start.heapUsed;
  const sample = () => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  };
  const timer = setInterval(sample, 20);
  try {
    const result = await work();
    sample();
    return { result, baseRss: start.rss, peakRss, baseHeap: start.heapUsed, peakHeap };
  } finally {
    clearInterval(timer);
  }
}

/** The files a reader sees of an all-symbol dataset (compacted and live deltas), with their local paths. */
async function readableFiles(deps: ArchiveDeps, dataset: Dataset): Promise<{ file: ArchiveFile; path: string }[]> {
  const [compacted, deltas] = await Promise.all([
    deps.manifest.compactedFiles(dataset, 'perpx', undefined, '2000-01-01', '2999-12-31'),
    deps.manifest.deltaFiles(dataset, 'perpx', '2000-01-01', '2999-12-31'),
  ]);
  const files = visibleFiles(compacted, deltas);
  const paths = await deps.files.paths(files);
  return files.map((file, i) => ({ file, path: paths[i]! }));
}
const overlapping = (files: readonly { file: ArchiveFile; path: string }[], from: number, to: number) =>
  listValue(files.filter(({ file }) => file.minTs <= to && file.maxTs >= from).map(({ path }) => path));

/** Counts and times the archive's DuckDB queries and manifest reads while `work` runs (the handler's deps are the same object). */
async function accountFor(
  deps: ArchiveDeps,
  work: () => Promise<unknown>,
): Promise<{ queries: number; sqlMs: number; manifestCalls: number; manifestMs: number; byMethod: Record<string, number> }> {
  const tally = { queries: 0, sqlMs: 0, manifestCalls: 0, manifestMs: 0, byMethod: {} as Record<string, number> };
  const { sql, manifest } = deps;
  const timed =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>, add: (ms: number) => void) =>
    async (...args: A) => {
      const started = performance.now();
      try {
        return await fn(...args);
      } finally {
        add(performance.now() - started);
      }
    };
  deps.sql = {
    ...sql,
    query: <R extends object>(query: SqlQuery) =>
      timed(sql.query<R>, (t) => {
        tally.queries += 1;
        tally.sqlMs += t;
      })(query),
  };
  const count = (method: string) => (t: number) => {
    tally.manifestCalls += 1;
    tally.manifestMs += t;
    tally.byMethod[method] = (tally.byMethod[method] ?? 0) + 1;
  };
  deps.manifest = {
    ...manifest,
    compactedFiles: timed(manifest.compactedFiles, count('compactedFiles')),
    compactedFilesOfDay: timed(manifest.compactedFilesOfDay, count('compactedFilesOfDay')),
    deltaFiles: timed(manifest.deltaFiles, count('deltaFiles')),
  };
  try {
    await work();
  } finally {
    deps.sql = sql;
    deps.manifest = manifest;
  }
  return tally;
}

// ---------------------------------------------------------------------------------------------
// 1. As-of reconstruction of a busy wallet

async function benchAsOf(connection: DuckDBConnection): Promise<void> {
  const env = await startScratchEmulators();
  try {
    const deps = archiveDeps();
    const start = Math.floor(Date.now() / DAY) * DAY - (HISTORY_DAYS + 1) * DAY;
    const marks = markSeries(start - HOUR, (HISTORY_DAYS * DAY + 2 * HOUR) / MINUTE, 5);
    const ledger = new Ledger(1_000_000);
    const rng = generator(17);
    let fills = 0;
    const ingestStarted = performance.now();
    await ingestLines(deps, [...instrumentLines(start - DAY), ...marketLines(marks, start - HOUR, start - HOUR, start, 3)]);
    for (let d = 0; d < HISTORY_DAYS; d++) {
      const day = start + d * DAY;
      const trades = historyDay(day, ledger, marks, start - HOUR, rng);
      fills += trades.length;
      await ingestLines(deps, [...trades, ...marketLines(marks, start - HOUR, day, day + DAY, 100 + d)]);
    }
    const ingestS = (performance.now() - ingestStarted) / 1000;
    const compactStarted = performance.now();
    await compactArchive(deps);
    const compactS = (performance.now() - compactStarted) / 1000;
    console.log(
      `\nPositions: as-of reconstruction (${HISTORY_DAYS} days, ${MARKETS.length} markets; one market maker with ${MM_FILLS.toLocaleString()} fills among `
        + `${BACKGROUND_WALLETS.toLocaleString()} wallets, ${fills.toLocaleString()} fills in all; marks every minute, funding hourly; `
        + `ingest ${ingestS.toFixed(0)} s, compaction ${compactS.toFixed(0)} s)`,
    );

    const { handler } = await import('../functions/http/positions.ts');
    const route = routeInvoker(handler, 'positions');
    const resource = '/v1/perpx/wallets/{address}/positions';
    const path = `/v1/perpx/wallets/${MARKET_MAKER}/positions`;
    const types = { files: LIST(VARCHAR), from: BIGINT, to: BIGINT, account: VARCHAR };
    const pickRng = generator(29);
    const growth: { days: number; p50: number; f50: number }[] = [];

    for (const days of STAGES) {
      const built = start + days * DAY;
      const buildStarted = performance.now();
      const report = await buildUntilDone(deps, built + 60_000);
      const buildS = (performance.now() - buildStarted) / 1000;
      const compactPositionsStarted = performance.now();
      await compactArchive(deps, { datasets: ['position_changes', 'position_snapshots'] });
      const compactPositionsS = (performance.now() - compactPositionsStarted) / 1000;
      if (report.builtThrough.perpx !== built) throw new Error(`built through ${report.builtThrough.perpx}, expected ${built}`);
      const [snapshots, changes] = await Promise.all([readableFiles(deps, 'position_snapshots'), readableFiles(deps, 'position_changes')]);
      const stored = (files: typeof snapshots) =>
        `${files.length} files, ${files.reduce((n, f) => n + f.file.rows, 0).toLocaleString()} rows, ${(files.reduce((n, f) => n + f.file.bytes, 0) / 1e6).toFixed(1)} MB`;
      row(
        `[${days} d built] job: ${report.steps} hourly steps, ${report.legs.toLocaleString()} legs, ${report.snapshotRows.toLocaleString()} snapshot rows`,
        `${buildS.toFixed(1)} s (${((buildS * 1000) / Math.max(1, report.steps)).toFixed(0)} ms a step); compaction ${compactPositionsS.toFixed(1)} s`,
      );
      row(`  stored: snapshots ${stored(snapshots)}`, `changes ${stored(changes)}`);
      FIGURES.push({
        name: `positions job, ${days} d of history built: time per hourly step`,
        value: (buildS * 1000) / Math.max(1, report.steps),
        unit: 'ms',
        samples: report.steps,
      });

      // A random non-hour instant after the first hourly snapshot; the floor reads what the handler reads for it.
      const pick = () => {
        const at = start + HOUR + pickRng.int(days * DAY - HOUR);
        return at % HOUR === 0 ? at + 1 : at;
      };
      const floor = async (at: number) => {
        const base = Math.floor(at / HOUR) * HOUR;
        await connection.runAndReadAll(
          `SELECT * FROM read_parquet($files) WHERE ts BETWEEN $from AND $to AND account = $account ORDER BY symbol`,
          { files: overlapping(snapshots, base, base), from: BigInt(base), to: BigInt(base), account: MARKET_MAKER },
          types,
        );
        await connection.runAndReadAll(
          `SELECT * FROM read_parquet($files) WHERE ts BETWEEN $from AND $to AND account = $account ORDER BY ts, trade_id`,
          { files: overlapping(changes, base, at - 1), from: BigInt(base), to: BigInt(at - 1), account: MARKET_MAKER },
          types,
        );
      };
      const server = async (at: number) => {
        const result = await route(resource, path, { address: MARKET_MAKER }, { timestamp: String(at) });
        const body = JSON.parse(result.body) as { meta: { source: string } };
        if (body.meta.source !== 'reconstructed') throw new Error(`expected a reconstructed read, got ${result.body.slice(0, 300)}`);
      };
      const { p50, f50 } = await compareToFloor(`wallet as of a random instant, ${MM_FILLS.toLocaleString()}-fill wallet [${days} d built]`, server, floor, {
        runs: AS_OF_RUNS,
        tail: 95,
        pick,
      });
      growth.push({ days, p50, f50 });
    }
    // Where a read's time goes (the last stage): the archive's DuckDB queries and manifest reads.
    let calls = 0;
    const tally = await accountFor(deps, async () => {
      for (; calls < 20; calls++)
        await route(resource, path, { address: MARKET_MAKER }, { timestamp: String(start + HOUR + 1 + pickRng.int(HISTORY_DAYS * DAY - 2 * HOUR)) });
    });
    const sample = await timeRuns(20, () =>
      route(resource, path, { address: MARKET_MAKER }, { timestamp: String(start + HOUR + 1 + pickRng.int(HISTORY_DAYS * DAY - 2 * HOUR)) }),
    );
    row('  one as-of read (5 d built); its parts, summed (some run concurrently)', `read p50 ${ms(percentile(sample, 50))}`);
    figure(
      { name: '  DuckDB queries of one as-of read (summed)', value: tally.sqlMs / calls, unit: 'ms' },
      `${(tally.queries / calls).toFixed(1)} a read, ${ms(tally.sqlMs / calls)}`,
    );
    FIGURES.push({ name: '  manifest reads of one as-of read (summed)', value: tally.manifestMs / calls, unit: 'ms' });
    row(
      '  manifest reads of one as-of read (dynalite, summed)',
      `${(tally.manifestCalls / calls).toFixed(1)} a read, ${ms(tally.manifestMs / calls)}  (${Object.entries(tally.byMethod)
        .map(([m, n]) => `${m} ${(n / calls).toFixed(1)}`)
        .join(', ')})`,
    );
    // The chain is exact: no leg may contradict the running size.
    const continuity = await connection.runAndReadAll(
      `SELECT continuity, count(*) AS n FROM read_parquet($files) GROUP BY 1 ORDER BY 1`,
      { files: listValue((await readableFiles(deps, 'position_changes')).map((f) => f.path)) },
      { files: LIST(VARCHAR) },
    );
    const byContinuity = Object.fromEntries(continuity.getRowObjects().map((r) => [String(r.continuity), Number(r.n)]));
    row(
      '  change legs by continuity',
      Object.entries(byContinuity)
        .map(([k, n]) => `${k} ${n.toLocaleString()}`)
        .join(', '),
    );
    if (byContinuity.quarantined) throw new Error('synthetic fills were not chained exactly: quarantined legs');
    const flat = growth.at(-1)!.p50 / growth[0]!.p50;
    figure(
      { name: `wallet as-of p50, ${growth.at(-1)!.days} d built / ${growth[0]!.days} d built`, value: flat, unit: 'x' },
      `${growth.map((g) => `${g.days} d ${ms(g.p50)}`).join(', ')}  (${flat.toFixed(2)}x; floor ${growth.map((g) => ms(g.f50)).join(', ')})`,
    );
    await benchClassify(deps, start + 2 * DAY);
  } finally {
    await env.stop();
  }
}

/**
 * `/wallets/classify` over one folded day of the as-of history (issue 45): the statistics rows a
 * call combines beside the day's raw rows (legs, trades, order events) it read before they existed,
 * and the route's p50 over 20 warm calls.
 */
async function benchClassify(deps: ArchiveDeps, day: number): Promise<void> {
  const date = new Date(day).toISOString().slice(0, 10);
  const { read } = await classifyWallets(
    deps,
    { family: 'perpx', min_orders: 0, min_volume_usd: 0, sort: 'total_orders', order: 'desc', limit: 100, offset: 0, date },
    Date.now(),
  );
  const dayRows = async (dataset: Dataset) => visibleFiles(await deps.manifest.compactedFilesOfDay(dataset, 'perpx', date), []).reduce((n, f) => n + f.rows, 0);
  const raw = (await Promise.all((['position_changes', 'trades', 'order_events'] as const).map(dayRows))).reduce((a, b) => a + b, 0);
  const combined = read.fills.rowsRead + read.orders.rowsRead + read.trades.rowsRead;
  figure(
    { name: `wallet classes, a folded day: statistics rows a call combines`, value: combined, unit: 'rows' },
    `${combined.toLocaleString()} rows (fills ${read.fills.rowsRead.toLocaleString()}, orders ${read.orders.rowsRead.toLocaleString()}, trades ${read.trades.rowsRead.toLocaleString()}); the day's raw rows ${raw.toLocaleString()}`,
  );
  const { handler } = await import('../functions/http/market.ts');
  const route = routeInvoker(handler, 'market');
  const resource = '/v1/perpx/wallets/classify';
  const sample = await timeRuns(20, () => route(resource, resource, {}, { date, min_orders: '0', limit: '100' }));
  figure({ name: 'wallet classes, a folded day: route p50 (handler in process)', value: percentile(sample, 50), unit: 'ms', samples: sample.length });
}

// ---------------------------------------------------------------------------------------------
// 2. One job step over an hour that leaves JOB_WALLETS wallets holding positions

/** The hour's fills (as normalized lines, time ordered) that leave JOB_WALLETS wallets with 1-3 open positions each. */
function jobFills(hour: number, marks: Int32Array[]): { trades: string[]; positions: number } {
  const rng = generator(43);
  const events: FillEvent[] = [];
  for (let w = 0; w < JOB_WALLETS; w++) {
    const markets = 1 + rng.int(3);
    const first = rng.int(MARKETS.length);
    for (let k = 0; k < markets; k++) {
      const market = (first + k) % MARKETS.length;
      for (let f = 0, n = 1 + rng.int(2); f < n; f++) events.push({ ts: hour + rng.int(HOUR), wallet: w, market, kind: 'open' });
    }
  }
  events.sort((a, b) => a.ts - b.ts);
  const ledger = new Ledger(50_000_000);
  const trades = events.map((event) => {
    const held = ledger.held(event);
    const markTicks = marks[event.market]![Math.floor((event.ts - (hour - HOUR)) / MINUTE)]!;
    // Open, then add or trim without ever closing: every position stays open at the hour.
    const lots =
      held === 0
        ? (1 + rng.int(2_000)) * (rng.chance(0.5) ? 1 : -1)
        : rng.chance(0.7) || Math.abs(held) < 2
          ? Math.sign(held) * (1 + rng.int(1_000))
          : -Math.sign(held) * Math.floor(Math.abs(held) / 2);
    return ledger.fill(event, lots, markTicks + rng.int(5) - 2, rng.chance(0.5));
  });
  return { trades, positions: ledger.positions.size };
}

async function benchSnapshotJob(): Promise<void> {
  const env = await startScratchEmulators();
  try {
    const deps = archiveDeps();
    const hour = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
    const marks = markSeries(hour - HOUR, (3 * HOUR) / MINUTE, 41);
    const { trades, positions } = jobFills(hour, marks);
    const fills = trades.length;
    const ingestStarted = performance.now();
    await ingestLines(deps, [...instrumentLines(hour - DAY), ...marketLines(marks, hour - HOUR, hour - HOUR, hour + 2 * HOUR, 47)]);
    await ingestLines(deps, trades);
    const ingestS = (performance.now() - ingestStarted) / 1000;
    trades.length = 0; // the step is measured without the generator's copy in memory
    await compactArchive(deps);
    // The first run finds nothing before the hour: it scans coverage for the first day with fills and leaves an empty snapshot at the hour.
    const skipStarted = performance.now();
    await buildUntilDone(deps, hour + 60_000);
    const skipS = (performance.now() - skipStarted) / 1000;
    console.log(
      `\nPositions: the snapshot job (${JOB_WALLETS.toLocaleString()} wallets, ${positions.toLocaleString()} open positions after ${fills.toLocaleString()} fills within one hour; ingest ${ingestS.toFixed(0)} s)`,
    );

    let tally = { queries: 0, sqlMs: 0, manifestCalls: 0, manifestMs: 0, byMethod: {} as Record<string, number> };
    let writeMs = 0;
    const stepDeps: ArchiveDeps = {
      ...deps,
      sql: {
        ...deps.sql,
        writeParquet: async (...args) => {
          const started = performance.now();
          try {
            return await deps.sql.writeParquet(...args);
          } finally {
            writeMs += performance.now() - started;
          }
        },
      },
    };
    const started = performance.now();
    const memory = await peakMemory(async () => {
      let report!: PositionsReport;
      tally = await accountFor(stepDeps, async () => {
        report = await buildUntilDone(stepDeps, hour + HOUR + 60_000);
      });
      return report;
    });
    const stepS = (performance.now() - started) / 1000;
    const report = memory.result;
    if (report.steps !== 1) throw new Error(`expected one step, got ${report.steps}`);
    if (report.snapshotRows !== positions || report.legs !== fills) throw new Error(`step wrote ${report.snapshotRows} rows and ${report.legs} legs`);
    // The step's pure part apart, on the same fills: the engine fold with the legs' and snapshot's JSON lines (ingest writes those lines, it does not parse them again).
    const sameFills: Fill[] = jobFills(hour, marks).trades.map((line) => {
      const t = JSON.parse(line) as Record<string, unknown>;
      return { ...(t as unknown as Fill), account: String(t.user_address) };
    });
    const foldStarted = performance.now();
    const book: Book = new Map();
    const lines = sameFills.map((fill) => JSON.stringify({ dataset: 'position_changes', family: 'perpx', ...applyFill(book, fill) }));
    const mark = { price: '97000', time: hour + HOUR - 1_000 };
    for (const snapshotLine of snapshotRows(book, hour + HOUR, { markAt: () => mark, maxLeverageOf: () => 20, funding: true })) {
      lines.push(JSON.stringify({ dataset: 'position_snapshots', family: 'perpx', ...snapshotLine }));
    }
    const foldMs = performance.now() - foldStarted;
    figure(
      { name: `positions job: one hourly step, ${positions.toLocaleString()} open positions`, value: stepS, unit: 's' },
      `${stepS.toFixed(1)} s  (${report.legs.toLocaleString()} legs + ${report.snapshotRows.toLocaleString()} snapshot rows + ${report.snapshots} marker written; `
        + `${Math.round((report.legs + report.snapshotRows) / stepS).toLocaleString()} rows/s)`,
    );
    figure(
      { name: '  of which DuckDB queries (fills, marks, funding, previous snapshot)', value: tally.sqlMs / 1000, unit: 's' },
      `${(tally.sqlMs / 1000).toFixed(1)} s in ${tally.queries} queries`,
    );
    figure({ name: '  of which Parquet writes of the batch (DuckDB)', value: writeMs / 1000, unit: 's' }, `${(writeMs / 1000).toFixed(1)} s`);
    figure({ name: '  the rest (engine fold, JSON lines, S3, manifest)', value: stepS - (tally.sqlMs + writeMs) / 1000, unit: 's' });
    row(
      "    of which (measured apart) the engine fold and the batch's JSON lines",
      `${(foldMs / 1000).toFixed(1)} s (${lines.length.toLocaleString()} records)`,
    );
    figure(
      { name: 'positions job step: peak RSS (sampled every 20 ms)', value: memory.peakRss / MB, unit: 'MB' },
      `${(memory.peakRss / MB).toFixed(0)} MB  (+${((memory.peakRss - memory.baseRss) / MB).toFixed(0)} MB over ${(memory.baseRss / MB).toFixed(0)} MB before the step)`,
    );
    figure(
      { name: 'positions job step: peak JS heap used', value: memory.peakHeap / MB, unit: 'MB' },
      `${(memory.peakHeap / MB).toFixed(0)} MB  (+${((memory.peakHeap - memory.baseHeap) / MB).toFixed(0)} MB)`,
    );
    FIGURES.push({ name: 'positions job step: engine fold and JSON lines (measured apart)', value: foldMs / 1000, unit: 's' });
    figure({ name: 'positions job: first run, coverage scanned to the first day with fills', value: skipS, unit: 's' });
  } finally {
    await env.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// 3. A bulk hour as Arrow

/** One hour's snapshot rows, as the job would write them, `per` lines at a time (the marker first). */
function* bulkSnapshot(hour: number, rows: number, per: number): Generator<string[]> {
  const rng = generator(61);
  const marks = MARKETS.map((m) => m.ticks / 10 ** m.places);
  let lines = [JSON.stringify({ dataset: 'position_snapshots', family: 'perpx', symbol: '', ts: hour, account: '', size: String(rows), quality: 'complete' })];
  let written = 0;
  for (let w = 0; written < rows; w++) {
    const first = rng.int(MARKETS.length);
    for (let k = 0, n = 1 + rng.int(MARKETS.length); k < n && written < rows; k++, written++) {
      const i = (first + k) % MARKETS.length;
      const lots = (1 + rng.int(50_000)) * (rng.chance(0.5) ? 1 : -1);
      const size = lots / 1000;
      const entry = marks[i]! * (1 + (rng.next() - 0.5) * 0.04);
      const funding = (rng.next() - 0.5) * 10;
      lines.push(
        JSON.stringify({
          dataset: 'position_snapshots',
          family: 'perpx',
          symbol: MARKETS[i]!.symbol,
          ts: hour,
          account: addressOf(w + 1),
          size: lotsText(lots),
          entry_price: entry.toFixed(8),
          opened_at: hour - 1 - rng.int(30 * DAY),
          last_change_at: hour - 1 - rng.int(DAY),
          mark_price: String(marks[i]),
          mark_time: hour - 1_000,
          position_value: (Math.abs(size) * marks[i]!).toFixed(6),
          unrealized_pnl: (size * (marks[i]! - entry)).toFixed(8),
          funding_all_time: (funding * 3).toFixed(8),
          funding_since_open: funding.toFixed(8),
          funding_since_change: (funding / 4).toFixed(8),
          max_leverage: i === 0 ? 40 : 20,
          quality: rng.chance(0.02) ? 'partial' : 'complete',
        }),
      );
      if (lines.length >= per) {
        yield lines;
        lines = [];
      }
    }
  }
  if (lines.length > 0) yield lines;
}

async function benchBulk(connection: DuckDBConnection): Promise<void> {
  const env = await startScratchEmulators();
  try {
    const deps = archiveDeps();
    const hour = Math.floor(Date.now() / DAY) * DAY - 2 * DAY + 5 * HOUR;
    const ingestStarted = performance.now();
    for (const lines of bulkSnapshot(hour, BULK_ROWS, 100_000)) await ingestLines(deps, lines);
    const ingestS = (performance.now() - ingestStarted) / 1000;
    const compactStarted = performance.now();
    await compactArchive(deps, { datasets: ['position_snapshots'] });
    const compactS = (performance.now() - compactStarted) / 1000;
    const files = await readableFiles(deps, 'position_snapshots');
    const bytes = files.reduce((n, f) => n + f.file.bytes, 0);
    console.log(
      `\nPositions: bulk hour as Arrow (${BULK_ROWS.toLocaleString()} snapshot rows of one hour, ingested directly as normalized position_snapshots records, `
        + `not built by the job; ingest ${ingestS.toFixed(0)} s, compaction ${compactS.toFixed(0)} s; ${files.length} file(s), ${(bytes / 1e6).toFixed(1)} MB)`,
    );

    const { handler } = await import('../functions/http/positions.ts');
    const route = routeInvoker(handler, 'positions');
    let firstPage: Uint8Array | undefined;
    const rssAfterPage: number[] = [];
    const walk = async () => {
      let rows = 0;
      let pages = 0;
      let cursor: string | undefined;
      let bodyBytes = 0;
      do {
        const result = await route(
          '/v1/perpx/positions',
          '/v1/perpx/positions',
          {},
          { hour: String(hour), format: 'arrow', limit: String(BULK_PAGE), ...(cursor && { cursor }) },
        );
        const headers = (result.headers ?? {}) as Record<string, string>;
        rows += Number(headers['x-count']);
        pages += 1;
        bodyBytes += result.body.length;
        if (pages === 1 && !firstPage) firstPage = Buffer.from(result.body, 'base64');
        cursor = headers['x-next-cursor'];
        if (rssAfterPage.length < pages) rssAfterPage.push(process.memoryUsage().rss);
      } while (cursor);
      if (rows !== BULK_ROWS) throw new Error(`walked ${rows} rows, expected ${BULK_ROWS}`);
      return { rows, pages, bodyBytes };
    };
    const columns = 'account, symbol, size, entry_price, mark_price, position_value, unrealized_pnl, quality';
    const types = { files: LIST(VARCHAR), hour: BIGINT, account: VARCHAR, symbol: VARCHAR };
    const paths = listValue(files.map((f) => f.path));
    const floorAtOnce = async () => {
      const reader = await connection.runAndReadAll(
        `SELECT ${columns} FROM read_parquet($files) WHERE ts = $hour AND account <> '' ORDER BY account, symbol`,
        { files: paths, hour: BigInt(hour) },
        types,
      );
      if (reader.currentRowCount !== BULK_ROWS) throw new Error(`floor read ${reader.currentRowCount} rows`);
    };
    const floorPaged = async () => {
      let after: [string, string] | undefined;
      let rows = 0;
      for (;;) {
        const reader = await connection.runAndReadAll(
          `SELECT ${columns} FROM read_parquet($files) WHERE ts = $hour AND account <> ''
            ${after ? 'AND (account > $account OR (account = $account AND symbol > $symbol))' : ''} ORDER BY account, symbol LIMIT ${BULK_PAGE + 1}`,
          { files: paths, hour: BigInt(hour), ...(after && { account: after[0], symbol: after[1] }) },
          types,
        );
        const count = Math.min(reader.currentRowCount, BULK_PAGE);
        rows += count;
        if (reader.currentRowCount <= BULK_PAGE) break;
        const last = reader.getRowObjects()[BULK_PAGE - 1]!;
        after = [String(last.account), String(last.symbol)];
      }
      if (rows !== BULK_ROWS) throw new Error(`paged floor read ${rows} rows`);
    };

    // Cold walk with memory sampled; then warm walks interleaved with the floors.
    const coldStarted = performance.now();
    const cold = await peakMemory(walk);
    const coldS = (performance.now() - coldStarted) / 1000;
    const table = tableFromIPC(firstPage!);
    if (table.numRows !== Math.min(BULK_PAGE, BULK_ROWS)) throw new Error(`first Arrow page holds ${table.numRows} rows`);
    const warm: number[] = [];
    const atOnce: number[] = [];
    const paged: number[] = [];
    for (let i = 0; i < 2; i++) {
      warm.push(...(await timeRuns(1, walk)));
      atOnce.push(...(await timeRuns(1, floorAtOnce)));
      paged.push(...(await timeRuns(1, floorPaged)));
    }
    const [w, a, p] = [Math.min(...warm), Math.min(...atOnce), Math.min(...paged)];
    const rate = (msTaken: number) => Math.round(BULK_ROWS / (msTaken / 1000));
    // Where a walk's time goes: the handler's DuckDB queries (page SQL, snapshot check) against the rest (rows to objects, shaping, Arrow, base64).
    const walkStarted = performance.now();
    const walkTally = await accountFor(archiveDeps(), walk);
    const walkMs = performance.now() - walkStarted;
    row(
      `Arrow walk: ${cold.result.pages} pages of ${BULK_PAGE.toLocaleString()}, ${table.numCols} columns`,
      `${(cold.result.bodyBytes / 1e6).toFixed(0)} MB of base64 bodies; cold ${coldS.toFixed(1)} s`,
    );
    figure(
      {
        name: `bulk hour as Arrow, ${BULK_ROWS.toLocaleString()} rows, handler end to end (best of 2 warm)`,
        value: rate(w),
        unit: 'rows/s',
        floor: rate(a),
        ratio: a / w,
        samples: 2,
      },
      `${rate(w).toLocaleString()} rows/s  (${(w / 1000).toFixed(1)} s; cold ${rate(coldS * 1000).toLocaleString()} rows/s)`,
    );
    row("  DuckDB alone, the hour's rows in order at once (floor)", `${rate(a).toLocaleString()} rows/s  (${(a / 1000).toFixed(1)} s)`);
    row('  handler time / floor', `${(w / a).toFixed(1)}x`);
    FIGURES.push(
      { name: "bulk Arrow walk: time in the handler's DuckDB queries (with rows to JS objects)", value: walkTally.sqlMs / 1000, unit: 's' },
      { name: 'bulk Arrow walk: whole walk, same run', value: walkMs / 1000, unit: 's' },
    );
    row(
      '  of one more walk: DuckDB queries in the handler',
      `${(walkTally.sqlMs / 1000).toFixed(1)} s of ${(walkMs / 1000).toFixed(1)} s (${walkTally.queries} queries); manifest ${(walkTally.manifestMs / 1000).toFixed(2)} s`,
    );
    figure(
      { name: '  DuckDB alone, the same 50,000-row keyset pages', value: rate(p), unit: 'rows/s', samples: 2 },
      `${rate(p).toLocaleString()} rows/s  (${(p / 1000).toFixed(1)} s; handler / this ${(w / p).toFixed(1)}x)`,
    );
    figure(
      { name: 'bulk Arrow walk: peak RSS growth over the walk (sampled every 20 ms)', value: (cold.peakRss - cold.baseRss) / MB, unit: 'MB' },
      `+${((cold.peakRss - cold.baseRss) / MB).toFixed(0)} MB over ${(cold.baseRss / MB).toFixed(0)} MB (peak ${(cold.peakRss / MB).toFixed(0)} MB); JS heap peak +${((cold.peakHeap - cold.baseHeap) / MB).toFixed(0)} MB`,
    );
    const at = (i: number) => `${(rssAfterPage[i]! / MB).toFixed(0)}`;
    row(
      '  RSS after pages 1, 2, half way, last of the cold walk',
      `${at(0)}, ${at(Math.min(1, rssAfterPage.length - 1))}, ${at(Math.floor(rssAfterPage.length / 2))}, ${at(rssAfterPage.length - 1)} MB`,
    );
  } finally {
    await env.stop();
  }
}

export async function benchPositions(): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const connection = await instance.connect();
  try {
    console.log(
      `\nPositions (sizes: market maker ${MM_FILLS.toLocaleString()} fills over ${HISTORY_DAYS} d; job ${JOB_WALLETS.toLocaleString()} wallets; bulk ${BULK_ROWS.toLocaleString()} rows)`,
    );
    await benchAsOf(connection);
    await benchSnapshotJob();
    await benchBulk(connection);
  } finally {
    connection.closeSync();
  }
}
