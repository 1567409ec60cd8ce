import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, requestFingerprint } from '../../../functions/core/market/cursor.ts';
import { bucketStart } from '../../../functions/core/market/queries.ts';

describe('cursors', () => {
  const fingerprint = requestFingerprint({ routeId: 'getPerpxTrades', symbol: 'BTC', start: 1, end: undefined });

  it('round-trips the window and position', () => {
    const state = { window: [1, 2] as [number, number], position: [1763683200123, 17636832001230001] };
    expect(decodeCursor(encodeCursor(fingerprint, state), fingerprint)).toEqual(state);
  });

  it('refuses a cursor for other parameters, a tampered one and garbage as invalid_cursor', () => {
    const cursor = encodeCursor(fingerprint, { window: [1, 2], position: [5] });
    const other = requestFingerprint({ routeId: 'getPerpxTrades', symbol: 'ETH', start: 1, end: undefined });
    for (const [value, print] of [[cursor, other], [`${cursor}x`, fingerprint], ['not-a-cursor', fingerprint], ['', fingerprint]] as const) {
      expect(() => decodeCursor(value, print)).toThrow(expect.objectContaining({ code: 'invalid_cursor', param: 'cursor' }));
    }
  });

  it('does not depend on the order of parameters', () => {
    expect(requestFingerprint({ a: 1, b: 2 })).toBe(requestFingerprint({ b: 2, a: 1 }));
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
