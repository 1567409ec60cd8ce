/**
 * Tiered compaction over a simulated day (a clock the test moves): batches every ten minutes,
 * compaction after each. At every step each symbol reads every trade once and its 1-minute candles
 * match its trades; rows are rewritten at most three times; hours fold into hour files once closed
 * and the day into one file per symbol once it closes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestBatch } from '#core/archive/ingest.ts';
import { SETTLE_MS, compactArchive } from '#core/archive/compact.ts';
import { readMinuteCandles } from '#core/archive/read-candles.ts';
import { readWindow } from '#core/archive/read-pages.ts';
import { windowSource } from '#core/archive/read.ts';
import { unsettledFrom } from '#core/archive/layout.ts';
import { visibleFiles } from '#core/archive/files.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { jsonl, trade } from '../helpers/records.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';

let env: ScratchEmulators;
let deps: ArchiveDeps;
let now = 0;
beforeAll(async () => {
  env = await startScratchEmulators();
  deps = { ...archiveDeps(), clock: { now: () => now } };
});
afterAll(async () => {
  await env?.stop();
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const D0 = Date.UTC(2026, 9, 5);
const SYMBOLS = ['BTC', 'ETH', 'SOL'];

/** The span of one batch of the day walk: each step ingests, compacts and reads the whole day back. */
const BATCH_MS = 10 * MINUTE;

/** One batch: per symbol, a trade every 20 s over the `span` before `end`. */
function batch(end: number, firstId: number, span = BATCH_MS): NormalizedRecord[] {
  const records: NormalizedRecord[] = [];
  SYMBOLS.forEach((symbol, s) => {
    for (let ts = end - span + 7_000 * (s + 1); ts < end; ts += 20_000) {
      records.push(trade({ ts, trade_id: firstId + records.length, symbol, price: String(100 + ((ts / 1000) % 13)), size: '1' }));
    }
  });
  return records;
}

/** Every trade of a symbol in the day, as the archive serves it. */
async function served(symbol: string): Promise<number[]> {
  const { rows } = await readWindow(deps, { dataset: 'trades', family: 'perpx', symbol, from: D0, to: D0 + DAY - 1, limit: 100_000 });
  return rows.map((r) => Number(r.trade_id));
}

/** Every trade of the family from `from` to the day's end, by id, as a whole-family read finds them. */
async function servedFamily(from: number): Promise<number[]> {
  const window = await windowSource(deps, { dataset: 'trades', family: 'perpx', from, to: D0 + DAY - 1 });
  if (!window) return [];
  return (await deps.sql.query({ sql: `SELECT trade_id FROM (${window.sql}) ORDER BY trade_id`, params: window.params })).map((r) => Number(r.trade_id));
}

/** Minute candles computed here from the trades, to compare with the archive's. */
function candlesOf(records: readonly NormalizedRecord[], symbol: string) {
  const byMinute = new Map<number, { count: number; volume: number }>();
  for (const r of records) {
    if (r.symbol !== symbol || r.dataset !== 'trades') continue;
    const minute = Math.floor(r.ts / MINUTE) * MINUTE;
    const m = byMinute.get(minute) ?? { count: 0, volume: 0 };
    byMinute.set(minute, { count: m.count + 1, volume: m.volume + Number(r.size) });
  }
  return [...byMinute].sort(([a], [b]) => a - b).map(([ts, m]) => ({ ts, trade_count: m.count, volume: m.volume }));
}

/**
 * Compacts while a reader reads ETH throughout: between a new file and the retirement of what it
 * replaces, every row must still be there exactly once.
 */
async function compactWhileReading(ingested: readonly NormalizedRecord[]) {
  let compacting = true;
  const reads: number[][] = [];
  const reader = (async () => {
    while (compacting) reads.push(await served('ETH'));
  })();
  const report = await compactArchive(deps, { datasets: ['trades'], families: ['perpx'] });
  compacting = false;
  await reader;
  const eth = ingested.filter((r) => r.symbol === 'ETH').map((r) => (r as { trade_id: number }).trade_id);
  for (const read of reads) expect(read).toEqual(eth);
  return report;
}

