/**
 * 1-minute candles per symbol: whatever the batches, compactions and live tail, each symbol's
 * candles (and the family's, read at once) equal a computation from its raw trades, also while
 * compaction runs; family-wide candle files from before the split keep being read right, beside the
 * per-symbol files that supersede them.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ingestBatch } from '#core/archive/ingest.ts';
import { SETTLE_MS, compactArchive } from '#core/archive/compact.ts';
import { minuteCandleSource, readMinuteCandles } from '#core/archive/read-candles.ts';
import { candlesPage } from '#core/market/candles.ts';
import { candlesFromTradesSql } from '#core/archive/sql.ts';
import { compactedKey } from '#core/archive/layout.ts';
import { DAY, HOUR, MINUTE, clockedArchive } from '../helpers/clocked-archive.ts';
import { jsonl, trade } from '../helpers/records.ts';
import { routePaging } from '../helpers/api.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';

const archive = clockedArchive();

const D0 = Date.UTC(2026, 8, 1);
const SYMBOLS = ['BTC', 'ETH', 'SOL'];

type Trade = { symbol: string; ts: number; trade_id: number; price: number; size: number };

/** A symbol's trades rolled up here into `width`-wide buckets (open and close by time, then trade id). */
function bucketsOf(trades: readonly Trade[], symbol: string, width: number) {
  const byBucket = new Map<number, Trade[]>();
  for (const t of trades.filter((t) => t.symbol === symbol)) {
    const bucket = Math.floor(t.ts / width) * width;
    byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), t]);
  }
  return [...byBucket]
    .sort(([a], [b]) => a - b)
    .map(([bucket, group]) => {
      const ordered = [...group].sort((a, b) => a.ts - b.ts || a.trade_id - b.trade_id);
      return {
        bucket,
        open: ordered[0]!.price,
        high: Math.max(...group.map((t) => t.price)),
        low: Math.min(...group.map((t) => t.price)),
        close: ordered.at(-1)!.price,
        volume: group.reduce((sum, t) => sum + t.size, 0),
        trade_count: group.length,
      };
    });
}

/** A symbol's 1-minute candles as the archive stores them. */
const candlesOf = (trades: readonly Trade[], symbol: string) =>
  bucketsOf(trades, symbol, MINUTE).map(({ bucket, ...candle }) => ({ symbol, ts: bucket, ...candle }));

/** A symbol's candles as the candles route serves them (without quote_volume). */
const rolledUp = (trades: readonly Trade[], symbol: string, width: number) =>
  bucketsOf(trades, symbol, width).map(({ bucket, ...candle }) => ({ timestamp: new Date(bucket).toISOString(), ...candle }));

const shape = (rows: readonly Record<string, unknown>[]) =>
  rows.map((r) => ({
    symbol: r.symbol,
    ts: r.ts,
    open: r.open,
    high: r.high,
    low: r.low,
    close: r.close,
    volume: r.volume,
    trade_count: r.trade_count,
  }));

/**
 * The candles route's pages of one symbol (1m or 1h buckets), `limit` buckets a page, cursors
 * followed to the end, without the members computed from the others.
 */
async function routePage(symbol: string, interval: '1m' | '1h', from: number, to: number, limit = 10_000) {
  const rows: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const page = await candlesPage(
      archive.deps,
      { ...routePaging('getPerpxCandles'), family: 'perpx', symbol, interval, start: from, end: to + 1, limit, cursor },
      archive.now,
    );
    rows.push(...(JSON.parse(`[${page.json}]`) as Record<string, unknown>[]));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return rows.map(({ quote_volume: _quote, ...rest }) => rest);
}

/** Every symbol's candles of [from, to], read at once (as breadth and detection read them). */
async function familyCandles(from: number, to: number) {
  const source = await minuteCandleSource(archive.deps, { family: 'perpx', from, to });
  return source ? shape(await archive.deps.sql.query({ sql: `${source.sql} ORDER BY symbol, ts`, params: source.params })) : [];
}

/** Each symbol's candles and the family's, as the archive serves them now, against the raw computation. */
async function expectCandles(trades: readonly Trade[], from: number, to: number, when: string) {
  for (const symbol of SYMBOLS) {
    expect(shape(await readMinuteCandles(archive.deps, { family: 'perpx', symbol, from, to })), `${symbol} ${when}`).toEqual(candlesOf(trades, symbol));
  }
  expect(await familyCandles(from, to), `family ${when}`).toEqual(SYMBOLS.flatMap((s) => candlesOf(trades, s)));
}

