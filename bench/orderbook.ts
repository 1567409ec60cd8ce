/**
 * Order-book figures: a day of one busy market holding 10,000 resting orders (5,000 a side over 250
 * levels), changing 10 times a second (864,000 L4 diffs), checkpointed every 5 minutes, with a
 * native snapshot every second; ingested and compacted through the real path. Server side (the
 * orderbook handler in-process, manifest in dynalite, files in the warm local cache), each beside
 * DuckDB alone reading what the handler reads from the same files (the floor):
 *   - the L4 book and the full-depth L2 book at a random instant of the day, and how the book's
 *     time grows with the diffs replayed since the checkpoint (which sets the checkpoint cadence);
 *   - a 1000-row /l2/diffs page and a 1000-row native history page;
 *   - bytes stored per market-day for checkpoints, diffs and native snapshots.
 */
import { DuckDBInstance, listValue, LIST, VARCHAR, BIGINT } from '@duckdb/node-api';
import { ingestBatch } from '../functions/core/archive/ingest.ts';
import { compactArchive } from '../functions/core/archive/compact.ts';
import { visibleFiles } from '../functions/core/archive/files.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { L4Book, type BookDiff } from '../functions/core/book/l4-book.ts';
import { startScratchEmulators } from '../functions/local/scratch-emulators.ts';
import { Rng } from '../functions/local/demo/random.ts';
import type { Dataset } from '../schemas/datasets.ts';
import { compareToFloor, figure, percentile, routeInvoker, timeRuns } from './stats.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const CHECKPOINT_MS = 5 * 60_000;
const DIFF_EVERY_MS = 100;
const ORDERS_A_SIDE = 5_000;
const LEVELS_A_SIDE = 250;
const MID = 97_000;
const USERS = Array.from({ length: 200 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);

/**
 * The day's records, an hour at a time: the book starts full and every 100 ms one order is placed,
 * trimmed or removed, keeping about 10,000 resting; a checkpoint every 5 minutes and a native
 * snapshot every second are taken from the same book.
 */
export function* syntheticDay(day: number): Generator<string[]> {
  const rng = new Rng(7);
  const book = new L4Book();
  const live: number[] = [];
  let oid = 1;
  let block = 1_000_000;
  const place = (ts: number): BookDiff & { block_number: number; seq: number } => {
    const side = rng.chance(0.5) ? 'B' : 'A';
    const level = 1 + rng.int(LEVELS_A_SIDE);
    const price = String(side === 'B' ? MID - level : MID + level);
    live.push(oid);
    return {
      ts,
      block_number: block,
      seq: 0,
      oid: oid++,
      user_address: rng.pick(USERS),
      side,
      price,
      diff_type: 'new',
      new_size: (0.001 * (1 + rng.int(2000))).toFixed(3),
      insert_before: null,
    };
  };
  for (let i = 0; i < 2 * ORDERS_A_SIDE; i++) book.apply(place(day - 1));
  for (let hour = day; hour < day + DAY; hour += HOUR) {
    const lines: string[] = [];
    for (let ts = hour; ts < hour + HOUR; ts += DIFF_EVERY_MS) {
      block++;
      const roll = rng.next();
      let diff: BookDiff & { block_number: number; seq: number };
      // As many placements as removals, steered back toward 10,000 resting orders.
      const resting = live.length / (2 * ORDERS_A_SIDE);
      if (resting < 0.98 || (resting <= 1.02 && roll < 0.35)) diff = place(ts);
      else {
        const at = rng.int(live.length);
        const target = book.order(live[at]!)!;
        const trim = resting <= 1.02 && roll < 0.65 && Number(target.size) > 0.002;
        if (!trim) {
          live[at] = live[live.length - 1]!;
          live.pop();
        }
        diff = {
          ts,
          block_number: block,
          seq: 0,
          oid: target.oid,
          user_address: target.user,
          side: target.side,
          price: target.price,
          diff_type: trim ? 'update' : 'remove',
          new_size: trim ? String(Number((Number(target.size) / 2).toFixed(4))) : null,
          insert_before: null,
        };
      }
      diff.block_number = block;
      book.apply(diff);
      lines.push(JSON.stringify({ dataset: 'l4_diffs', family: 'perpx', symbol: 'BTC', ...diff }));
      const closing = ts + DIFF_EVERY_MS - 1;
      if ((closing + 1) % 1000 === 0) {
        const levels = (side: 'B' | 'A') => book.levels(side, 20).map((l) => [l.price, l.size, l.count]);
        lines.push(JSON.stringify({ dataset: 'l2_snapshots', family: 'perpx', symbol: 'BTC', ts: closing, bids: levels('B'), asks: levels('A') }));
      }
      if ((closing + 1) % CHECKPOINT_MS === 0) {
        const side = (s: 'B' | 'A') => book.side(s).map((o) => [o.oid, o.user, o.price, o.size, o.placedAt]);
        lines.push(
          JSON.stringify({
            dataset: 'l4_checkpoints',
            family: 'perpx',
            symbol: 'BTC',
            ts: closing,
            block_number: block,
            seq: 0,
            bids: side('B'),
            asks: side('A'),
          }),
        );
      }
    }
    yield lines;
  }
}

export async function benchOrderbook(): Promise<void> {
  const env = await startScratchEmulators();
  try {
    const deps = archiveDeps();
    const day = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
    const ingestStarted = performance.now();
    for (const lines of syntheticDay(day)) {
      const outcome = await ingestBatch(deps, 'normalized', lines.join('\n'));
      if (outcome.status !== 'ingested') throw new Error(`synthetic batch not ingested: ${JSON.stringify(outcome).slice(0, 300)}`);
    }
    const ingestS = (performance.now() - ingestStarted) / 1000;
    await compactArchive(deps);
    const { handler } = await import('../functions/http/orderbook.ts');
    const route = routeInvoker(handler, 'orderbook');
    const btc = { symbol: 'BTC' };
    const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
    const connection = await instance.connect();
    // The files a reader sees (the day files; hour files they replaced may linger until deleted).
    const filesOf = async (dataset: Dataset) =>
      visibleFiles(await deps.manifest.compactedFiles(dataset, 'perpx', 'BTC', '2000-01-01', '2999-12-31'), [], 'BTC');
    const [diffFiles, checkpointFiles, snapshotFiles] = await Promise.all([filesOf('l4_diffs'), filesOf('l4_checkpoints'), filesOf('l2_snapshots')]);
    const paths = async (files: Awaited<ReturnType<typeof filesOf>>) => listValue(await deps.files.paths(files));
    const [diffs, checkpoints, snapshots] = await Promise.all([paths(diffFiles), paths(checkpointFiles), paths(snapshotFiles)]);
    const types = { files: LIST(VARCHAR), from: BIGINT, to: BIGINT };

    console.log(
      `\nOrder books (server side: handler in-process, warm cache; one day of a market with 10,000 resting orders, 10 diffs/s; ingest ${ingestS.toFixed(0)} s)`,
    );
    const bytes = (files: Awaited<ReturnType<typeof filesOf>>) => files.reduce((sum, f) => sum + f.bytes, 0);
    figure({ name: 'L4 diffs stored per market-day (864,000 diffs)', value: bytes(diffFiles) / 1e6, unit: 'MB' });
    figure({
      name: `L4 checkpoints stored per market-day (${checkpointFiles.reduce((n, f) => n + f.rows, 0)} of about 10,000 orders)`,
      value: bytes(checkpointFiles) / 1e6,
      unit: 'MB',
    });
    figure({ name: 'native snapshots stored per market-day (86,400 of 20 levels)', value: bytes(snapshotFiles) / 1e6, unit: 'MB' });

    // A random instant per call; the floor reads the same rows the handler reads for it.
    const rng = new Rng(11);
    let at = day;
    const pick = () => {
      at = day + CHECKPOINT_MS + rng.int(DAY - 2 * CHECKPOINT_MS);
      return String(at);
    };
    // What DuckDB alone does for a book: the newest checkpoint's time, its row (row-group pruned), the diffs after it.
    const bookFloor = async () => {
      const newest = await connection.runAndReadAll(
        `SELECT max(ts) AS ts FROM read_parquet($files) WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to`,
        { files: checkpoints, from: BigInt(at - DAY), to: BigInt(at) },
        types,
      );
      const from = newest.getRowObjects()[0]!.ts as bigint;
      await connection.runAndReadAll(
        `SELECT bids, asks FROM read_parquet($files) WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to`,
        { files: checkpoints, from, to: from },
        types,
      );
      await connection.runAndReadAll(
        `SELECT ts, block_number, oid, user_address, side, price, diff_type, new_size, insert_before FROM read_parquet($files)
        WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to ORDER BY block_number, seq`,
        { files: diffs, from, to: BigInt(at) },
        types,
      );
    };
    await compareToFloor(
      'L4 book at a random instant (10,000 orders)',
      () => route('/v1/perpx/orderbook/{symbol}/l4', '/v1/perpx/orderbook/BTC/l4', btc, { timestamp: pick() }),
      bookFloor,
    );
    await compareToFloor(
      'full-depth L2 at a random instant',
      () => route('/v1/perpx/orderbook/{symbol}/l2', '/v1/perpx/orderbook/BTC/l2', btc, { timestamp: pick() }),
      bookFloor,
    );

    // What the checkpoint cadence buys: the book just after a checkpoint, and a whole interval after it.
    for (const [label, offset] of [
      ['just after a checkpoint (0 diffs replayed)', 1],
      ['1 minute after (600 diffs)', 60_000],
      ['5 minutes after (3,000 diffs)', CHECKPOINT_MS - 2],
    ] as const) {
      const base = day + 12 * HOUR - 1;
      const samples = await timeRuns(40, () =>
        route('/v1/perpx/orderbook/{symbol}/l4', '/v1/perpx/orderbook/BTC/l4', btc, { timestamp: String(base + offset) }),
      );
      figure({ name: `L4 book ${label}, p50`, value: percentile(samples, 50), unit: 'ms', samples: samples.length });
    }

    const pageStart = day + 6 * HOUR;
    await compareToFloor(
      '/l2/diffs page, 1000 level changes',
      () => {
        at = pageStart + rng.int(HOUR);
        return route('/v1/perpx/orderbook/{symbol}/l2/diffs', '/v1/perpx/orderbook/BTC/l2/diffs', btc, {
          start: String(at),
          end: String(day + DAY),
          limit: '1000',
        });
      },
      async () => {
        await bookFloor();
        await connection.runAndReadAll(
          `SELECT * FROM read_parquet($files) WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to ORDER BY block_number, seq LIMIT 1001`,
          { files: diffs, from: BigInt(at), to: BigInt(day + DAY) },
          types,
        );
      },
    );
    await compareToFloor(
      'native history page, 1000 snapshots',
      () =>
        route('/v1/perpx/orderbook/{symbol}/history', '/v1/perpx/orderbook/BTC/history', btc, {
          start: String(pageStart),
          end: String(day + DAY),
          limit: '1000',
        }),
      () =>
        connection.runAndReadAll(
          `SELECT string_agg(to_json({'ts': ts, 'bids': bids::JSON, 'asks': asks::JSON}), ',' ORDER BY ts) FROM (
          SELECT * FROM read_parquet($files) WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to ORDER BY ts LIMIT 1001)`,
          { files: snapshots, from: BigInt(pageStart), to: BigInt(day + DAY) },
          types,
        ),
    );
    connection.closeSync();
  } finally {
    await env.stop();
  }
}