describe('tiered compaction through a day', () => {
  it('serves every row once at every step, rewrites each at most three times, and ends with one file per symbol-day', async () => {
    const ingested: NormalizedRecord[] = [];
    let rewritten = 0;
    // Three and a half hours of batches, every ten minutes, from 01:00 (six batches an hour fold into each hour file).
    for (let end = D0 + HOUR + BATCH_MS; end <= D0 + 4.5 * HOUR; end += BATCH_MS) {
      const records = batch(end, ingested.length + 1);
      now = end + 1_000;
      await ingestBatch(deps, 'normalized', jsonl(records));
      ingested.push(...records);
      now = end + 30_000;
      rewritten += (await compactWhileReading(ingested)).rowsWritten;
      for (const symbol of SYMBOLS) {
        expect(await served(symbol), `${symbol} at ${new Date(now).toISOString()}`).toEqual(
          ingested.filter((r) => r.symbol === symbol).map((r) => (r as { trade_id: number }).trade_id),
        );
      }
      // The whole family's recent rows, from hours that have not settled (deltas only) and from before (every file of the day).
      for (const from of [unsettledFrom(now), unsettledFrom(now) - HOUR, D0]) {
        expect(await servedFamily(from), `all symbols from ${new Date(from).toISOString()} at ${new Date(now).toISOString()}`).toEqual(
          ingested
            .filter((r) => r.ts >= from)
            .map((r) => (r as { trade_id: number }).trade_id)
            .sort((a, b) => a - b),
        );
      }
    }
    // Assess, the open day: closed hours are hour files, the open hour is in delta compactions.
    const open = await deps.manifest.compactedFilesOfDay('trades', 'perpx', '2026-10-05');
    expect(new Set(open.map((f) => f.tier))).toEqual(new Set(['hour']));
    expect([...new Set(open.map((f) => f.hour))].sort()).toEqual([1, 2, 3]);
    const candles = await readMinuteCandles(deps, { family: 'perpx', symbol: 'ETH', from: D0, to: D0 + DAY - 1 });
    expect(candles.map((c) => ({ ts: c.ts, trade_count: c.trade_count, volume: c.volume }))).toEqual(candlesOf(ingested, 'ETH'));

    // Act: the day closes, and a late batch arrives for it the day after.
    now = D0 + DAY + SETTLE_MS + MINUTE;
    rewritten += (await compactWhileReading(ingested)).rowsWritten;
    const late = [trade({ ts: D0 + 2 * HOUR + 1, trade_id: 1_000_000, symbol: 'SOL', size: '1' })];
    await ingestBatch(deps, 'normalized', jsonl(late));
    ingested.push(...late);
    now += MINUTE;
    const lateRun = await compactArchive(deps, { datasets: ['trades'], families: ['perpx'] });

    // Assess, the closed day: one file per symbol, no deltas, every row once, candles right.
    const closed = await deps.manifest.compactedFilesOfDay('trades', 'perpx', '2026-10-05');
    expect(closed.map((f) => [f.symbol, f.tier]).sort()).toEqual(SYMBOLS.map((s) => [s, undefined]).sort());
    expect(await deps.manifest.deltaFiles('trades', 'perpx', '2026-10-05', '2026-10-05')).toEqual([]);
    for (const symbol of SYMBOLS)
      expect((await served(symbol)).sort((a, b) => a - b)).toEqual(
        ingested
          .filter((r) => r.symbol === symbol)
          .map((r) => (r as { trade_id: number }).trade_id)
          .sort((a, b) => a - b),
      );
    const closedCandles = await readMinuteCandles(deps, { family: 'perpx', symbol: 'SOL', from: D0, to: D0 + DAY - 1 });
    expect(closedCandles.map((c) => ({ ts: c.ts, trade_count: c.trade_count, volume: c.volume }))).toEqual(candlesOf(ingested, 'SOL'));
    // Each ingested row was rewritten at most three times (into a delta compaction, an hour file, a day file).
    expect(rewritten / (ingested.length - late.length)).toBeLessThanOrEqual(3);
    // The late row rewrote only its own symbol's day.
    expect(lateRun.rowsWritten).toBe(ingested.filter((r) => r.symbol === 'SOL').length);
  });
});

describe('the fold budget', () => {
  it('always merges ingest deltas, and leaves hour and day folds to a later run once the budget is spent', async () => {
    // Prepare: an hour of batches on another day, then the clock past that hour.
    const day = D0 + 10 * DAY;
    const records = [...batch(day + 10 * MINUTE, 5_000_000), ...batch(day + 40 * MINUTE, 5_100_000)];
    now = day + 41 * MINUTE;
    await ingestBatch(deps, 'normalized', jsonl(records));
    now = day + HOUR + SETTLE_MS + MINUTE;
    // Act
    const spent = await compactArchive(deps, { datasets: ['trades'], families: ['perpx'], foldBudgetMs: 0 });
    const afterSpent = await deps.manifest.deltaFiles('trades', 'perpx', '2026-10-15', '2026-10-15');
    const next = await compactArchive(deps, { datasets: ['trades'], families: ['perpx'], foldBudgetMs: 60_000 });
    // Assess
    expect(spent).toMatchObject({ foldsDeferred: 1 });
    expect(afterSpent.map((d) => d.tier)).toEqual(['minute']);
    expect(next.foldsDeferred).toBe(0);
    expect((await deps.manifest.compactedFilesOfDay('trades', 'perpx', '2026-10-15')).map((f) => [f.symbol, f.tier, f.hour]).sort()).toEqual(
      SYMBOLS.map((s) => [s, 'hour', 0]).sort(),
    );
    for (const symbol of SYMBOLS) {
      const { rows } = await readWindow(deps, { dataset: 'trades', family: 'perpx', symbol, from: day, to: day + DAY - 1, limit: 10_000 });
      expect(rows.map((r) => Number(r.trade_id))).toEqual(records.filter((r) => r.symbol === symbol).map((r) => (r as { trade_id: number }).trade_id));
    }
  });
});