/** Compacts while readers of one symbol's and the family's candles run: every read must equal the raw computation. */
async function compactWhileReading(trades: readonly Trade[], from: number, to: number) {
  let compacting = true;
  const failures: unknown[] = [];
  const reader = (async () => {
    while (compacting)
      await expectCandles(trades, from, to, 'during compaction').catch((error: unknown) => {
        failures.push(error);
      });
  })();
  await compactArchive(archive.deps, { datasets: ['trades'], families: ['perpx'] });
  compacting = false;
  await reader;
  expect(failures).toEqual([]);
}

const asRecords = (trades: readonly Trade[]): NormalizedRecord[] =>
  trades.map((t) => trade({ symbol: t.symbol, ts: t.ts, trade_id: t.trade_id, price: String(t.price), size: String(t.size) }));

/** Trades over two days, bunched near hour and day boundaries (distinct times per symbol, so open and close are unambiguous). */
const tradesArb = (base: number, firstId: number) =>
  fc
    .uniqueArray(
      fc.record({
        symbol: fc.constantFrom(...SYMBOLS),
        hour: fc.integer({ min: 0, max: 47 }),
        within: fc.oneof(fc.integer({ min: 0, max: HOUR - 1 }), fc.constantFrom(0, 1, MINUTE - 1, MINUTE, HOUR - MINUTE, HOUR - 1)),
        price: fc.integer({ min: 1, max: 200 }),
        size: fc.integer({ min: 1, max: 5 }),
        // A second trade a millisecond later at another price: a batch often splits a minute between them.
        twin: fc.boolean(),
      }),
      { minLength: 1, maxLength: 60, selector: (t) => `${t.symbol}#${t.hour}#${t.within}` },
    )
    .map((drawn) => {
      const byTime = new Map<string, Omit<Trade, 'trade_id'>>();
      for (const t of drawn) {
        const ts = base + t.hour * HOUR + t.within;
        const twins: [number, number][] = t.twin
          ? [
              [ts, t.price],
              [ts + 1, t.price + 1],
            ]
          : [[ts, t.price]];
        for (const [at, price] of twins) {
          if (at < base + 2 * DAY && !byTime.has(`${t.symbol}#${at}`)) byTime.set(`${t.symbol}#${at}`, { symbol: t.symbol, ts: at, price, size: t.size });
        }
      }
      return [...byTime.values()].map((t, i): Trade => ({ ...t, trade_id: firstId + i }));
    });

