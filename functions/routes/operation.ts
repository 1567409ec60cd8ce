/**
 * What a route contract is made of: an operation (its input schemas, response and placement), a
 * group of them (one HTTP function), and how a group becomes API Gateway routes (per family, with
 * the deprecated un-prefixed aliases) and `unsupported_for_venue` paths.
 */
import type * as v from 'valibot';
import type { FunctionName } from '../resources.ts';
import { paramMeta, type CursorForm, type ParamSchema } from '#schemas/params.ts';
import type { DataType } from '#schemas/capabilities.ts';
import { FAMILIES, FAMILY_PREFIX, type Family } from '../core/venues.ts';

/** `ANY` only on the catch-all, as in API Gateway. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'ANY';

export type ParamSchemas = Readonly<Record<string, ParamSchema>>;

export interface ResponseSpec {
  status: number;
  description: string;
  /** `envelope` wraps `schema` as `{success, data, meta}`; `raw` returns it as is. */
  shape: 'envelope' | 'raw';
  schema: v.GenericSchema;
  /** Envelope members beside `data` (the webhook routes' `note`, `limit`, `gap`). */
  siblings?: Readonly<Record<string, v.GenericSchema>>;
  contentType?: string;
}

/** Served at one path, or under every family's prefix (with deprecated un-prefixed aliases). */
type Placement =
  | { method: HttpMethod; path: string }
  | { suffix: string; families: readonly Family[]; datatype: DataType; legacy?: readonly { path: string; operationId: string }[] };

/** One operation: what it accepts and answers, and where. Handlers are typed from it. */
export type OperationSpec = Placement & {
  summary: string;
  tags: readonly string[];
  /** Default `api_key`. */
  auth?: 'api_key' | 'none';
  /** Debits the caller's credits by rows returned (1 per 1,000, at least 1). */
  billed?: boolean;
  /** Left out of the OpenAPI document (the catch-all that answers unknown paths). */
  hidden?: boolean;
  pathParams?: ParamSchemas;
  query?: ParamSchemas;
  /** Request headers the operation reads, by lower-case name: validated by the shell, documented. */
  headers?: ParamSchemas;
  body?: v.GenericSchema;
  response: ResponseSpec;
};

export interface OperationGroup<Ops extends Readonly<Record<string, OperationSpec>> = Readonly<Record<string, OperationSpec>>> {
  group: FunctionName;
  operations: Ops;
}

export function operationGroup<const Ops extends Readonly<Record<string, OperationSpec>>>(group: FunctionName, operations: Ops): OperationGroup<Ops> {
  return { group, operations };
}

export interface RouteDef {
  operationId: string;
  /** The key of the operation (in its group) that serves this route. */
  operation: string;
  method: HttpMethod;
  /** API Gateway resource path; `{name}` segments are path parameters. */
  path: string;
  group: FunctionName;
  auth: 'api_key' | 'none';
  summary: string;
  tags: readonly string[];
  deprecated?: boolean;
  hidden?: boolean;
  /** Replacement route named in the `Deprecation`/`Link` headers of a deprecated route. */
  successor?: string;
  billed?: boolean;
  /** The venue family a per-family route serves. */
  family?: Family;
  /** What a per-family route serves, as `/v1/capabilities` lists it. */
  datatype?: DataType;
  pathParams?: ParamSchemas;
  query?: ParamSchemas;
  headers?: ParamSchemas;
  /**
   * The real service's transparent cursor form, where it has one (its `cursor` parameter's, see
   * cursorParam; reference §4.3, and breadth's the spec's): the route emits and accepts it, and the
   * shell neither seals nor opens it, except the sealed cursors the route issued before it had a
   * form (core/cursor-seal.ts admitCursor). Absent, every cursor the route hands out is sealed with
   * the cursor key and bound to the route.
   */
  cursorForm?: CursorForm;
  body?: v.GenericSchema;
  response: ResponseSpec;
}

const FAMILY_LABEL: Readonly<Record<Family, string>> = {
  perpx: 'Perpx',
  spot: 'Spot',
  hip3: 'Hip3',
  hip4: 'Hip4',
  altx: 'Altx',
  'altx-rh': 'AltxRh',
};

export const capitalized = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** `openInterest` -> `open_interest`: operation names as data types and tool names. */
export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The path of a per-family operation under a family that lacks it. It is not a route (API Gateway
 * would need a resource and methods for each, and a stack holds 500 resources): the catch-all
 * answers it with 404 `unsupported_for_venue` naming where the data is, not a bare `route_not_found`.
 */
export interface UnsupportedPath {
  path: string;
  venue: Family;
  datatype: string;
  availableOn: readonly { venue: Family; route: string }[];
}

/** Where each per-family operation of a group is not offered, in declaration order. */
export function unsupportedPathsOf(operationGroup: OperationGroup): UnsupportedPath[] {
  return Object.entries(operationGroup.operations).flatMap(([operation, spec]) => {
    if ('path' in spec) return [];
    const availableOn = spec.families.map((venue) => ({ venue, route: `${FAMILY_PREFIX[venue]}${spec.suffix}` }));
    return FAMILIES.filter((f) => !spec.families.includes(f)).map((venue) => ({
      path: `${FAMILY_PREFIX[venue]}${spec.suffix}`,
      venue,
      datatype: snakeCase(operation),
      availableOn,
    }));
  });
}

/** The routes of one group, in declaration order. */
export function routesOf(operationGroup: OperationGroup): RouteDef[] {
  const routes: RouteDef[] = [];
  for (const [operation, spec] of Object.entries(operationGroup.operations)) {
    const { summary, tags, auth = 'api_key', billed, hidden, pathParams, query, headers, body, response } = spec;
    const cursorForm = query?.cursor && paramMeta(query.cursor)?.cursorForm;
    const common = {
      operation,
      group: operationGroup.group,
      auth,
      billed,
      hidden,
      pathParams,
      query,
      headers,
      ...(cursorForm && { cursorForm }),
      body,
      response,
    };
    if ('path' in spec) {
      routes.push({ ...common, operationId: operation, method: spec.method, path: spec.path, summary, tags });
      continue;
    }
    for (const family of spec.families) {
      routes.push({
        ...common,
        operationId: `get${FAMILY_LABEL[family]}${capitalized(operation)}`,
        method: 'GET',
        path: `${FAMILY_PREFIX[family]}${spec.suffix}`,
        summary: `${summary} (${family})`,
        tags,
        family,
        datatype: spec.datatype,
      });
    }
    // Deprecated un-prefixed routes answer like their core (perpx) replacements.
    const successor = `${FAMILY_PREFIX.perpx}${spec.suffix}`;
    for (const alias of spec.legacy ?? []) {
      routes.push({
        ...common,
        operationId: alias.operationId,
        method: 'GET',
        path: alias.path,
        summary: `Deprecated: use ${successor}`,
        tags: ['Legacy'],
        deprecated: true,
        successor,
        family: 'perpx',
      });
    }
  }
  return routes;
}

/** The response specs keep their schema's type: handlers' output is checked against it. */
export const page = <const S extends v.GenericSchema>(schema: S, description: string, status = 200, siblings?: ResponseSpec['siblings']) => ({
  status,
  description,
  shape: 'envelope' as const,
  schema,
  ...(siblings && { siblings }),
});