describe('a closing day with many markets', () => {
  it('folds hour files into day files a step of symbols at a time, every row readable once throughout', async () => {
    // Prepare: 40 markets trading in hours 1 and 2 of a day, folded into hour files while it was open.
    const day = D0 + 20 * DAY;
    const markets = Array.from({ length: 40 }, (_, i) => `K${i}`);
    const records = markets.flatMap((symbol, m) =>
      [0, 1].flatMap((h) =>
        Array.from({ length: 3 }, (_, k) =>
          trade({ ts: day + (h + 1) * HOUR + k * MINUTE + m, trade_id: 7_000_000 + m * 100 + h * 10 + k, symbol, size: '1' }),
        ),
      ),
    );
    now = day + 3 * HOUR;
    await ingestBatch(deps, 'normalized', jsonl(records));
    now = day + 3 * HOUR + SETTLE_MS + MINUTE;
    await compactArchive(deps, { datasets: ['trades'], families: ['perpx'] });
    const open = await deps.manifest.compactedFilesOfDay('trades', 'perpx', '2026-10-25');
    const idsOf = (symbol: string) => records.filter((r) => r.symbol === symbol).map((r) => (r as { trade_id: number }).trade_id);
    const read = async (symbol: string) =>
      (await readWindow(deps, { dataset: 'trades', family: 'perpx', symbol, from: day, to: day + DAY - 1, limit: 100 })).rows.map((r) => Number(r.trade_id));

    // Act: the day closes; readers of the first and the last market run throughout the fold.
    now = day + DAY + SETTLE_MS + MINUTE;
    let folding = true;
    const seen: [string, number[]][] = [];
    const reader = (async () => {
      while (folding) for (const symbol of ['K0', 'K39']) seen.push([symbol, await read(symbol)]);
    })();
    await compactArchive(deps, { datasets: ['trades'], families: ['perpx'] });
    folding = false;
    await reader;

    // Assess
    expect(open.every((f) => f.tier === 'hour')).toBe(true);
    for (const [symbol, ids] of seen) expect(ids, symbol).toEqual(idsOf(symbol));
    const closed = await deps.manifest.compactedFilesOfDay('trades', 'perpx', '2026-10-25');
    expect(closed.filter((f) => f.tier === 'hour')).toEqual([]);
    expect(closed.map((f) => f.symbol).sort()).toEqual([...markets].sort());
    const candleFiles = await deps.manifest.compactedFilesOfDay('candles_1m', 'perpx', '2026-10-25');
    // Candles are per symbol too: one day file per market.
    expect(candleFiles.map((f) => [f.symbol, f.tier]).sort()).toEqual(markets.map((s) => [s, undefined]).sort());
    for (const symbol of ['K0', 'K17', 'K39']) {
      const candles = await readMinuteCandles(deps, { family: 'perpx', symbol, from: day, to: day + DAY - 1 });
      expect(
        candles.map((c) => c.trade_count),
        symbol,
      ).toEqual([1, 1, 1, 1, 1, 1]);
    }
  });
});

