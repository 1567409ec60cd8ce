import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { visibleFiles } from '#core/archive/files.ts';
import { mayShareRows } from '#core/archive/read.ts';
import type { ArchiveFile } from '#ports/archive.ts';

const file = (fileId: string, over: Partial<ArchiveFile> = {}): ArchiveFile => ({
  fileId,
  key: `k/${fileId}`,
  dataset: 'trades',
  family: 'perpx',
  day: '2026-10-05',
  kind: 'compacted',
  symbol: 'BTC',
  symbols: ['BTC'],
  rows: 1,
  bytes: 1,
  etag: 'e',
  minTs: 0,
  maxTs: 1,
  replaces: [],
  createdAt: 1,
  ...over,
});
const ids = (files: ArchiveFile[]) => files.map((f) => f.fileId).sort();

describe('visible files across the tiers', () => {
  it('shows each hour file, hides the delta compactions they replace, and the ingest deltas those replace', () => {
    // Prepare
    const raw = file('raw', { kind: 'delta', symbol: undefined });
    const minute2 = file('m2', { kind: 'delta', symbol: undefined, tier: 'minute', hour: 2, replaces: ['raw'] });
    const minute1 = file('m1', { kind: 'delta', symbol: undefined, tier: 'minute', hour: 1 });
    const hour1 = file('h1', { tier: 'hour', hour: 1, replaces: ['m1'] });
    const hour0 = file('h0', { tier: 'hour', hour: 0 });
    // Act
    const visible = visibleFiles([hour0, hour1], [raw, minute1, minute2], 'BTC');
    // Assess
    expect(ids(visible)).toEqual(['h0', 'h1', 'm2']);
  });

  it('hides the hour files a day file replaces, and keeps only the newest file of a slot', () => {
    const hours = [0, 1, 2].map((hour) => file(`h${hour}`, { tier: 'hour', hour }));
    const day = file('d', { replaces: ['h0', 'h1', 'h2'], createdAt: 5 });
    const older = file('d-old', { createdAt: 2 });
    expect(ids(visibleFiles([...hours, day, older], []))).toEqual(['d']);
  });

  it('never shows a file that a visible file replaces, whatever the order of the chain', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 10 }), (order) => {
        // A chain raw -> m -> h -> d, listed in any order with duplicates.
        const chain = [
          file('raw', { kind: 'delta' }),
          file('m', { kind: 'delta', tier: 'minute', hour: 1, replaces: ['raw'] }),
          file('h', { tier: 'hour', hour: 1, replaces: ['m'] }),
          file('d', { replaces: ['h'] }),
        ];
        const picked = order.map((i) => chain[i % chain.length]!);
        const visible = visibleFiles(
          picked.filter((f) => f.kind === 'compacted'),
          picked.filter((f) => f.kind === 'delta'),
        );
        const replaced = new Set(picked.flatMap((f) => f.replaces));
        expect(visible.filter((f) => replaced.has(f.fileId))).toEqual([]);
        expect(visible.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe('whether a read must collapse duplicate rows (mayShareRows)', () => {
  it("reads the hour files of many symbols, and one symbol's hours, without deduplicating", () => {
    const hours = ['BTC', 'ETH', 'SOL'].flatMap((symbol) =>
      [0, 1, 2].map((hour) => file(`${symbol}${hour}`, { symbol, symbols: [symbol], tier: 'hour', hour, minTs: hour * 10, maxTs: hour * 10 + 9 })),
    );
    expect(mayShareRows(hours)).toBe(false);
    expect(mayShareRows([hours[0]!])).toBe(false);
  });

  it("deduplicates when a delta is read, when one symbol's files overlap in time, or when an all-symbol file meets another file", () => {
    const btc = file('b', { minTs: 0, maxTs: 10 });
    expect(mayShareRows([btc, file('d', { kind: 'delta', symbol: undefined, symbols: ['BTC'], minTs: 50, maxTs: 60 })])).toBe(true);
    expect(mayShareRows([btc, file('b2', { minTs: 10, maxTs: 20 })])).toBe(true);
    expect(mayShareRows([btc, file('all', { symbol: undefined, symbols: ['BTC', 'ETH'], minTs: 5, maxTs: 8 })])).toBe(true);
    // An all-symbol file apart in time from every other file shares none of their rows.
    expect(mayShareRows([btc, file('all', { symbol: undefined, symbols: ['BTC', 'ETH'], minTs: 11, maxTs: 20 })])).toBe(false);
  });
});
