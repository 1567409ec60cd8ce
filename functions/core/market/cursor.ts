/**
 * Opaque pagination cursors. A cursor carries the resolved window (so a default `start`/`end` does
 * not drift between pages), the position after the last row served, and a digest of the request it
 * belongs to (route, symbol and every filter except `limit` and `cursor`): reusing it with other
 * parameters is refused as `invalid_cursor` instead of silently skipping or repeating rows. The
 * page size may change between pages.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../errors.ts';

export type Position = (number | string)[];

export interface CursorState {
  window: [number, number];
  position: Position;
}

export function requestFingerprint(parts: Record<string, unknown>): string {
  const canonical = JSON.stringify(Object.keys(parts).sort().map((key) => [key, parts[key] ?? null]));
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

export function encodeCursor(fingerprint: string, state: CursorState): string {
  return Buffer.from(JSON.stringify({ f: fingerprint, w: state.window, p: state.position })).toString('base64url');
}

const isScalar = (v: unknown) => typeof v === 'number' || typeof v === 'string';

export function decodeCursor(cursor: string, fingerprint: string): CursorState {
  const invalid = () => new AppError('invalid_cursor',
    'The cursor is malformed or was issued for other parameters; pass meta.next_cursor with every other parameter unchanged.', { param: 'cursor' });
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const { f, w, p } = (decoded ?? {}) as { f?: unknown; w?: unknown; p?: unknown };
  const windowOk = Array.isArray(w) && w.length === 2 && w.every((v) => Number.isSafeInteger(v));
  if (f !== fingerprint || !windowOk || !Array.isArray(p) || p.length === 0 || !p.every(isScalar)) throw invalid();
  const state = { window: w as [number, number], position: p as Position };
  // Base64 decoding forgives stray characters; a cursor must be exactly what this service issued.
  if (encodeCursor(fingerprint, state) !== cursor) throw invalid();
  return state;
}
