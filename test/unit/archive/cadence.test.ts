import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CADENCE_SQL, GAP_FLOOR_MS, cadenceFromRow, cadenceOf, observedCadence, recordsMissed, rowsInside, seriesCoverage } from '#core/archive/cadence.ts';
import { duckDbEngine } from '#adapters/duckdb-engine.ts';
import { latencyRecorder, summarize } from '#core/quality/latency.ts';
import type { LatencyMinute, LatencyStore } from '#ports/quality.ts';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 18);

/**
 * A market updating every `stepMs` with silences of whole minutes inserted after some updates, and
 * the same rows cut into files at arbitrary points (as batches and compactions cut them).
 */
const series = fc
  .record({
    stepMs: fc.constantFrom(1_000, 10_000, 60_000),
    runs: fc.array(fc.record({ updates: fc.integer({ min: 30, max: 200 }), silenceMinutes: fc.constantFrom(0, 0, 0, 2, 4, 7, 12, 45) }), {
      minLength: 1,
      maxLength: 6,
    }),
    cuts: fc.array(fc.nat(), { maxLength: 8 }),
  })
  .map(({ stepMs, runs, cuts }) => {
    const times: number[] = [];
    const silences: { start: number; end: number }[] = [];
    let ts = T0;
    runs.forEach((run, r) => {
      for (let i = 0; i < run.updates; i += 1) {
        times.push(ts);
        ts += stepMs;
      }
      // A silence is followed by the next run's updates (the last run's would be the window's tail, not a silence between rows).
      if (run.silenceMinutes > 0 && r < runs.length - 1) {
        const last = times[times.length - 1]!;
        ts = last + run.silenceMinutes * MINUTE;
        silences.push({ start: last, end: ts });
      }
    });
    const points = [...new Set(cuts.map((c) => c % times.length))].sort((a, b) => a - b);
    const files: number[][] = [];
    let from = 0;
    for (const cut of [...points, times.length]) {
      if (cut > from) files.push(times.slice(from, cut));
      from = cut;
    }
    return { stepMs, times, silences, files };
  });

const partsOf = (files: number[][]) => files.map((f) => cadenceOf(f.map((ts) => ({ symbol: 'BTC', ts }))).BTC!);

describe('series coverage from per-file cadence statistics', () => {
  it('finds exactly the silences longer than the floor and five usual intervals, however the rows are cut into files', () => {
    fc.assert(
      fc.property(series, ({ stepMs, times, silences, files }) => {
        const end = times[times.length - 1]!;
        const coverage = seriesCoverage(partsOf(files), T0, end);
        const threshold = Math.max(GAP_FLOOR_MS, 5 * stepMs);
        // The usual interval is measured within a bucket's width (about 9%), so silences near the threshold are left out of the claim.
        const expected = silences.filter((s) => s.end - s.start > threshold * 1.1);
        const unexpected = silences.filter((s) => s.end - s.start < threshold * 0.9);
        for (const s of expected) expect(coverage.gaps).toContainEqual(s);
        for (const s of unexpected) expect(coverage.gaps).not.toContainEqual(s);
        expect(coverage.rows).toBe(times.length);
      }),
    );
  });

  it('keeps completeness and historical coverage between 0 and 1, the latter never above the former', () => {
    fc.assert(
      fc.property(series, fc.integer({ min: -3_600_000, max: 3_600_000 }), fc.integer({ min: 0, max: 7_200_000 }), ({ times, files }, startShift, extra) => {
        const from = T0 + startShift;
        const end = Math.max(from, times[times.length - 1]! + extra);
        const coverage = seriesCoverage(partsOf(files), from, end);
        expect(coverage.completeness).toBeGreaterThanOrEqual(0);
        expect(coverage.completeness).toBeLessThanOrEqual(1);
        expect(coverage.historical).toBeGreaterThanOrEqual(0);
        expect(coverage.historical).toBeLessThanOrEqual(coverage.completeness + 1e-12);
        for (const gap of coverage.gaps) {
          expect(gap.start).toBeGreaterThanOrEqual(from);
          expect(gap.end).toBeLessThanOrEqual(end);
        }
      }),
    );
  });

  it('is complete for a series without silences, and counts the silence after the last row once it outlasts the threshold', () => {
    const times = Array.from({ length: 600 }, (_, i) => T0 + i * 1_000);
    const parts = partsOf([times.slice(0, 250), times.slice(250)]);
    expect(seriesCoverage(parts, T0, times[599]!).completeness).toBe(1);
    const later = seriesCoverage(parts, T0, times[599]! + 20 * MINUTE);
    expect(later.gaps).toEqual([{ start: times[599], end: times[599]! + 20 * MINUTE }]);
    expect(later.completeness).toBeCloseTo(599_000 / (599_000 + 20 * MINUTE), 9);
  });

  it('measures the usual interval and its p95 from the histogram', () => {
    const times = [...Array.from({ length: 100 }, (_, i) => T0 + i * 10_000), T0 + 990_000 + 120_000];
    const cadence = observedCadence(cadenceOf(times.map((ts) => ({ symbol: 'X', ts }))).X!.hist)!;
    expect(cadence.sample_count).toBe(100);
    expect(cadence.median_interval_seconds).toBeGreaterThan(9.1);
    expect(cadence.median_interval_seconds).toBeLessThan(10.9);
    expect(cadence.p95_interval_seconds).toBeLessThan(10.9);
  });
});