describe('1-minute candles per symbol', () => {
  it("equal each symbol's raw trades across hour and day boundaries, batches, compactions and a live tail, also while compacting", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 0, max: 1_000 })
          .chain((seed) => fc.tuple(tradesArb(D0 + (run + 1) * 4 * DAY, (run + 1) * 1_000_000), fc.integer({ min: 1, max: 3 }), fc.constant(seed))),
        async ([trades, batches]) => {
          const base = D0 + (run + 1) * 4 * DAY;
          run += 1;
          const ordered = [...trades].sort((a, b) => a.ts - b.ts);
          const from = base;
          const to = base + 2 * DAY - 1;
          const seen: Trade[] = [];
          // Batches in time order, each compacted once its hours have closed; the last stays a live tail.
          for (let b = 0; b < batches; b++) {
            const part = ordered.slice(Math.floor((b * ordered.length) / batches), Math.floor(((b + 1) * ordered.length) / batches));
            if (part.length === 0) continue;
            archive.now = part.at(-1)!.ts + 1_000;
            await ingestBatch(archive.deps, 'normalized', jsonl(asRecords(part)));
            seen.push(...part);
            if (b < batches - 1) {
              archive.now = part.at(-1)!.ts + SETTLE_MS + HOUR;
              await compactWhileReading(seen, from, to);
            }
          }
          await expectCandles(seen, from, to, 'with the live tail');
          for (const symbol of SYMBOLS) {
            expect(await routePage(symbol, '1m', from, to), `${symbol} 1m page`).toEqual(rolledUp(seen, symbol, MINUTE));
            expect(await routePage(symbol, '1h', from, to), `${symbol} 1h page`).toEqual(rolledUp(seen, symbol, HOUR));
            // Pages of a few buckets over sparse trades: most of a page's first span holds none.
            expect(await routePage(symbol, '1m', from, to, 2), `${symbol} 1m pages of 2`).toEqual(rolledUp(seen, symbol, MINUTE));
            expect(await routePage(symbol, '1h', from, to, 3), `${symbol} 1h pages of 3`).toEqual(rolledUp(seen, symbol, HOUR));
          }
          // Assess: the candle files are one symbol's each.
          for (const day of [0, 1]) {
            const files = await archive.deps.manifest.compactedFilesOfDay('candles_1m', 'perpx', new Date(base + day * DAY).toISOString().slice(0, 10));
            expect(files.every((f) => f.symbol !== undefined && f.symbols.length === 1)).toBe(true);
          }
        },
      ),
      { numRuns: 6 },
    );
  });

  it('keeps reading family-wide candle files from before the split, beside the per-symbol files that supersede them', async () => {
    // Prepare: a closed day compacted per symbol, then its candle files swapped for one family-wide file (as before the split).
    const day = D0 + 60 * DAY;
    const dayName = '2026-10-31';
    const trades: Trade[] = SYMBOLS.flatMap((symbol, s) =>
      Array.from({ length: 6 }, (_, i) => ({
        symbol,
        ts: day + i * 3 * HOUR + s * 1_000,
        trade_id: 9_000_000 + s * 100 + i,
        price: 10 + i + s,
        size: 1 + s,
      })),
    );
    archive.now = day + HOUR;
    await ingestBatch(archive.deps, 'normalized', jsonl(asRecords(trades)));
    archive.now = day + DAY + SETTLE_MS + MINUTE;
    await compactArchive(archive.deps, { datasets: ['trades'], families: ['perpx'] });
    const tradeFiles = await archive.deps.manifest.compactedFilesOfDay('trades', 'perpx', dayName);
    const own = await archive.deps.manifest.compactedFilesOfDay('candles_1m', 'perpx', dayName);
    const path = join(archive.deps.scratchDir, 'family-wide-candles.parquet');
    await archive.deps.sql.execute({
      sql: `COPY (${candlesFromTradesSql('read_parquet($files)')} ORDER BY symbol, ts) TO $path (FORMAT parquet)`,
      params: { files: await archive.deps.files.paths(tradeFiles), path },
    });
    const key = compactedKey('candles_1m', 'perpx', undefined, dayName, 'before-the-split');
    const { etag, bytes } = await archive.deps.objects.putFile(key, path);
    await archive.deps.manifest.putFile({
      fileId: 'c-candles_1m-before-the-split',
      key,
      dataset: 'candles_1m',
      family: 'perpx',
      day: dayName,
      kind: 'compacted',
      symbols: SYMBOLS,
      rows: trades.length,
      bytes,
      etag,
      minTs: Math.min(...trades.map((t) => t.ts)),
      maxTs: Math.max(...trades.map((t) => t.ts)),
      replaces: [],
      createdAt: archive.now,
    });
    for (const file of own) await archive.deps.manifest.deleteFile(file);
    await expectCandles(trades, day, day + DAY - 1, 'from the family-wide file');

    // Act: a late trade of ETH for that day, folded into ETH's own day file while readers read.
    const late: Trade = { symbol: 'ETH', ts: day + 3 * HOUR + 1_000 + 5, trade_id: 9_500_000, price: 99, size: 7 };
    archive.now += HOUR;
    await ingestBatch(archive.deps, 'normalized', jsonl(asRecords([late])));
    await expectCandles([...trades, late], day, day + DAY - 1, 'with the late trade as a tail');
    archive.now += MINUTE;
    await compactWhileReading([...trades, late], day, day + DAY - 1);

    // Assess: ETH now reads its own day file, the others still the family-wide one.
    const after = await archive.deps.manifest.compactedFilesOfDay('candles_1m', 'perpx', dayName);
    expect(after.map((f) => f.symbol ?? '*').sort()).toEqual(['*', 'ETH']);
    await expectCandles([...trades, late], day, day + DAY - 1, 'after the fold');
  });
});
