/**
 * Book changes as pages: order-level (L4) diffs in block and sequence order, and full-depth L2
 * changes (each level a block changed, with its size and order count after it), paged by block.
 */
import { AppError } from '../errors.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { Level } from '../book/l4-book.ts';
import { LevelWalk, type LevelChange } from '../book/level-walk.ts';
import { EMPTY, page, startPage, windowPage, type JsonRows, type Paging } from './queries.ts';
import { isoSql } from './shape.ts';
import type { L2Diff, L4Diff } from '#schemas/orderbook.ts';
import { type BookHistoryRequest, firstCheckpoint, iso, rendered } from './orderbook.ts';
import { diffsAfter, rebuild, rebuildFrom } from './orderbook-replay.ts';

const L4_DIFF_PROJECTION = `{'timestamp': ${isoSql('ts')}, 'block_number': block_number, 'seq': seq, 'oid': oid, 'user_address': user_address,
  'coin': symbol, 'side': side, 'price': CAST(price AS DOUBLE), 'diff_type': diff_type, 'new_size': TRY_CAST(new_size AS DOUBLE), 'insert_before': insert_before}`;

/** Order-level diffs in a window, in the venue's order (block, then seq). */
export async function l4DiffsPage(deps: ArchiveDeps, req: BookHistoryRequest, now: number): Promise<JsonRows<L4Diff>> {
  const paging = startPage('l4_diffs', req, req.symbol, {}, now);
  if ('done' in paging) return paging.done;
  return page(
    await windowPage(deps, { dataset: 'l4_diffs', family: req.family, symbol: req.symbol, limit: req.limit, projection: L4_DIFF_PROJECTION }, paging),
    paging,
  );
}

interface ChangesPage {
  startBook?: { bids: Level[]; asks: Level[] };
  changes: LevelChange[];
  more: boolean;
  last?: [number, number];
}

/** Where a walk of level changes resumes: after an instant (`[ts]`, tick), or after a block (`[ts, block]`, L2 diffs). */
export type BookPosition = [number] | [number, number];

/**
 * The book at the start of a window walk (after the cursor's position, or just before `start`), and
 * the level changes of the blocks after it, block by block, up to `limit` of them (`tick`: with
 * that book). A page never splits a run of blocks the route's cursor names as one (a block; for
 * `tick`, whose cursor is an instant, the blocks of one instant): it ends before the run that would
 * overflow `limit` (so it may hold fewer and still go on), unless that run alone is the page. A
 * level a block touched but left as it was is not a change. Before the first checkpoint of the
 * window (or after an instant before any), the walk starts at that checkpoint. A block cursor must
 * name the block the book is at by then, as the `timestamp` and `block_number` of a row served do:
 * otherwise `invalid_cursor`.
 */
