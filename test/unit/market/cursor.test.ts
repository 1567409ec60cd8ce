import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkInWindow,
  decodeCursor,
  encodeCursor,
  formatTransparentCursor,
  parseTransparentCursor,
  requestFingerprint,
  transparentSpelling,
  type CursorForm,
} from '#core/market/cursor.ts';
import { bucketStart } from '#core/market/candles.ts';

describe('opaque cursors', () => {
  const fingerprint = requestFingerprint({ routeId: 'getPerpxTrades', symbol: 'BTC', start: 1, end: undefined });

  it('round-trips the window and position', () => {
    const state = { window: [1, 2] as [number, number], position: [1763683200123, 17636832001230000] };
    expect(decodeCursor(encodeCursor(fingerprint, state), fingerprint)).toEqual(state);
  });

  it('refuses a cursor for other parameters, a tampered one and garbage as invalid_cursor', () => {
    const cursor = encodeCursor(fingerprint, { window: [1, 2], position: [5] });
    const other = requestFingerprint({ routeId: 'getPerpxTrades', symbol: 'ETH', start: 1, end: undefined });
    for (const [value, print] of [
      [cursor, other],
      [`${cursor}x`, fingerprint],
      ['not-a-cursor', fingerprint],
      ['', fingerprint],
    ] as const) {
      expect(() => decodeCursor(value, print)).toThrow(expect.objectContaining({ code: 'invalid_cursor', param: 'cursor' }));
    }
  });

  it('does not depend on the order of parameters', () => {
    expect(requestFingerprint({ a: 1, b: 2 })).toBe(requestFingerprint({ b: 2, a: 1 }));
  });
});

describe('transparent cursors', () => {
  const refused = (form: CursorForm, cursor: string) =>
    expect(() => parseTransparentCursor(form, cursor), `${form} ${JSON.stringify(cursor)}`).toThrow(
      expect.objectContaining({ code: 'invalid_cursor', param: 'cursor' }),
    );

  it("read the real service's forms back from what they print, at every position", () => {
    const ms = fc.integer({ min: 0, max: 4_102_444_800_000 });
    fc.assert(
      fc.property(ms, fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (ts, id) => {
        expect(parseTransparentCursor('ms', formatTransparentCursor('ms', [ts]))).toEqual([ts]);
        expect(parseTransparentCursor('ms_id', formatTransparentCursor('ms_id', [ts, id]))).toEqual([ts, id]);
        // A longer position (a row's whole key) prints the prefix the form names.
        expect(formatTransparentCursor('ms_id', [ts, id, '0xabc'])).toBe(`${ts}_${id}`);
      }),
    );
    expect(parseTransparentCursor('ms_id', '1704067200123_456789')).toEqual([1704067200123, 456789]);
    expect(parseTransparentCursor('ms_id', '1790575451682_379606340537712')).toEqual([1790575451682, 379606340537712]);
    expect(parseTransparentCursor('ms', '1777708860000')).toEqual([1777708860000]);
  });

  it('refuse empty, signed, non-digit, padded, overflowing and mis-shaped cursors as invalid_cursor', () => {
    for (const cursor of ['', '_', '-1', '+1', '1.5', '1e3', ' 1', '1 ', 'abc', '0x10', '01', '00', '١٢٣']) refused('ms', cursor);
    for (const cursor of ['', '1', '1_', '_1', '1__2', '1_2_3', '-1_2', '1_-2', '1_02', '1_2a', '1,2']) refused('ms_id', cursor);
    // The time past 2100-01-01, the id past 2^53 - 1 (JSON numbers lose digits past it), and past 16 digits.
    refused('ms', '4102444800001');
    refused('ms_id', `1_${Number.MAX_SAFE_INTEGER + 1}`);
    refused('ms_id', '1_99999999999999999');
    refused('ms', '12345678901234567890');
    // One form is not the other.
    refused('ms', '1704067200123_456789');
    refused('ms_id', '1704067200123');
  });

  it('must lie in the window, [floor, end]', () => {
    expect(() => checkInWindow([100], 100, 200)).not.toThrow();
    expect(() => checkInWindow([200, 5], 100, 200)).not.toThrow();
    for (const ts of [99, 201]) expect(() => checkInWindow([ts], 100, 200)).toThrow(expect.objectContaining({ code: 'invalid_cursor', param: 'cursor' }));
  });

  it('are told from the opaque cursors a route sealed before it had a form', () => {
    const opaque = encodeCursor(requestFingerprint({ routeId: 'getPerpxTrades' }), { window: [1, 2], position: [1, 2] });
    expect(transparentSpelling('1704067200123_456789')).toBe(true);
    expect(transparentSpelling(opaque)).toBe(false);
    expect(transparentSpelling(`${opaque}.k1.AAAAAAAAAAAAAAAAAAAAAA`)).toBe(false);
  });
});

describe('candle buckets', () => {
  it('aligns to UTC and opens weeks on Monday 00:00 UTC', () => {
    const friday = Date.UTC(2026, 10, 20, 13, 47, 12);
    expect(bucketStart(friday, '1h')).toBe(Date.UTC(2026, 10, 20, 13));
    expect(bucketStart(friday, '4h')).toBe(Date.UTC(2026, 10, 20, 12));
    expect(bucketStart(friday, '1d')).toBe(Date.UTC(2026, 10, 20));
    expect(bucketStart(friday, '1w')).toBe(Date.UTC(2026, 10, 16)); // Monday
    expect(new Date(bucketStart(friday, '1w')).getUTCDay()).toBe(1);
  });
});
