/**
 * `/v1/capabilities`, generated from the route table: one row per family and data type, with the
 * route templates that serve it, its coverage start (the dataset registry's, or breadth's own),
 * cadence, the largest page its routes allow and the intervals they accept. A route added to the
 * table appears here by construction (its operation must name its data type).
 */
import { ROUTES } from '../routes.ts';
import type { RouteDef } from '../routes/operation.ts';
import { DATA_TYPES, type Capability, type DataTypeDef } from '#schemas/capabilities.ts';
import { DATASETS, type DatasetDef } from '#schemas/datasets.ts';
import { paramMeta } from '#schemas/params.ts';
import { FAMILIES, type Family } from '../core/venues.ts';
import { BREADTH_COVERAGE } from '../core/breadth/history.ts';

function coverageStart(def: DataTypeDef, family: Family): number | undefined {
  if (def.datasets.length === 0) return (BREADTH_COVERAGE as Partial<Record<Family, number>>)[family];
  return def.datasets.map((dataset) => (DATASETS[dataset].coverage as DatasetDef['coverage'])[family]).find((start) => start !== undefined);
}

function capabilityOf(routes: readonly RouteDef[]): Capability {
  const { family, datatype } = routes[0]! as Required<Pick<RouteDef, 'family' | 'datatype'>>;
  const def: DataTypeDef = DATA_TYPES[datatype];
  const start = coverageStart(def, family);
  const limits = routes
    .map((r) => (r.query?.limit ? paramMeta(r.query.limit)?.openapi.maximum : undefined))
    .filter((max): max is number => typeof max === 'number');
  const intervals = [...new Set(routes.flatMap((r) => (r.query?.interval ? (paramMeta(r.query.interval)?.validValues ?? []) : []).map(String)))];
  return {
    venue: family,
    datatype,
    rest_routes: routes.map((r) => r.path),
    ws_channels: [],
    live: true,
    replay: true,
    available_from: start === undefined ? null : new Date(start).toISOString(),
    cadence: def.cadence,
    page_limit: limits.length === 0 ? null : Math.max(...limits),
    intervals,
    notes: def.notes ?? null,
  };
}

let built: Capability[] | undefined;

/** Every family's data types, in family order then data-type order (computed once: the route table does not change). */
export function capabilities(): Capability[] {
  if (built) return built;
  const groups = new Map<string, RouteDef[]>();
  for (const route of ROUTES) {
    if (!route.family || !route.datatype || route.deprecated || route.hidden) continue;
    const key = `${route.family}#${route.datatype}`;
    groups.set(key, [...(groups.get(key) ?? []), route]);
  }
  const order = (routes: readonly RouteDef[]) => FAMILIES.indexOf(routes[0]!.family!) * 100 + Object.keys(DATA_TYPES).indexOf(routes[0]!.datatype!);
  built = [...groups.values()].sort((a, b) => order(a) - order(b)).map(capabilityOf);
  return built;
}
