/** Route group `breadth-api`: the latest breadth snapshot and the minute history, core and hip3. */
import { AppError } from '../core/errors.ts';
import type { BreadthFamily } from '../core/breadth/compute.ts';
import type { BreadthInterval } from '../../schemas/intervals.ts';
import { breadthHistory } from '../core/breadth/history.ts';
import { ROUTES } from '../routes.ts';
import { breadthStore, clock } from '../shared/deps.ts';
import { httpRouteGroup, ok, type RouteImplementation } from '../shared/http.ts';

const strip = <T extends { family: unknown }>({ family: _family, ...rest }: T) => rest;

const current = (family: BreadthFamily): RouteImplementation => async () => {
  const snapshot = await breadthStore().latest(family);
  if (!snapshot) throw new AppError('not_found', `No ${family} breadth snapshot has been computed yet.`);
  return ok(strip(snapshot), { meta: { venue: family } });
};

const history = (family: BreadthFamily): RouteImplementation => async (input) => {
  const query = input.query as { start?: number; end?: number; interval?: BreadthInterval; limit: number; cursor?: string };
  const page = await breadthHistory(breadthStore(), { family, ...query }, clock.now());
  return ok(page.snapshots.map(strip), { nextCursor: page.nextCursor, meta: { venue: family, ...(query.interval && { interval: query.interval }) } });
};

export const handler = httpRouteGroup('breadth-api', Object.fromEntries(
  ROUTES.filter((route) => route.group === 'breadth-api')
    .map((route) => [route.operationId, (route.action === 'breadthCurrent' ? current : history)(route.family as BreadthFamily)]),
));
