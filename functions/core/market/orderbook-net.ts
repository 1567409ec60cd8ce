/**
 * The diffs a book at an instant needs, netted in SQL (issue 43). At the venue's rate a book five
 * minutes after its checkpoint sits behind 100,000 diffs, most of them quotes placed and removed
 * within seconds; turning each into a JavaScript row was nearly all of the read's time. An order's
 * state at the instant depends only on its diffs from its last reset (a `new`, a `remove`, or a
 * `new` of size 0) onward, so per order the read keeps:
 *   - no reset in the window (updates only): every diff;
 *   - the last reset a placement: that `new` and every diff after it (its queue place is the
 *     `new`'s, and the relative order of the kept `new`s is their order in the window);
 *   - the last reset a removal, and no `new` in the window: that one diff (it removes the order
 *     from the checkpoint's book, or names one the book never held, which ends the same);
 *   - the last reset a removal after a `new`: nothing, but its oid is returned (`dropped`): the
 *     order was placed and gone inside the window, which is exact unless the checkpoint held that
 *     oid (a `new` on a resting order replaces it), so the caller replays in full if it did.
 * A window with any `insert_before` (a queue jump that may name a dropped order) is not netted.
 * Replaying the kept diffs in (block, seq) order gives the book a replay of all of them gives
 * (property-tested against the full replay in `test/integration/l4-netted-replay.test.ts`).
 */
import type { ArchiveDeps } from '#ports/archive.ts';
import type { Family } from '../venues.ts';
import type { SequencedDiff } from '../book/level-walk.ts';
import { windowSource } from '../archive/read.ts';

export interface NettedDiffs {
  /** The diffs to apply, in (block, seq) order. */
  diffs: SequencedDiff[];
  /** How many diffs the window holds, and the last one's place. */
  count: number;
  last: [number, number] | undefined;
  /** Orders placed and gone inside the window, whose diffs were left out. */
  dropped: number[];
}

export const WINDOW = `
  SELECT ts, block_number, seq, oid, user_address, side, price, diff_type, new_size, insert_before,
    row_number() OVER (ORDER BY block_number, seq) AS pos,
    diff_type = 'remove' OR (diff_type = 'new' AND coalesce(TRY_CAST(new_size AS DOUBLE), 0) = 0) AS gone,
    diff_type = 'new' AND coalesce(TRY_CAST(new_size AS DOUBLE), 0) <> 0 AS placed
  FROM (SOURCE) WHERE (block_number > $d_block OR (block_number = $d_block AND seq > $d_seq))`;

export const BY_ORDER = `
  SELECT oid, max(pos) FILTER (WHERE gone OR placed) AS last_reset, arg_max(gone, pos) FILTER (WHERE gone OR placed) AS ends_gone,
    bool_or(diff_type = 'new') AS has_new
  FROM w GROUP BY oid`;

/**
 * The netted diffs after a book's position up to `to`, or undefined when the window must be
 * replayed whole (it holds a queue jump).
 */
export async function nettedDiffsAfter(
  deps: ArchiveDeps,
  family: Family,
  symbol: string,
  from: { checkpointTs: number; position: [number, number] },
  to: number,
): Promise<NettedDiffs | undefined> {
  const source = await windowSource(deps, { dataset: 'l4_diffs', family, symbol, from: from.checkpointTs, to });
  if (!source) return { diffs: [], count: 0, last: undefined, dropped: [] };
  const params = { ...source.params, d_block: from.position[0], d_seq: from.position[1] };
  const ctes = `WITH w AS (${WINDOW.replace('SOURCE', source.sql)}), o AS (${BY_ORDER})`;
  const [meta] = await deps.sql.query<{ n: number; block: number | null; seq: number | null; inserts: boolean | null; dropped: number[] | null }>({
    sql: `${ctes} SELECT count(*) AS n, arg_max(block_number, pos) AS block, arg_max(seq, pos) AS seq, bool_or(insert_before IS NOT NULL) AS inserts,
            (SELECT list(oid) FROM o WHERE ends_gone AND has_new) AS dropped FROM w`,
    params,
  });
  if (!meta || Number(meta.n) === 0) return { diffs: [], count: 0, last: undefined, dropped: [] };
  if (meta.inserts) return undefined;
  const diffs = await deps.sql.query<SequencedDiff>({
    sql: `${ctes} SELECT w.ts, w.block_number, w.seq, w.oid, w.user_address, w.side, w.price, w.diff_type, w.new_size, w.insert_before
          FROM w JOIN o USING (oid)
          WHERE o.last_reset IS NULL OR (NOT o.ends_gone AND w.pos >= o.last_reset) OR (o.ends_gone AND NOT o.has_new AND w.pos = o.last_reset)
          ORDER BY w.pos`,
    params,
  });
  return {
    diffs,
    count: Number(meta.n),
    last: [Number(meta.block), Number(meta.seq)],
    dropped: (meta.dropped ?? []).map(Number),
  };
}
