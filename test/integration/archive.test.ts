import { describe, expect, it } from 'vitest';
import { ingestBatch } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { readMinuteCandles } from '#core/archive/read-candles.ts';
import { readWindow } from '#core/archive/read-pages.ts';
import { windowSource } from '#core/archive/read.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';
import { jsonl, T0, trade, trades } from '../helpers/records.ts';

const deps = scratchArchive();

const HOUR = 3_600_000;
const readAll = (symbol: string, from: number, to: number, limit = 10_000) =>
  readWindow(deps(), { dataset: 'trades', family: 'perpx', symbol, from, to, limit });

describe('ingest', () => {
  it('writes a batch as delta files readable in time order with decimals kept as strings', async () => {
    // Prepare
    const batch = jsonl([...trades(5, T0 + HOUR, 1, 'ETH'), trade({ ts: T0 + HOUR + 500, trade_id: 99, symbol: 'ETH', price: '3400.123456789' })]);
    // Act
    const result = await ingestBatch(deps(), 'normalized', batch);
    const { rows } = await readAll('ETH', T0, T0 + 2 * HOUR);
    // Assess
    expect(result).toMatchObject({ status: 'ingested', records: 6, files: 1 });
    expect(rows.map((r) => r.trade_id)).toEqual([1, 99, 2, 3, 4, 5]);
    expect(rows[1]).toMatchObject({ price: '3400.123456789', size: '0.0123', symbol: 'ETH', family: 'perpx' });
  });

  it('adds nothing when the same batch arrives twice', async () => {
    const batch = jsonl(trades(3, T0 + 2 * HOUR, 1000, 'SOL'));
    await ingestBatch(deps(), 'normalized', batch);
    const before = await deps().manifest.deltaFiles('trades', 'perpx', '2026-11-18', '2026-11-18');
    await expect(ingestBatch(deps(), 'normalized', batch)).resolves.toMatchObject({ status: 'duplicate' });
    expect(await deps().manifest.deltaFiles('trades', 'perpx', '2026-11-18', '2026-11-18')).toHaveLength(before.length);
    expect((await readAll('SOL', T0, T0 + 3 * HOUR)).rows).toHaveLength(3);
  });

  it('ingests a batch delivered twice at once (a redelivery overlapping the first attempt) without either failing', async () => {
    // Prepare: several partitions (two days, two symbols), so the two calls write their files side by side.
    const batch = jsonl([...trades(40, T0 + 5 * HOUR, 4000, 'LTC'), ...trades(40, T0 + 30 * HOUR, 5000, 'LTC'), ...trades(40, T0 + 5 * HOUR, 6000, 'XRP')]);
    // Act
    const results = await Promise.all([ingestBatch(deps(), 'normalized', batch), ingestBatch(deps(), 'normalized', batch)]);
    // Assess
    expect(results.map((r) => r.status)).toEqual(['ingested', 'ingested']);
    expect((await readAll('LTC', T0, T0 + 2 * 24 * HOUR)).rows).toHaveLength(80);
    expect((await readAll('XRP', T0, T0 + 24 * HOUR)).rows).toHaveLength(40);
  });

  it('collapses a trade repeated in another batch on its trade_id', async () => {
    await ingestBatch(deps(), 'normalized', jsonl(trades(4, T0 + 3 * HOUR, 2000, 'DOGE')));
    await ingestBatch(
      deps(),
      'normalized',
      jsonl([...trades(2, T0 + 3 * HOUR, 2000, 'DOGE'), trade({ ts: T0 + 3 * HOUR + 9000, trade_id: 2009, symbol: 'DOGE' })]),
    );
    expect((await readAll('DOGE', T0, T0 + 4 * HOUR)).rows.map((r) => r.trade_id)).toEqual([2000, 2001, 2002, 2003, 2009]);
  });

  it('refuses a batch with one bad row whole, naming the line and field, and refuses it again on redelivery', async () => {
    // Prepare: line 3 has a price that is not a decimal string.
    const good = trades(2, T0 + 4 * HOUR, 3000, 'AVAX');
    const bad = { ...trade({ ts: T0 + 4 * HOUR + 5000, trade_id: 3002, symbol: 'AVAX' }), price: 'lots' };
    const batch = jsonl([...good, bad as never]);
    // Act
    const first = await ingestBatch(deps(), 'normalized', batch);
    const again = await ingestBatch(deps(), 'normalized', batch);
    // Assess
    expect(first.status).toBe('rejected');
    expect(first.status === 'rejected' && first.reason).toMatch(/line 3: price must be a decimal string/);
    expect(again).toEqual(first);
    expect((await readAll('AVAX', T0, T0 + 5 * HOUR)).rows).toEqual([]);
  });

  it("refuses a symbol written in another family's form", async () => {
    const result = await ingestBatch(deps(), 'normalized', jsonl([trade({ ts: T0, trade_id: 1, family: 'hip3', symbol: 'TSLA' })]));
    expect(result.status === 'rejected' && result.reason).toMatch(/symbol is not in the form of its family/);
  });
});

