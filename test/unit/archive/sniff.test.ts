/** The format of a file to ingest: from the venue archive's path names, else from its lines' shape. */
import { describe, expect, it } from 'vitest';
import { formatOfContent, formatOfPath, sniffFormat } from '#core/archive/sniff.ts';

const user = '0x1111111111111111111111111111111111111111';
const envelope = (n: number, events: unknown[]) => JSON.stringify({ local_time: 't', block_time: 't', block_number: n, events });

describe('formatOfPath', () => {
  it('reads the archive directory names, the longest first', () => {
    expect(formatOfPath('hl/node_fills_by_block/hourly/20250801/0')).toBe('node_fills_by_block');
    expect(formatOfPath('data/node_fills/hourly/20250601/13.gz')).toBe('node_fills');
    expect(formatOfPath('node_trades/hourly/20250322/10')).toBe('node_trades');
    expect(formatOfPath('/x/node_fills_streaming/hourly/20260610/13')).toBe('node_fills_streaming');
    expect(formatOfPath('landing/normalized/2026-01-01/a.jsonl')).toBe('normalized');
    expect(formatOfPath('downloads/fills-13.jsonl')).toBeUndefined();
    expect(formatOfPath('/home/hl/data/node_raw_book_diffs_streaming/hourly/20260610/13')).toBe('node_raw_book_diffs_streaming');
    expect(formatOfPath('data/node_order_statuses_streaming/hourly/20260610/9.lz4')).toBe('node_order_statuses_streaming');
    expect(formatOfPath('data/node_order_statuses_by_block/hourly/20260610/9')).toBe('node_order_statuses_by_block');
  });
});

describe('formatOfContent', () => {
  it('tells each format by its first line', () => {
    expect(formatOfContent(`${JSON.stringify([user, { coin: 'BTC' }])}\n`)).toBe('node_fills');
    expect(formatOfContent(JSON.stringify({ coin: 'BTC', side_info: [] }))).toBe('node_trades');
    expect(formatOfContent(JSON.stringify({ dataset: 'trades' }))).toBe('normalized');
    expect(formatOfContent(envelope(1, [[user, {}]]))).toBe('node_fills_by_block');
    expect(formatOfContent(envelope(1, [{ raw_book_diff: 'remove' }]))).toBe('node_raw_book_diffs_by_block');
    expect(formatOfContent(envelope(1, [{ status: 'open', order: {} }]))).toBe('node_order_statuses_by_block');
  });

  it('reads a block spread over lines as streaming', () => {
    expect(formatOfContent([envelope(1, [[user, {}]]), envelope(1, [[user, {}]])].join('\n'))).toBe('node_fills_streaming');
    expect(formatOfContent([envelope(1, [[user, {}]]), envelope(2, [[user, {}]])].join('\n'))).toBe('node_fills_by_block');
    expect(formatOfContent([envelope(1, [{ raw_book_diff: 'remove' }]), envelope(1, [{ raw_book_diff: 'remove' }])].join('\n'))).toBe(
      'node_raw_book_diffs_streaming',
    );
    expect(formatOfContent([envelope(1, [{ raw_book_diff: 'remove' }]), envelope(2, [{ raw_book_diff: 'remove' }])].join('\n'))).toBe(
      'node_raw_book_diffs_by_block',
    );
    const status = { time: 't', user, hash: null, builder: null, status: 'open', order: {} };
    expect(formatOfContent([envelope(5, [status]), envelope(5, [status]), envelope(6, [status])].join('\n'))).toBe('node_order_statuses_streaming');
  });

  it('says why it cannot tell', () => {
    expect(formatOfContent('not json')).toEqual({ error: 'line 1: not JSON' });
    expect(formatOfContent(envelope(1, []))).toMatchObject({ error: expect.stringMatching(/--format/) });
  });

  it('lets the path win over the content', () => {
    expect(sniffFormat('node_fills_streaming/hourly/x/1', envelope(1, [[user, {}]]))).toBe('node_fills_streaming');
  });
});
