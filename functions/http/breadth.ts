/** Route group `breadth-api`: the latest breadth snapshot and the minute history, core and hip3. */
import { AppError } from '../core/errors.ts';
import type { BreadthFamily } from '../core/breadth/compute.ts';
import { breadthHistory } from '../core/breadth/history.ts';
import { BREADTH_OPERATIONS } from '../routes/breadth.ts';
import { breadthStore, clock } from '../shared/deps.ts';
import { familyOf, httpRouteGroup, ok, type RequestContext } from '../shared/http.ts';

const strip = <T extends { family: unknown }>({ family: _family, ...rest }: T) => rest;
// The route table serves breadth routes only under BREADTH_FAMILIES.
const breadthFamily = (ctx: RequestContext) => familyOf(ctx) as BreadthFamily;

export const handler = httpRouteGroup(BREADTH_OPERATIONS, {
  breadthCurrent: async (_input, ctx) => {
    const family = breadthFamily(ctx);
    const snapshot = await breadthStore().latest(family);
    if (!snapshot) throw new AppError('not_found', `No ${family} breadth snapshot has been computed yet.`);
    return ok(strip(snapshot), { meta: { venue: family } });
  },
  breadthHistory: async ({ query }, ctx) => {
    const family = breadthFamily(ctx);
    const page = await breadthHistory(breadthStore(), { family, ...query }, clock.now());
    return ok(page.snapshots.map(strip), { nextCursor: page.nextCursor, meta: { venue: family, ...(query.interval && { interval: query.interval }) } });
  },
});