describe('compaction', () => {
  it('loses and doubles no row while readers read concurrently, and leaves one file per symbol-day', async () => {
    // Prepare: 40 batches of 50 LINK trades, some of them late (an earlier hour).
    for (let b = 0; b < 40; b++) {
      const start = b % 5 === 4 ? T0 + 5 * HOUR + b * 1000 : T0 + 6 * HOUR + b * 60_000;
      await ingestBatch(deps(), 'normalized', jsonl(trades(50, start, 10_000 + b * 50, 'LINK')));
    }
    const expected = 2000;
    // Act: compact while reading as fast as possible.
    let compacting = true;
    const counts: number[] = [];
    const reader = (async () => {
      while (compacting) counts.push((await readAll('LINK', T0, T0 + 24 * HOUR - 1)).rows.length);
    })();
    const report = await compactArchive(deps(), { datasets: ['trades'], families: ['perpx'] });
    compacting = false;
    await reader;
    // Assess
    expect(counts.length).toBeGreaterThan(0);
    expect(new Set(counts)).toEqual(new Set([expected]));
    expect(report.filesWritten).toBeGreaterThan(0);
    const after = await readAll('LINK', T0, T0 + 24 * HOUR - 1);
    expect(after.rows).toHaveLength(expected);
    expect(after.filesRead).toBe(1);
    expect(await deps().manifest.deltaFiles('trades', 'perpx', '2026-11-18', '2026-11-18')).toEqual([]);
  });

  it("reads a whole family of a per-symbol dataset across every symbol's compacted files and fresh deltas", async () => {
    // Prepare: two symbols compacted into their own files, then a fresh delta of a third.
    const day = T0 + 10 * HOUR;
    await ingestBatch(deps(), 'normalized', jsonl([...trades(3, day, 50_000, 'AAVE'), ...trades(2, day, 50_100, 'UNI')]));
    await compactArchive(deps(), { datasets: ['trades'], families: ['perpx'] });
    await ingestBatch(deps(), 'normalized', jsonl(trades(4, day, 50_200, 'CRV')));
    // Act
    const source = await windowSource(deps(), { dataset: 'trades', family: 'perpx', from: day, to: day + 60_000 });
    const rows = await deps().sql.query({ sql: `SELECT symbol, count(*) AS n FROM (${source!.sql}) GROUP BY symbol ORDER BY symbol`, params: source!.params });
    // Assess
    expect(rows.map((r) => [r.symbol, Number(r.n)])).toEqual([
      ['AAVE', 3],
      ['CRV', 4],
      ['UNI', 2],
    ]);
  });

  it('keeps cadence statistics with the files of the series data quality measures only', async () => {
    // Prepare: trades compacted, with the candles and the fill rollups derived from them; a delta of transfers.
    const day = T0 + 11 * HOUR;
    await ingestBatch(deps(), 'normalized', jsonl([...trades(3, day, 60_000, 'AAVE'), ...trades(2, day, 60_100, 'UNI')]));
    await compactArchive(deps(), { datasets: ['trades'], families: ['perpx'] });
    await ingestBatch(
      deps(),
      'normalized',
      jsonl([
        {
          dataset: 'transfers',
          family: 'perpx',
          symbol: 'USDC',
          ts: day,
          user_address: '0x00000000000000000000000000000000000000aa',
          kind: 'send',
          role: 'source',
          amount: '5',
          usdc_value: '5',
          tx_hash: '0xcadence',
        },
      ]),
    );
    const dayText = new Date(day).toISOString().slice(0, 10);
    // Act
    const measured = [
      ...(await deps().manifest.compactedFiles('trades', 'perpx', 'AAVE', dayText, dayText)),
      ...(await deps().manifest.compactedFiles('candles_1m', 'perpx', 'AAVE', dayText, dayText)),
    ];
    const unmeasured = [
      ...(await deps().manifest.compactedFiles('fill_rollups_1h', 'perpx', undefined, dayText, dayText)),
      ...(await deps().manifest.deltaFiles('transfers', 'perpx', dayText, dayText)),
    ];
    // Assess
    expect(measured.map((f) => f.dataset).sort()).toEqual(['candles_1m', 'trades']);
    expect([...(await deps().manifest.cadenceOf(measured)).keys()].sort()).toEqual(measured.map((f) => f.fileId).sort());
    expect(unmeasured.map((f) => f.dataset).sort()).toEqual(['fill_rollups_1h', 'transfers']);
    expect((await deps().manifest.cadenceOf(unmeasured)).size).toBe(0);
  });

  it('keeps keyset pages gapless and in order across the compacted file and a fresh delta', async () => {
    await ingestBatch(deps(), 'normalized', jsonl(trades(30, T0 + 20 * HOUR, 50_000, 'LINK')));
    const seen: number[] = [];
    let after: (number | string)[] | undefined;
    for (;;) {
      const { rows } = await readWindow(deps(), { dataset: 'trades', family: 'perpx', symbol: 'LINK', from: T0, to: T0 + 24 * HOUR - 1, limit: 333, after });
      if (rows.length === 0) break;
      seen.push(...rows.map((r) => Number(r.trade_id)));
      const last = rows[rows.length - 1]!;
      after = [Number(last.ts), Number(last.trade_id)];
    }
    expect(seen).toHaveLength(2030);
    expect(new Set(seen).size).toBe(2030);
  });

  it('derives 1-minute candles that match the trades they come from', async () => {
    // Prepare: three trades in one minute, one in the next; nothing in the minute after.
    const minute = T0 + 10 * HOUR;
    await ingestBatch(
      deps(),
      'normalized',
      jsonl([
        trade({ ts: minute + 1000, trade_id: 70_001, symbol: 'ARB', price: '1.10', size: '10' }),
        trade({ ts: minute + 2000, trade_id: 70_002, symbol: 'ARB', price: '1.30', size: '5' }),
        trade({ ts: minute + 59_000, trade_id: 70_003, symbol: 'ARB', price: '1.00', size: '1' }),
        trade({ ts: minute + 60_500, trade_id: 70_004, symbol: 'ARB', price: '1.20', size: '2' }),
      ]),
    );
    const expected = [
      { ts: minute, open: 1.1, high: 1.3, low: 1.0, close: 1.0, volume: 16, quote_volume: 11 + 6.5 + 1, trade_count: 3 },
      { ts: minute + 60_000, open: 1.2, high: 1.2, low: 1.2, close: 1.2, volume: 2, quote_volume: 2.4, trade_count: 1 },
    ];
    // Act and assess: before compaction (from trade deltas) and after (from the candle file).
    const approx = (rows: Record<string, unknown>[]) => rows.map((r) => ({ ...r, quote_volume: Number(Number(r.quote_volume).toFixed(9)) }));
    const window = { family: 'perpx' as const, symbol: 'ARB', from: minute - HOUR, to: minute + HOUR };
    expect(approx(await readMinuteCandles(deps(), window))).toEqual(expected.map((c) => ({ symbol: 'ARB', ...c })));
    await compactArchive(deps(), { datasets: ['trades'], families: ['perpx'] });
    expect(approx(await readMinuteCandles(deps(), window))).toEqual(expected.map((c) => ({ symbol: 'ARB', ...c })));
  });
});

describe('coverage', () => {
  it('answers a window wholly before coverage without touching storage', async () => {
    // Prepare: a manifest that fails if asked anything.
    const untouchable = new Proxy(
      {},
      {
        get: () => () => {
          throw new Error('storage touched');
        },
      },
    );
    const guarded = { ...deps(), manifest: untouchable as ArchiveDeps['manifest'], files: untouchable as ArchiveDeps['files'] };
    // Act
    const result = await readWindow(guarded, {
      dataset: 'liquidations',
      family: 'perpx',
      symbol: 'BTC',
      from: Date.UTC(2024, 0, 1),
      to: Date.UTC(2024, 0, 2),
      limit: 100,
    });
    const candles = await readMinuteCandles(guarded, { family: 'hip3', symbol: 'xyz:TSLA', from: Date.UTC(2025, 0, 1), to: Date.UTC(2025, 0, 2) });
    // Assess
    expect(result).toEqual({ rows: [], filesRead: 0 });
    expect(candles).toEqual([]);
  });
});
