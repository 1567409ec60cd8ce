/**
 * Positions cursors: bound to every parameter but the page size, and expiring (SPEC "Limits":
 * cursors live 24 hours), so each carries its issue time ahead of the read's position.
 */
import { AppError } from '../errors.ts';
import { decodeCursor, encodeCursor, requestFingerprint, type CursorState } from '../market/cursor.ts';
import { HOUR_MS } from './store.ts';

export const CURSOR_LIFETIME_MS = 24 * HOUR_MS;

/** Cursors carry when they were issued (they expire) and are bound to every other parameter. */
export function openCursor(cursor: string | undefined, routeId: string, params: object, now: number): { fingerprint: string; state?: CursorState } {
  const { cursor: _c, limit: _l, ...rest } = params as Record<string, unknown>;
  const fingerprint = requestFingerprint({ routeId, ...rest });
  if (!cursor) return { fingerprint };
  const state = decodeCursor(cursor, fingerprint);
  const issuedAt = state.position[0];
  if (typeof issuedAt !== 'number' || now - issuedAt > CURSOR_LIFETIME_MS || issuedAt > now) {
    throw new AppError('invalid_cursor', 'The cursor has expired (cursors live 24 hours); restart without a cursor.', { param: 'cursor' });
  }
  return { fingerprint, state };
}

/**
 * The cursor's position after its issue time, checked against what this read puts there (one of
 * `shapes`): a cursor is a hash of public parameters, so a forged one must fail as a bad cursor,
 * not reach a query.
 */
export function positionIn(state: CursorState, ...shapes: readonly (readonly ('count' | 'text')[])[]): (number | string)[] {
  const position = state.position.slice(1);
  const fits = (shape: readonly ('count' | 'text')[]) =>
    shape.length === position.length
    && shape.every((kind, i) => (kind === 'text' ? typeof position[i] === 'string' : Number.isSafeInteger(position[i]) && (position[i] as number) >= 0));
  if (!shapes.some(fits)) throw new AppError('invalid_cursor', 'The cursor is malformed; pass meta.next_cursor unchanged.', { param: 'cursor' });
  return position;
}

export const issue = (fingerprint: string, window: [number, number], now: number, ...position: (number | string)[]) =>
  encodeCursor(fingerprint, { window, position: [now, ...position] });
