/**
 * The container's memories (core/archive/files.ts): of window file lists, bounded in files, least
 * recently used first out, and confirmed only by an equal list; of views, an answer only for the files they were read from.
 */
import { describe, expect, it } from 'vitest';
import { fileListMemo, sameFiles, viewMemo } from '#core/archive/files.ts';
import type { ArchiveFile } from '#ports/archive.ts';

const file = (fileId: string, etag = 'e1'): ArchiveFile => ({
  fileId,
  key: `archive/${fileId}`,
  dataset: 'trades',
  family: 'perpx',
  day: '2026-11-18',
  kind: 'compacted',
  symbols: ['BTC'],
  rows: 1,
  bytes: 1,
  etag,
  minTs: 0,
  maxTs: 1,
  replaces: [],
  createdAt: 0,
});

describe('the file list memory', () => {
  it('confirms a list only when the lookup before gave the same files, in any order', () => {
    // Prepare
    const memo = fileListMemo();
    // Act and assess
    memo.set('w', [file('a'), file('b')]);
    expect(memo.get('w')?.confirmed).toBe(false);
    memo.set('w', [file('b'), file('a')]);
    expect(memo.get('w')?.confirmed).toBe(true);
    memo.set('w', [file('b'), file('a', 'e2')]);
    expect(memo.get('w')?.confirmed).toBe(false);
    memo.set('w', [file('b')]);
    expect(memo.get('w')).toMatchObject({ confirmed: false, files: [file('b')] });
  });

  it('forgets the least recently used lists past its capacity in files, and keeps no list larger than it', () => {
    // Prepare
    const memo = fileListMemo(3);
    memo.set('a', [file('1')]);
    memo.set('b', [file('2')]);
    memo.set('c', [file('3')]);
    // Act: reading `a` makes `b` the oldest; a list of two files needs two places
    memo.get('a');
    memo.set('d', [file('4'), file('5')]);
    memo.set('e', [file('6'), file('7'), file('8'), file('9')]);
    // Assess
    expect(memo.get('b')).toBeUndefined();
    expect(memo.get('c')).toBeUndefined();
    expect(memo.get('a')?.files).toEqual([file('1')]);
    expect(memo.get('d')?.files).toEqual([file('4'), file('5')]);
    expect(memo.get('e')).toBeUndefined();
  });

  it('tells lists apart by file id and ETag, not by order', () => {
    expect(sameFiles([file('a'), file('b')], [file('b'), file('a')])).toBe(true);
    expect(sameFiles([file('a'), file('a')], [file('a'), file('b')])).toBe(false);
    expect(sameFiles([file('a')], [file('a', 'e2')])).toBe(false);
    expect(sameFiles([], [])).toBe(true);
  });
});

describe('the view memory', () => {
  it('answers with a view only for the very files it was read from, in any order', () => {
    // Prepare
    const memo = viewMemo();
    const rows = [{ symbol: 'BTC', ts: 1 }];
    memo.set('instruments/perpx', [file('a'), file('b')], rows);
    // Act and assess
    expect(memo.get('instruments/perpx', [file('b'), file('a')])).toBe(rows);
    expect(memo.get('instruments/perpx', [file('a'), file('b', 'e2')])).toBeUndefined();
    expect(memo.get('instruments/perpx', [file('a'), file('b'), file('c')])).toBeUndefined();
    expect(memo.get('instruments/perpx', [file('a')])).toBeUndefined();
    expect(memo.get('instruments/spot', [file('a'), file('b')])).toBeUndefined();
  });

  it('forgets the least recently used view past its capacity', () => {
    // Prepare
    const memo = viewMemo(2);
    memo.set('a', [file('1')], []);
    memo.set('b', [file('2')], []);
    // Act: reading `a` makes `b` the oldest
    memo.get('a', [file('1')]);
    memo.set('c', [file('3')], []);
    // Assess
    expect(memo.get('b', [file('2')])).toBeUndefined();
    expect(memo.get('a', [file('1')])).toEqual([]);
    expect(memo.get('c', [file('3')])).toEqual([]);
  });
});