describe('what a silence cost and what was recovered inside it', () => {
  it('counts no row of a file whose own silence spans the window, and every row of a late file inside it', () => {
    const before = Array.from({ length: 60 }, (_, i) => T0 + i * 1_000);
    const after = Array.from({ length: 60 }, (_, i) => T0 + 30 * MINUTE + i * 1_000);
    const [file] = partsOf([[...before, ...after]]);
    const start = before[59]!;
    const end = after[0]!;
    expect(rowsInside([file!], start, end)).toBe(0);
    const [late] = partsOf([[start + 5 * MINUTE, start + 6 * MINUTE, start + 7 * MINUTE]]);
    expect(rowsInside([file!, late!], start, end)).toBe(3);
    expect(recordsMissed(end - start, observedCadence(file!.hist))).toBeGreaterThan(1_500);
    expect(recordsMissed(end - start, undefined)).toBe(0);
  });
});

describe('the statistics compaction computes in SQL', () => {
  it('equal the ones ingest computes from the records', async () => {
    // Prepare
    const engine = duckDbEngine({ tempDir: mkdtempSync(join(tmpdir(), 'cadence-')), threads: 1 });
    const rows = [
      ...Array.from({ length: 40 }, (_, i) => ({ symbol: 'BTC', ts: T0 + i * 1_500 + (i % 3) * 7 })),
      { symbol: 'BTC', ts: T0 + 40 * 1_500 + 9 * MINUTE },
      { symbol: 'BTC', ts: T0 + 40 * 1_500 + 9 * MINUTE },
      { symbol: 'ETH', ts: T0 },
      ...Array.from({ length: 5 }, (_, i) => ({ symbol: 'SOL', ts: T0 + i * 20 * MINUTE })),
    ];
    const values = rows.map((r) => `('${r.symbol}', ${r.ts})`).join(', ');

    // Act
    const fromSql = await engine.session(async (session) => {
      await session.execute({ sql: `CREATE TEMP TABLE merged AS SELECT * FROM (VALUES ${values}) t(symbol, ts)`, params: {} });
      return Object.fromEntries((await session.query({ sql: CADENCE_SQL('merged'), params: {} })).map((r) => [String(r.symbol), cadenceFromRow(r)]));
    });

    // Assess
    expect(fromSql).toEqual(cadenceOf(rows));
  });
});

describe('REST latency minutes', () => {
  it('writes each minute once per scope after it ends, however many requests it had, and adds them up', async () => {
    // Prepare
    const written: LatencyMinute[] = [];
    const store: LatencyStore = {
      put: async (_c, m) => {
        written.push(structuredClone(m));
      },
      range: async () => written,
    };
    const recorder = latencyRecorder(() => store, 'c1');

    // Act
    for (let i = 0; i < 50; i += 1) await recorder.record('perpx', 10 + i, T0 + i * 1_000);
    await recorder.record('hip3', 200, T0 + 30_000);
    await recorder.record('perpx', 5, T0 + MINUTE + 1);

    // Assess
    expect(written.map((m) => [m.minute, m.scope, m.count])).toEqual([
      [T0, 'perpx', 50],
      [T0, 'hip3', 1],
    ]);
    const summary = summarize(written.filter((m) => m.scope === 'perpx'))!;
    expect(summary.meanMs).toBeCloseTo(34.5, 9);
    expect(summary.p99Ms).toBeGreaterThan(50);
    expect(summary.p99Ms).toBeLessThan(65);
  });
});
