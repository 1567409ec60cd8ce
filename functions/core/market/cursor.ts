/**
 * Pagination cursors, in two kinds.
 *
 * Transparent cursors are the real service's, where it has one: a position in the route's order,
 * `<ts_ms>` or `<ts_ms>_<id>` (a trade id, a block number), which clients may build from a row to
 * resume. Such a cursor names a position and nothing else: it is read against the window the request
 * names (it must lie in it), and a page never ends inside a run of rows sharing it (see
 * readWholeRuns), so rows after it are exactly the rows not yet served.
 *
 * Opaque cursors (every other route's) carry the resolved window (so a default `start`/`end` does
 * not drift between pages), the position after the last row served, and a digest of the request it
 * belongs to (route, symbol and every filter except `limit` and `cursor`): reusing it with other
 * parameters is refused as `invalid_cursor` instead of silently skipping or repeating rows. The
 * page size may change between pages.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../errors.ts';
import { LATEST_EPOCH_MS, type CursorForm } from '#schemas/params.ts';

export type { CursorForm };

/** How many integers a form holds: the length of the order-key prefix it names. */
export const CURSOR_PARTS: Readonly<Record<CursorForm, number>> = { ms: 1, ms_id: 2, id: 1 };

const invalidCursor = (why: string) => new AppError('invalid_cursor', `Invalid cursor: ${why}.`, { param: 'cursor' });

/** Whether a cursor is spelled as a transparent one could be: digits and `_` (an opaque cursor never is). */
export const transparentSpelling = (cursor: string): boolean => /^[0-9_]*$/.test(cursor);

/**
 * A transparent cursor's position, checked strictly: the form's number of parts, each a canonical
 * base-10 integer (no sign, no leading zero), the time at most 2100-01-01 and an id at most 2^53 - 1
 * (past that, JSON numbers lose digits).
 */
export function parseTransparentCursor(form: CursorForm, cursor: string): number[] {
  const expected = { ms: '<ts_ms>', ms_id: '<ts_ms>_<id>', id: '<id>' }[form];
  const parts = cursor.split('_');
  if (parts.length !== CURSOR_PARTS[form] || !parts.every((p) => /^(0|[1-9]\d{0,15})$/.test(p))) {
    throw invalidCursor(`expected ${expected} in base-10 digits, as meta.next_cursor spells it`);
  }
  const [ts, ...ids] = parts.map(Number);
  if (form !== 'id' && ts! > LATEST_EPOCH_MS) throw invalidCursor(`its time is past ${LATEST_EPOCH_MS} (2100-01-01)`);
  if (![ts, ...ids].every(Number.isSafeInteger)) throw invalidCursor(`its id is past ${Number.MAX_SAFE_INTEGER}`);
  return [ts!, ...ids];
}

/** The cursor naming a position (its first parts: the form's). */
export function formatTransparentCursor(form: CursorForm, position: readonly (number | string)[]): string {
  const parts = position.slice(0, CURSOR_PARTS[form]);
  if (parts.length !== CURSOR_PARTS[form] || !parts.every((p) => Number.isSafeInteger(Number(p)) && Number(p) >= 0)) {
    throw new Error(`A ${form} cursor needs ${CURSOR_PARTS[form]} non-negative integers, not ${JSON.stringify(position)}`);
  }
  return parts.map((p) => String(Number(p))).join('_');
}

/**
 * A transparent cursor's time must lie in the request's window, `[floor, end]`: `floor` is `start`,
 * or the start of the bucket holding it on routes whose rows are buckets that may open before it.
 * Outside it the cursor was issued for another window: `invalid_cursor`, as for changed parameters.
 */
export function checkInWindow(position: readonly number[], floor: number, end: number): void {
  const ts = position[0]!;
  if (ts < floor || ts > end) throw invalidCursor(`its time ${ts} is outside the window [${floor}, ${end}]; send the start and end of the pages before it`);
}

export type Position = (number | string)[];

export interface CursorState {
  window: [number, number];
  position: Position;
}

export function requestFingerprint(parts: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(parts)
      .sort()
      .map((key) => [key, parts[key] ?? null]),
  );
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

export function encodeCursor(fingerprint: string, state: CursorState): string {
  return Buffer.from(JSON.stringify({ f: fingerprint, w: state.window, p: state.position })).toString('base64url');
}

const isScalar = (v: unknown) => typeof v === 'number' || typeof v === 'string';

export function decodeCursor(cursor: string, fingerprint: string): CursorState {
  const invalid = () =>
    new AppError('invalid_cursor', 'The cursor is malformed or was issued for other parameters; pass meta.next_cursor with every other parameter unchanged.', {
      param: 'cursor',
    });
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