describe('a symbol-day too big for a fold step', () => {
  it('keeps its hour files as its last tier while the other symbols fold, every row once, late rows too', async () => {
    // Prepare: in hours 1 and 2 of a day, BIG trades every 2 s (3,600 rows) and SMALL every minute (120).
    const day = D0 + 30 * DAY;
    const records = [0, 1].flatMap((h) => [
      ...Array.from({ length: 1_800 }, (_, k) =>
        trade({ ts: day + (h + 1) * HOUR + k * 2_000, trade_id: 8_000_000 + h * 10_000 + k, symbol: 'BIG', size: '1' }),
      ),
      ...Array.from({ length: 60 }, (_, k) =>
        trade({ ts: day + (h + 1) * HOUR + k * MINUTE + 7, trade_id: 8_100_000 + h * 1_000 + k, symbol: 'SMALL', size: '1' }),
      ),
    ]);
    now = day + 3 * HOUR;
    await ingestBatch(deps, 'normalized', jsonl(records));
    now = day + 3 * HOUR + SETTLE_MS + MINUTE;
    await compactArchive(deps, { datasets: ['trades'], families: ['perpx'] });
    const ids = (symbol: string, of: readonly NormalizedRecord[]) =>
      of
        .filter((r) => r.symbol === symbol)
        .map((r) => (r as { trade_id: number }).trade_id)
        .sort((a, b) => a - b);
    const read = async (symbol: string) =>
      (await readWindow(deps, { dataset: 'trades', family: 'perpx', symbol, from: day, to: day + DAY - 1, limit: 100_000 })).rows
        .map((r) => Number(r.trade_id))
        .sort((a, b) => a - b);

    // Act: the day closes with a fold step of 1,000 rows; then a late BIG row arrives.
    now = day + DAY + SETTLE_MS + MINUTE;
    await compactArchive(deps, { datasets: ['trades'], families: ['perpx'], dayFoldStepRows: 1_000 });
    const folded = await deps.manifest.compactedFilesOfDay('trades', 'perpx', '2026-11-04');
    const late = [trade({ ts: day + HOUR + 1, trade_id: 8_200_000, symbol: 'BIG', size: '1' })];
    await ingestBatch(deps, 'normalized', jsonl(late));
    now += MINUTE;
    await compactArchive(deps, { datasets: ['trades'], families: ['perpx'], dayFoldStepRows: 1_000 });

    // Assess: BIG stayed in its two hour files, SMALL is one day file; each serves every row once.
    expect(
      visibleFiles(folded, [])
        .map((f) => [f.symbol, f.tier ?? 'day', f.hour])
        .sort(),
    ).toEqual([
      ['BIG', 'hour', 1],
      ['BIG', 'hour', 2],
      ['SMALL', 'day', undefined],
    ]);
    expect(await read('SMALL')).toEqual(ids('SMALL', records));
    expect(await read('BIG')).toEqual(ids('BIG', [...records, ...late]));
    expect(await deps.manifest.deltaFiles('trades', 'perpx', '2026-11-04', '2026-11-04')).toEqual([]);
    const candles = await readMinuteCandles(deps, { family: 'perpx', symbol: 'BIG', from: day, to: day + DAY - 1 });
    expect(candles.map((c) => ({ ts: c.ts, trade_count: c.trade_count, volume: c.volume }))).toEqual(candlesOf([...records, ...late], 'BIG'));
  });
});

describe('the run budget', () => {
  it('starts one partition once the budget is spent, and the next runs take the rest in turn', async () => {
    // Prepare: trades of three families on a day of their own (three partitions with deltas).
    const day = D0 + 40 * DAY;
    const families = ['perpx', 'spot', 'hip3'] as const;
    const symbolOf = { perpx: 'BTC', spot: 'HYPE-USDC', hip3: 'xyz:TSLA' } as const;
    const records = families.flatMap((family, f) =>
      Array.from({ length: 30 }, (_, i) => trade({ family, symbol: symbolOf[family], ts: day + 10 * MINUTE + i * 1_000, trade_id: 7_000_000 + f * 100 + i })),
    );
    now = day + 11 * MINUTE;
    await ingestBatch(deps, 'normalized', jsonl(records));
    const pending = async () => {
      const left = await Promise.all(
        families.map(async (family) => (await deps.manifest.deltaFiles('trades', family, '2026-11-14', '2026-11-14')).filter((d) => d.tier === undefined)),
      );
      return families.filter((_, f) => left[f]!.length > 0);
    };
    // Act
    const left: number[] = [];
    while ((await pending()).length > 0 && left.length < 10) {
      const report = await compactArchive(deps, { datasets: ['trades'], families: [...families], runBudgetMs: 0 });
      expect(report.partitionsDeferred).toBeGreaterThanOrEqual(left.length === 0 ? 2 : 1);
      left.push((await pending()).length);
      now += MINUTE;
    }
    // Assess: one partition a run (deferred ones still hold deltas, merged or not), every family merged, every row read back once.
    expect(left).toEqual([2, 1, 0]);
    for (const family of families) {
      const { rows } = await readWindow(deps, { dataset: 'trades', family, symbol: symbolOf[family], from: day, to: day + DAY - 1, limit: 1_000 });
      expect(rows.map((r) => Number(r.trade_id))).toEqual(records.filter((r) => r.family === family).map((r) => (r as { trade_id: number }).trade_id));
    }
  });
});
