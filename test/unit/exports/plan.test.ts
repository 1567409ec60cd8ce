/** Export planning from the manifest alone: partitions, quote and price, with an in-memory manifest. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planExport, priceUsd } from '#core/exports/plan.ts';
import type { ArchiveFile, ArchiveManifest } from '#ports/archive.ts';
import { EXPORT_FORMATS, EXPORT_SCHEMAS, type CreateExportBody } from '#schemas/exports.ts';
import { DATASETS, type Dataset } from '#schemas/datasets.ts';

const DAY = 86_400_000;
const DAY0 = Date.UTC(2026, 10, 1);
const NOW = Date.UTC(2026, 10, 26);
const SYMBOLS = ['BTC', 'ETH', 'SOL', 'HYPE'];
const dayOf = (ts: number) => new Date(ts - (ts % DAY)).toISOString().slice(0, 10);

/** Only the two reads planning makes; every other member is a bug if called. */
function manifestOf(files: readonly ArchiveFile[]): ArchiveManifest {
  return {
    compactedFilesOfDay: async (_d, _f, day) => files.filter((f) => f.kind === 'compacted' && f.day === day),
    deltaFiles: async (_d, _f, fromDay, toDay) => files.filter((f) => f.kind === 'delta' && f.day >= fromDay && f.day <= toDay),
  } as Partial<ArchiveManifest> as ArchiveManifest;
}

let n = 0;
function file(kind: 'compacted' | 'delta', symbols: string[], minTs: number, maxTs: number, rows: number): ArchiveFile {
  n += 1;
  return {
    fileId: `f${n}`,
    key: `k${n}`,
    dataset: 'trades',
    family: 'perpx',
    day: dayOf(minTs),
    kind,
    ...(kind === 'compacted' && { symbol: symbols[0] }),
    symbols,
    rows,
    bytes: rows * 60,
    etag: 'e',
    minTs,
    maxTs,
    replaces: [],
    createdAt: n,
  };
}

const body = (over: Partial<CreateExportBody> = {}): CreateExportBody => ({
  schema: 'trades',
  family: 'perpx',
  start: DAY0,
  end: DAY0 + 3 * DAY,
  dry_run: true,
  ...over,
});

/** Files inside days 0-2 of the window: a compacted file per symbol-day picked, and deltas of several symbols. */
const filesArb = fc
  .tuple(
    fc.array(fc.record({ day: fc.integer({ min: 0, max: 2 }), symbol: fc.constantFrom(...SYMBOLS), rows: fc.integer({ min: 1, max: 10_000 }) }), {
      maxLength: 12,
    }),
    fc.array(fc.record({ day: fc.integer({ min: 0, max: 2 }), symbols: fc.subarray(SYMBOLS, { minLength: 1 }), rows: fc.integer({ min: 1, max: 10_000 }) }), {
      maxLength: 6,
    }),
  )
  .map(([compacted, deltas]) => {
    // One compacted file per symbol-day (visibility keeps the newest of a slot; planning sees what readers see).
    const slots = new Map(compacted.map((c) => [`${c.day}${c.symbol}`, c]));
    return [
      ...[...slots.values()].map((c) => file('compacted', [c.symbol], DAY0 + c.day * DAY + 1_000, DAY0 + c.day * DAY + 80_000_000, c.rows)),
      ...deltas.map((d) => file('delta', d.symbols, DAY0 + d.day * DAY + 100, DAY0 + d.day * DAY + 86_000_000, d.rows)),
    ];
  });

describe('planning an export', () => {
  it('makes one partition per symbol-day with rows, numbered in day then symbol order, and estimates every row inside the window', async () => {
    await fc.assert(
      fc.asyncProperty(filesArb, fc.option(fc.subarray(SYMBOLS, { minLength: 1 }), { nil: undefined }), async (files, symbols) => {
        const wanted = files.filter((f) => !symbols || f.symbols.some((s) => symbols.includes(s)));
        if (wanted.length === 0) {
          await expect(planExport(manifestOf(files), body({ symbols }), NOW)).rejects.toMatchObject({ code: 'invalid_parameter' });
          return;
        }
        const plan = await planExport(manifestOf(files), body({ symbols }), NOW);
        const cells = new Set(wanted.flatMap((f) => f.symbols.filter((s) => !symbols || symbols.includes(s)).map((s) => `${f.day} ${s}`)));
        expect(plan.partitions.map((p) => `${p.d} ${p.s}`)).toEqual([...cells].sort());
        expect(plan.partitions.map((p) => p.i)).toEqual(plan.partitions.map((_, i) => i));
        // Every file lies wholly inside the window: the estimate is each file's share of the symbols asked for.
        const expected = wanted.reduce((sum, f) => sum + (f.rows * f.symbols.filter((s) => !symbols || symbols.includes(s)).length) / f.symbols.length, 0);
        // Rounded once at the end (a sum at x.5 may round either way in floating point).
        expect(Math.abs(plan.quote.estimated_rows - expected)).toBeLessThanOrEqual(0.5 + 1e-9);
        expect(plan.quote.partitions).toBe(plan.partitions.length);
        expect(plan.quote.price_usd).toBe(priceUsd('trades', plan.quote.estimated_bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('counts only the part of a file inside [start, end)', async () => {
    const whole = file('compacted', ['BTC'], DAY0, DAY0 + DAY - 1, 86_400);
    const plan = await planExport(manifestOf([whole]), body({ start: DAY0 + 6 * 3_600_000, end: DAY0 + 12 * 3_600_000 }), NOW);
    expect(plan.quote.estimated_rows).toBe(21_600);
    expect(plan.partitions).toEqual([{ i: 0, s: 'BTC', d: dayOf(DAY0) }]);
  });
});

describe('the price rule', () => {
  it('is 8 USD per GB with a 15 USD minimum for trades and 25 USD for order events, rounded up to the cent', () => {
    expect(priceUsd('trades', 0)).toBe(15);
    expect(priceUsd('trades', 1e9)).toBe(15);
    expect(priceUsd('trades', 2e9)).toBe(16);
    expect(priceUsd('trades', 2e9 + 1)).toBe(16.01);
    expect(priceUsd('order_events', 3e9)).toBe(25);
    expect(priceUsd('order_events', 4e9)).toBe(32);
    fc.assert(fc.property(fc.nat(), fc.nat(), (a, b) => (a <= b ? priceUsd('trades', a) <= priceUsd('trades', b) : true)));
  });
});

describe('the export schemas', () => {
  it('give every dataset with an export rule a versioned file format over its own columns, and no other', () => {
    const priced = (Object.keys(DATASETS) as Dataset[]).filter((d) => (DATASETS[d] as { export?: unknown }).export !== undefined);
    expect([...EXPORT_SCHEMAS].sort()).toEqual(priced.sort());
    for (const name of EXPORT_SCHEMAS) {
      const format = EXPORT_FORMATS[name];
      const stored = new Set(DATASETS[format.dataset].columns.map((c) => c.name));
      expect(format.version).toBe(`${name}.v1`);
      for (const column of format.columns.filter((c) => c.sql === c.name)) expect(stored, `${name}.${column.name}`).toContain(column.name);
      for (const key of DATASETS[format.dataset].uniqueBy) expect(format.orderBy, `${name} orders by its key`).toContain(key);
    }
  });
});
