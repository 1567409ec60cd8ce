/** Sealed cursors: only this service's, for the route that issued them, under a key still in the ring. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openCursor, parseKeyRing, sealCursor } from '#core/cursor-seal.ts';

const OLD = { id: 'k1', secret: 'the first cursor key, thirty-two characters long' };
const NEW = { id: 'k2', secret: 'the second cursor key, also at least thirty-two long' };

describe('sealed cursors', () => {
  it('open to what was sealed, for the route that sealed them', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), fc.string({ minLength: 1, maxLength: 40 }), (cursor, scope) => {
        expect(openCursor([NEW], scope, sealCursor([NEW], scope, cursor))).toBe(cursor);
      }),
    );
  });

  it("refuse another route's cursor, an edited one, an unknown key and no seal at all", () => {
    const sealed = sealCursor([NEW], 'getPerpxTrades', 'eyJmIjoiYWJjIn0');
    const refused = (scope: string, cursor: string) =>
      expect(() => openCursor([NEW], scope, cursor)).toThrow(expect.objectContaining({ code: 'invalid_cursor', param: 'cursor' }));
    refused('getAltxTrades', sealed);
    refused('getPerpxTrades', sealed.replace('eyJmIjoiYWJjIn0', 'eyJmIjoiYWJkIn0'));
    refused('getPerpxTrades', sealed.replace('.k2.', '.k9.'));
    refused('getPerpxTrades', `${sealed}A`);
    refused('getPerpxTrades', 'eyJmIjoiYWJjIn0');
    refused('getPerpxTrades', '..');
  });

  it('keep cursors sealed with a retired key open while it stays in the ring, and refuse them once it is dropped', () => {
    const issuedBefore = sealCursor([OLD], 'listExports', 'c');
    const rotated = [NEW, OLD];
    expect(openCursor(rotated, 'listExports', issuedBefore)).toBe('c');
    expect(sealCursor(rotated, 'listExports', 'c')).toContain('.k2.');
    expect(() => openCursor([NEW], 'listExports', issuedBefore)).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
  });

  it('reads a ring newest first, and refuses short secrets and bad ids', () => {
    expect(parseKeyRing(JSON.stringify({ k2: NEW.secret, k1: OLD.secret })).map((k) => k.id)).toEqual(['k2', 'k1']);
    expect(() => parseKeyRing(JSON.stringify({ k1: 'short' }))).toThrow(/at least 32/);
    expect(() => parseKeyRing(JSON.stringify({ 'bad id': NEW.secret }))).toThrow(/id/);
    expect(() => parseKeyRing('{}')).toThrow(/at least one/);
  });
});
