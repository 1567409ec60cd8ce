/**
 * Authenticated cursors. Every cursor a route hands out is sealed with an HMAC under the service's
 * cursor key and bound to the route that issued it: `<cursor>.<key id>.<mac>`. A cursor that was not
 * issued by this service for this route (forged, edited, or from another route) is refused as
 * `invalid_cursor` before anything decodes it. Keys rotate without breaking live cursors: the
 * newest key seals, every key still in the ring opens, and a retired key stays in the ring for the
 * cursors' lifetime (24 hours) before it is dropped.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors.ts';
import { transparentSpelling } from './market/cursor.ts';

/** Key id -> secret, newest first: the first seals. */
export type CursorKeyRing = readonly { id: string; secret: string }[];

const MAC_BYTES = 16;

function mac(secret: string, scope: string, cursor: string): Buffer {
  return createHmac('sha256', secret).update(`${scope}\n${cursor}`).digest().subarray(0, MAC_BYTES);
}

export function sealCursor(keys: CursorKeyRing, scope: string, cursor: string): string {
  const [key] = keys;
  if (!key) throw new Error('No cursor key configured');
  return `${cursor}.${key.id}.${mac(key.secret, scope, cursor).toString('base64url')}`;
}

/** The cursor a sealed one carries, if a key of the ring sealed it for `scope`. */
export function openCursor(keys: CursorKeyRing, scope: string, sealed: string): string {
  const invalid = () =>
    new AppError('invalid_cursor', 'The cursor was not issued for this route; pass meta.next_cursor unchanged, with every other parameter unchanged.', {
      param: 'cursor',
    });
  const macAt = sealed.lastIndexOf('.');
  const idAt = sealed.lastIndexOf('.', macAt - 1);
  if (idAt <= 0) throw invalid();
  const cursor = sealed.slice(0, idAt);
  const key = keys.find((k) => k.id === sealed.slice(idAt + 1, macAt));
  const given = Buffer.from(sealed.slice(macAt + 1), 'base64url');
  if (!key || given.length !== MAC_BYTES || given.toString('base64url') !== sealed.slice(macAt + 1)) throw invalid();
  if (!timingSafeEqual(given, mac(key.secret, scope, cursor))) throw invalid();
  return cursor;
}

/**
 * The cursor a route with the real service's transparent form (`<ts_ms>`, `<ts_ms>_<id>`) receives:
 * a transparent one as sent, for the route to parse strictly; or the cursor inside a sealed one,
 * which the route issued before it took that form and which may still be in flight (taken for one
 * release). Anything else is `invalid_cursor`. An opened cursor is base64url JSON, never digits and
 * `_` alone, so the route tells the two apart and no unsealed opaque cursor reaches it.
 */
export function admitCursor(keys: CursorKeyRing, scope: string, cursor: string): string {
  return transparentSpelling(cursor) ? cursor : openCursor(keys, scope, cursor);
}

/** `{"k2":"<secret>","k1":"<secret>"}`, newest first, as configured (CURSOR_KEYS or the cursor-keys secret). */
export function parseKeyRing(json: string): CursorKeyRing {
  const parsed = JSON.parse(json) as unknown;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('cursor keys must be a JSON object of key id -> secret');
  const ring = Object.entries(parsed as Record<string, unknown>).map(([id, secret]) => {
    if (!/^[A-Za-z0-9_-]{1,16}$/.test(id) || typeof secret !== 'string' || secret.length < 32) {
      throw new Error(`cursor key ${id} must have an id of 1-16 letters, digits, - or _ and a secret of at least 32 characters`);
    }
    return { id, secret };
  });
  if (ring.length === 0) throw new Error('cursor keys must hold at least one key');
  return ring;
}