export async function levelChanges(
  deps: ArchiveDeps,
  req: BookHistoryRequest,
  paging: Paging,
  limit: number,
  view?: { depth?: number },
): Promise<ChangesPage | undefined> {
  const { window } = paging;
  const position = paging.after as BookPosition | undefined;
  const market = { family: req.family, symbol: req.symbol };
  const afterBlock = position?.length === 2 ? position[1] : undefined;
  let base = await rebuild(deps, { ...market, at: position ? position[0] : window[0] - 1 }, afterBlock);
  if (afterBlock !== undefined && base?.lastBlock !== afterBlock) {
    throw new AppError(
      'invalid_cursor',
      `Invalid cursor: ${position!.join('_')} does not name a block of ${req.symbol}'s diffs (the timestamp and block_number of a row served).`,
      { param: 'cursor' },
    );
  }
  if (!base) {
    const checkpoint = await firstCheckpoint(deps, req.family, req.symbol, position ? position[0] + 1 : window[0], window[1]);
    if (checkpoint) base = await rebuildFrom(deps, req.family, req.symbol, checkpoint, Number(checkpoint.ts));
  }
  if (!base) return undefined;
  const tick = view !== undefined;
  const walk = new LevelWalk(base.book, view?.depth);
  const startBook = view ? { bids: walk.levels('B'), asks: walk.levels('A') } : undefined;
  const from = Math.max(window[0], base.checkpointTs);
  let after: [number, number] = afterBlock !== undefined ? [afterBlock, Number.MAX_SAFE_INTEGER] : base.position;
  const changes: LevelChange[] = [];
  // The block of the page's last change: the next page resumes after it (blocks after it that changed nothing are walked again).
  let last: [number, number] | undefined;
  // The instant of the block walked before (tick's runs are instants).
  let walkedTs: number | undefined;
  // The page as it stood before the run (block, or instant) now being walked: where it ends if that run overflows it.
  let cut: { count: number; last?: [number, number] } = { count: 0 };
  let more = false;
  const ended = (page: { count: number; last?: [number, number] }, goesOn: boolean): ChangesPage => ({
    ...(startBook && { startBook }),
    changes: changes.slice(0, page.count),
    more: goesOn,
    ...(page.last && { last: page.last }),
  });
  // Diffs are read in chunks until the page holds `limit` changes (blocks that change nothing, such
  // as an order placed and taken at once, add none) or the window ends.
  for (let chunk = limit + 1; ; chunk = Math.min(4 * chunk, 50_000)) {
    let diffs = await diffsAfter(deps, req.family, req.symbol, { checkpointTs: from, position: after }, window[1], { limit: chunk });
    const exhausted = diffs.length < chunk;
    if (!exhausted) {
      // The chunk's last block may go on past it: leave it to the next chunk, or read it whole when it is all there is.
      const lastBlock = diffs[diffs.length - 1]!.block_number;
      const whole = diffs.filter((d) => d.block_number !== lastBlock);
      diffs =
        whole.length > 0 ? whole : await diffsAfter(deps, req.family, req.symbol, { checkpointTs: from, position: after }, window[1], { block: lastBlock });
    }
    for (let i = 0; i < diffs.length; ) {
      const block = diffs[i]!.block_number;
      let end = i;
      while (end < diffs.length && diffs[end]!.block_number === block) end++;
      const blockDiffs = diffs.slice(i, end);
      i = end;
      const final = blockDiffs[blockDiffs.length - 1]!;
      after = [final.block_number, final.seq];
      const blockChanges = walk.block(blockDiffs);
      const blockTs = blockDiffs.reduce((ts, d) => Math.max(ts, d.ts), 0);
      if (!tick || blockTs !== walkedTs) {
        // A run begins: a full page ends before it.
        if (changes.length >= limit) return ended({ count: changes.length, last }, true);
        cut = { count: changes.length, last };
      }
      walkedTs = blockTs;
      // A page never splits a run; one run larger than a page is served whole.
      if (cut.count > 0 && changes.length + blockChanges.length > limit) return ended(cut, true);
      changes.push(...blockChanges);
      if (blockChanges.length > 0) last = [blockTs, block];
    }
    if (exhausted) break;
    if (!tick && changes.length >= limit) {
      // The chunk ended on a whole block (an instant may go on in the next chunk).
      more = true;
      break;
    }
  }
  return ended({ count: changes.length, last }, more);
}

/** Full-depth L2 diffs: after each block, every level it changed, with its size and order count. */
export async function l2DiffsPage(deps: ArchiveDeps, req: BookHistoryRequest, now: number): Promise<JsonRows<L2Diff>> {
  const paging = startPage('l4_diffs', req, req.symbol, {}, now);
  if ('done' in paging) return paging.done;
  const walked = await levelChanges(deps, req, paging, req.limit);
  if (!walked) return EMPTY;
  const rows = walked.changes.map((c) => ({
    timestamp: iso(c.ts),
    block_number: c.block,
    side: c.side,
    price: Number(c.price),
    size: Number(c.size),
    count: c.count,
  }));
  return rendered(rows, nextCursorOf(walked, paging));
}

export const nextCursorOf = (walked: { more: boolean; last?: [number, number] }, paging: Paging) =>
  walked.more && walked.last ? paging.cursorAt(walked.last) : null;
