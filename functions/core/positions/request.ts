/** What a positions request may ask, by family: the venue has positions, and `dex`/`include_system` apply to it. */
import { AppError } from '../errors.ts';
import type { Family } from '../venues.ts';
import { isPositionFamily, type PositionFamily } from './engine.ts';

/** The family, with `dex` (hip3 only) and `include_system` (altx families only) refused where they do not apply. */
export function positionsFamily(family: Family, query: { dex?: string; include_system?: boolean } = {}): PositionFamily {
  if (!isPositionFamily(family)) throw new AppError('unsupported_for_venue', `${family} has no positions.`);
  if (query.dex !== undefined && family !== 'hip3') throw new AppError('invalid_parameter', 'dex applies to hip3 positions only.', { param: 'dex' });
  if (query.include_system !== undefined && family !== 'altx' && family !== 'altx-rh') {
    throw new AppError('invalid_parameter', 'include_system applies to altx and altx-rh positions only.', { param: 'include_system' });
  }
  return family;
}

/** A parameter the route declares optional but this read needs. */
export function required<T>(value: T | undefined, param: string): T {
  if (value === undefined) throw new AppError('invalid_parameter', `${param} is required.`, { param });
  return value;
}

/** The window of a history read: `start` and `end` are required there. */
export const requiredRange = <Q extends { start?: number; end?: number }>(query: Q) => ({
  ...query,
  start: required(query.start, 'start'),
  end: required(query.end, 'end'),
});

/** Whether a bulk page answers in Arrow (asked by `format`, else by `Accept`); JSON pages hold at most 2,000 rows. */
export function bulkInArrow(query: { format?: 'json' | 'arrow'; limit: number }, accept: string | undefined, arrowType: string): boolean {
  const arrow = query.format === 'arrow' || (query.format === undefined && (accept ?? '').includes(arrowType));
  if (!arrow && query.limit > 2000)
    throw new AppError('invalid_parameter', 'limit must be at most 2000 for JSON pages (Arrow pages hold up to 50,000).', { param: 'limit' });
  return arrow;
}
