/**
 * A counter's `ADD` made once per key, without transactions (dynalite has none): the write that
 * counts also adds its key to a string set of the counter item, on condition that the key is in
 * none of the recent sets. A write that landed but whose answer was lost, retried by the SDK or
 * redone by the next run with the same key, is refused; the caller reads the item and finds its key
 * there (`countedBefore`). Keys live in three sets that rotate every `slotMs`: the current, the
 * previous (both checked) and the next, removed by each write so the item stays small. A retry is
 * therefore caught for at least `slotMs`, at most twice that.
 */
import { createHash } from 'node:crypto';

export interface CountedOnce {
  /** `ADD` clause member, `REMOVE` clause member and condition, with their names and values. */
  add: string;
  remove: string;
  condition: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

const SLOTS = 3;
const setName = (slot: number) => `once_${((slot % SLOTS) + SLOTS) % SLOTS}`;

export function countedOnce(key: string, now: number, slotMs: number): CountedOnce {
  const slot = Math.floor(now / slotMs);
  return {
    add: '#onceNow :onceSet',
    remove: '#onceNext',
    condition: '(NOT contains(#onceNow, :onceKey) AND NOT contains(#oncePrev, :onceKey))',
    names: { '#onceNow': setName(slot), '#oncePrev': setName(slot - 1), '#onceNext': setName(slot + 1) },
    values: { ':onceSet': new Set([key]), ':onceKey': key },
  };
}

/** Whether a counter item read after a refused write already holds `key` (the write had landed). */
export function countedBefore(item: Record<string, unknown> | undefined, key: string): boolean {
  if (!item) return false;
  for (let slot = 0; slot < SLOTS; slot += 1) {
    const set = item[setName(slot)];
    if (set instanceof Set && set.has(key)) return true;
  }
  return false;
}

/** A short key naming a list of items (the deliveries one write counts): the same list, the same key. */
export function keyOfItems(ids: readonly string[]): string {
  return createHash('sha256').update(ids.join('\n')).digest('base64url').slice(0, 22);
}
