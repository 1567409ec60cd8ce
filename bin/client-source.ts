/**
 * The typed client's generated module (clients/typescript/src/generated.ts), written from the one
 * route table: a type for every operation's path parameters, query, body and response data (JSON
 * Schema from the valibot schemas, turned into TypeScript by json-schema-to-typescript), the route
 * list the runtime builds its methods from, and the method signatures with their documentation.
 */
import * as v from 'valibot';
import { toJsonSchema } from '@valibot/to-json-schema';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { ROUTES } from '../functions/routes.ts';
import type { ParamSchemas, RouteDef } from '../functions/routes/operation.ts';
import { paramMeta } from '../schemas/params.ts';

const pascal = (name: string) => name.replace(/(^|[-_ ])(\w)/g, (_m, _s, c: string) => c.toUpperCase());

const jsonSchema = (schema: v.GenericSchema, typeMode: 'input' | 'output') => toJsonSchema(schema, { errorMode: 'ignore', typeMode }) as JSONSchema;

/** A parameter's TypeScript type, from the JSON Schema the OpenAPI document publishes for it. */
function paramType(schema: v.GenericSchema): string {
  const openapi = paramMeta(schema)?.openapi ?? { type: 'string' };
  if (Array.isArray(openapi.enum)) return openapi.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (openapi.type === 'integer' || openapi.type === 'number') return 'number';
  if (openapi.type === 'boolean') return 'boolean';
  return 'string';
}

function paramsInterface(name: string, params: ParamSchemas | undefined, location: 'path' | 'query'): string {
  const members = Object.entries(params ?? {}).map(([key, schema]) => {
    const optional = location === 'query' && v.safeParse(schema, undefined).success;
    const description = v.getDescription(schema as never);
    return `${description ? `  /** ${description} */\n` : ''}  ${key}${optional ? '?' : ''}: ${paramType(schema)};`;
  });
  return `export interface ${name} {\n${members.join('\n')}\n}\n`;
}

/** The operations of the table, each once (a per-family operation serves several routes). */
function operations(routes: readonly RouteDef[]): Map<string, RouteDef> {
  const byKey = new Map<string, RouteDef>();
  for (const route of routes) if (!byKey.has(`${route.group}/${route.operation}`)) byKey.set(`${route.group}/${route.operation}`, route);
  return byKey;
}

const typeName = (route: RouteDef) => pascal(route.operation);
const isPaged = (route: RouteDef) => route.query?.cursor !== undefined;

function inputType(route: RouteDef): string {
  const parts = [
    ...(route.pathParams ? [`${typeName(route)}Path`] : []),
    ...(route.query ? [`${typeName(route)}Query`] : []),
    ...(route.body ? [`{ body: ${typeName(route)}Body }`] : []),
  ];
  return parts.length ? parts.join(' & ') : 'Record<string, never>';
}

const required = (route: RouteDef) =>
  Boolean(route.pathParams || route.body || Object.values(route.query ?? {}).some((s) => !v.safeParse(s, undefined).success));

function methodSignature(route: RouteDef): string {
  const docs = [`${route.summary}.`, `\`${route.method} ${route.path}\``, ...(route.deprecated ? [`@deprecated Use \`${route.successor}\`.`] : [])];
  const input = required(route) ? `input: ${inputType(route)}` : `input?: ${inputType(route)}`;
  const result = route.response.shape === 'envelope' ? `Page<${typeName(route)}Data>` : `${typeName(route)}Data`;
  return `  /**\n${docs.map((line) => `   * ${line}`).join('\n')}\n   */\n  ${route.operationId}(${input}): Promise<${result}>;`;
}

export async function generateClientSource(routes: readonly RouteDef[] = ROUTES): Promise<string> {
  const documented = routes.filter((r) => !r.hidden);
  const types: string[] = [];
  // Operations that share a schema (trades and recent trades rows, every `{symbol}` path) share its type.
  const declared = new Map<object, string>();
  async function declare(schema: object, name: string, write: () => string | Promise<string>) {
    const first = declared.get(schema);
    if (first) return void types.push(`export type ${name} = ${first};\n`);
    declared.set(schema, name);
    types.push(await write());
  }
  const options = { bannerComment: '', additionalProperties: false };
  for (const route of operations(documented).values()) {
    const name = typeName(route);
    if (route.pathParams) await declare(route.pathParams, `${name}Path`, () => paramsInterface(`${name}Path`, route.pathParams, 'path'));
    if (route.query) await declare(route.query, `${name}Query`, () => paramsInterface(`${name}Query`, route.query, 'query'));
    if (route.body) await declare(route.body, `${name}Body`, () => compile(jsonSchema(route.body!, 'input'), `${name}Body`, options));
    // A list answer is declared as its row type (named `...Row`) and an array of it.
    const schema = route.response.schema;
    const row = schema.type === 'array' && 'item' in schema ? (schema.item as v.GenericSchema) : undefined;
    if (row) {
      await declare(row, `${name}Row`, () => compile(jsonSchema(row, 'output'), `${name}Row`, options));
      types.push(`export type ${name}Data = ${declared.get(row)}[];\n`);
    } else {
      await declare(schema, `${name}Data`, () => compile(jsonSchema(schema, 'output'), `${name}Data`, options));
    }
  }
  const table = documented.map((r) => `  ${r.operationId}: { method: '${r.method}', path: '${r.path}', paged: ${isPaged(r)} },`);
  const paged = documented.filter(isPaged).map((r) => `'${r.operationId}'`);
  return [
    '// Generated by `npm run client:generate` from functions/routes.ts; do not edit.',
    "import type { Page } from './page.ts';",
    '',
    ...types,
    '/** Every route: method, path template, and whether it pages with `cursor` / `meta.has_more`. */',
    `export const ROUTES = {\n${table.join('\n')}\n} as const;`,
    '',
    `export type PagedOperation = ${paged.join(' | ')};`,
    '',
    '/** One method per route. Path parameters, query parameters and `body` go in one object. */',
    `export interface Methods {\n${documented.map(methodSignature).join('\n')}\n}`,
    '',
  ].join('\n');
}
