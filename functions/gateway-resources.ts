/**
 * The REST API's resources and methods, derived from the route table: what lib/ deploys to API
 * Gateway and what the local gateway matches requests against. A REST API holds at most 300
 * resources, so read-only parts of the tree are served by greedy `{proxy+}` resources whose
 * route group's function finds the route itself (functions/shared/http.ts, from the same table):
 *
 * - a subtree whose routes are all one group's keyed GETs is its top resource and a `{proxy+}`
 *   below it (`/v1/perpx/orderbook/{proxy+}`), when that is fewer resources than one per path;
 * - a read-only node shared by several groups (a family's prefix, `/v1/perpx/hip3`) gets a
 *   `{proxy+}` for the group whose subtrees it replaces (the most resources), beside the other
 *   groups' subtrees: API Gateway prefers a literal segment to a greedy one.
 *
 * A greedy resource answers GET through the group's function (after the key authorizer) and any
 * other method with the 405 mock, as every path under it is GET only. Everything else keeps one
 * resource per path, with a 405 mock naming its methods unless an ANY route answers them all.
 */
import type { FunctionName } from './resources.ts';
import { ROUTES } from './routes.ts';
import type { HttpMethod, RouteDef } from './routes/operation.ts';

export interface GatewayMethod {
  method: HttpMethod;
  group: FunctionName;
  auth: 'api_key' | 'none';
  /** The route the method serves; a greedy resource's method serves several. */
  operationId?: string;
}

export interface GatewayResource {
  /** The resource path; `{name}` is a path parameter, `{proxy+}` the rest of the path. */
  path: string;
  methods: GatewayMethod[];
  /** Methods named in the `Allow` header of the resource's 405 mock (ANY); absent when an ANY method answers every method. */
  notAllowed?: HttpMethod[];
}

interface Node {
  path: string;
  segment: string;
  routes: RouteDef[];
  children: Node[];
}

const GREEDY = '{proxy+}';

function tree(routes: readonly RouteDef[]): Node {
  const root: Node = { path: '', segment: '', routes: [], children: [] };
  for (const route of routes) {
    let node = root;
    for (const segment of route.path.split('/').filter(Boolean)) {
      let child = node.children.find((c) => c.segment === segment);
      if (!child) node.children.push((child = { path: `${node.path}/${segment}`, segment, routes: [], children: [] }));
      node = child;
    }
    node.routes.push(route);
  }
  return root;
}

const routesUnder = (node: Node): RouteDef[] => [...node.routes, ...node.children.flatMap(routesUnder)];
const pathsUnder = (node: Node): number => 1 + node.children.reduce((sum, child) => sum + pathsUnder(child), 0);
const isParameter = (node: Node) => node.segment.startsWith('{');

/** Keyed GET routes only: a greedy resource under it may answer every other method 405. */
const readOnly = (node: Node) => routesUnder(node).every((r) => r.method === 'GET' && r.auth === 'api_key');

/** The one group serving every route under a read-only node, if there is one. */
function soleGroup(node: Node): FunctionName | undefined {
  const groups = new Set(routesUnder(node).map((r) => r.group));
  return readOnly(node) && groups.size === 1 ? [...groups][0] : undefined;
}

/** Resources a one-group read-only subtree costs: one per path, or its top and a `{proxy+}`. */
const cost = (node: Node) => Math.min(pathsUnder(node), 2);

/**
 * At a read-only node of several groups: the group whose child subtrees a `{proxy+}` here replaces
 * with the most resources saved (none when nothing is saved, or when a parameter child of another
 * group would stand beside it: a resource has one variable child at most).
 */
function sharedGreedy(node: Node): { group: FunctionName; absorbed: Node[] } | undefined {
  if (!node.path || !readOnly(node)) return undefined;
  let best: { group: FunctionName; absorbed: Node[]; saved: number } | undefined;
  for (const group of new Set(node.children.map(soleGroup))) {
    if (!group) continue;
    const absorbed = node.children.filter((child) => soleGroup(child) === group);
    const saved = absorbed.reduce((sum, child) => sum + cost(child), 0) - 1;
    const blocked = node.children.some((child) => isParameter(child) && !absorbed.includes(child));
    if (!blocked && saved > 0 && (!best || saved > best.saved)) best = { group, absorbed, saved };
  }
  return best;
}

function ownMethods(node: Node): GatewayResource[] {
  if (!node.routes.length) return [];
  const methods = node.routes.map((r) => ({ method: r.method, group: r.group, auth: r.auth, operationId: r.operationId }));
  const answersAll = node.routes.some((r) => r.method === 'ANY');
  return [{ path: node.path, methods, ...(!answersAll && { notAllowed: [...new Set(node.routes.map((r) => r.method))] }) }];
}

const greedy = (path: string, group: FunctionName): GatewayResource => ({
  path: `${path}/${GREEDY}`,
  methods: [{ method: 'GET', group, auth: 'api_key' }],
  notAllowed: ['GET'],
});

function layout(node: Node): GatewayResource[] {
  const group = soleGroup(node);
  if (node.path && group && pathsUnder(node) > 2) return [...ownMethods(node), greedy(node.path, group)];
  const shared = sharedGreedy(node);
  return [
    ...ownMethods(node),
    ...(shared ? [greedy(node.path, shared.group)] : []),
    ...node.children.filter((child) => !shared?.absorbed.includes(child)).flatMap(layout),
  ];
}

/** The resources (with methods) of a REST API serving `routes`. */
export function gatewayResources(routes: readonly RouteDef[]): GatewayResource[] {
  return layout(tree(routes));
}

export const GATEWAY_RESOURCES: readonly GatewayResource[] = gatewayResources(ROUTES);
