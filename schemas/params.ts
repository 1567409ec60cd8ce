/**
 * Builders for request parameters. Query and path values arrive as strings; each builder returns a
 * valibot schema that parses the string, with a message that names the rule, plus metadata the
 * HTTP shell (error_code, valid_values) and the OpenAPI generator (JSON Schema) read back.
 */
import * as v from 'valibot';
import type { ErrorCode } from './errors.ts';

export interface ParamMeta {
  /** JSON Schema of the parameter as a client sends it (for OpenAPI). */
  openapi: Record<string, unknown>;
  /** Error code for a bad value; `invalid_parameter` when absent. */
  errorCode?: ErrorCode;
  validValues?: readonly (string | number)[];
  /** A `cursor` in the real service's transparent form (cursorParam). */
  cursorForm?: CursorForm;
}

/**
 * The real service's transparent cursor forms (reference §4.3): `ms` is `<ts_ms>`, `ms_id` is
 * `<ts_ms>_<id>` (a trade id, a block number), `id` a bare row id (hip4 questions). A route whose
 * cursor has none of them hands out opaque ones.
 */
export type CursorForm = 'ms' | 'ms_id' | 'id';

export type ParamSchema = v.GenericSchema<string | undefined, unknown>;

/**
 * A parameter parsed to `T`, or to `T | undefined` when it may be left out and has no default.
 * The builders choose required-ness and defaults at run time, which valibot's inference cannot
 * follow, so each states its output type here.
 */
export type Param<T, Present extends boolean> = v.GenericSchema<string | undefined, Present extends true ? T : T | undefined>;

type Present<O extends { required?: boolean; default?: unknown }> = O['required'] extends true ? true : undefined extends O['default'] ? false : true;

function withMeta<S extends v.GenericSchema>(schema: S, description: string, meta: ParamMeta) {
  return v.pipe(schema, v.description(description), v.metadata({ ...meta }));
}

export function paramMeta(schema: v.GenericSchema): ParamMeta | undefined {
  const found = v.getMetadata(schema as never) as Partial<ParamMeta> | undefined;
  return found && 'openapi' in found ? (found as ParamMeta) : undefined;
}

/** A base-10 integer within [min, max]. Optional with a default unless `required` is set. */
export function integerParam<const O extends { min: number; max: number; default?: number; description: string; required?: boolean }>(
  opts: O,
): Param<number, Present<O>> {
  const rule = `must be an integer from ${opts.min} to ${opts.max}`;
  const parsed = v.pipe(
    v.string(),
    v.regex(/^-?\d+$/, rule),
    v.transform(Number),
    v.check((n) => Number.isSafeInteger(n) && n >= opts.min && n <= opts.max, rule),
  );
  const openapi = { type: 'integer', minimum: opts.min, maximum: opts.max, ...(opts.default !== undefined && { default: opts.default }) };
  const schema = opts.required ? parsed : v.optional(parsed, opts.default === undefined ? undefined : String(opts.default));
  return withMeta(schema, opts.description, { openapi }) as Param<number, Present<O>>;
}

/** A non-negative decimal number within [min, max] (`1000`, `0.25`). Optional with a default unless `required` is set. */
export function numberParam<const O extends { min: number; max: number; default?: number; description: string }>(opts: O): Param<number, Present<O>> {
  const rule = `must be a number from ${opts.min} to ${opts.max}`;
  const parsed = v.pipe(
    v.string(),
    v.regex(/^\d{1,16}(\.\d{1,16})?$/, rule),
    v.transform(Number),
    v.check((n) => n >= opts.min && n <= opts.max, rule),
  );
  const openapi = { type: 'number', minimum: opts.min, maximum: opts.max, ...(opts.default !== undefined && { default: opts.default }) };
  return withMeta(v.optional(parsed, opts.default === undefined ? undefined : String(opts.default)), opts.description, { openapi }) as Param<
    number,
    Present<O>
  >;
}

/** The latest instant a request may name: 2100-01-01, as for stored records (past it a date is not a day the archive can file). */
export const LATEST_EPOCH_MS = 4_102_444_800_000;

/** Unix epoch milliseconds, from 0 to 2100-01-01. */
export function epochMsParam(description: string): Param<number, false> {
  const rule = `must be Unix epoch milliseconds from 0 to ${LATEST_EPOCH_MS} (2100-01-01)`;
  const parsed = v.pipe(v.string(), v.regex(/^\d{1,16}$/, rule), v.transform(Number), v.maxValue(LATEST_EPOCH_MS, rule));
  return withMeta(v.optional(parsed), description, {
    openapi: { type: 'integer', format: 'int64', minimum: 0, maximum: LATEST_EPOCH_MS },
    errorCode: 'invalid_time_range',
  });
}

/** One of a closed set of values; a bad value is answered with the set. */
export function enumParam<const T extends readonly [string, ...string[]], const O extends { default?: T[number]; description: string; errorCode?: ErrorCode }>(
  values: T,
  opts: O,
): Param<T[number], Present<O>> {
  const schema = v.optional(v.picklist(values, `must be one of: ${values.join(', ')}`), opts.default);
  return withMeta(schema, opts.description, {
    openapi: { type: 'string', enum: [...values], ...(opts.default !== undefined && { default: opts.default }) },
    errorCode: opts.errorCode,
    validValues: values,
  }) as Param<T[number], Present<O>>;
}

export function booleanParam(description: string): Param<boolean, false> {
  const rule = 'must be true or false';
  const parsed = v.pipe(
    v.picklist(['true', 'false'], rule),
    v.transform((s) => s === 'true'),
  );
  return withMeta(v.optional(parsed), description, { openapi: { type: 'boolean' }, validValues: ['true', 'false'] });
}

/** A free-form string, optionally bounded in length. */
export function stringParam<const O extends { description: string; maxLength?: number; required?: boolean; pattern?: RegExp }>(
  opts: O,
): Param<string, Present<O>> {
  const checks: v.PipeItem<string, string, v.BaseIssue<unknown>>[] = [v.minLength(1, 'must not be empty')];
  if (opts.maxLength) checks.push(v.maxLength(opts.maxLength, `must be at most ${opts.maxLength} characters`));
  if (opts.pattern) checks.push(v.regex(opts.pattern, `must match ${opts.pattern.source}`));
  const parsed = v.pipe(v.string(), ...checks);
  return withMeta(opts.required ? parsed : v.optional(parsed), opts.description, {
    openapi: { type: 'string', ...(opts.maxLength && { maxLength: opts.maxLength }), ...(opts.pattern && { pattern: opts.pattern.source }) },
  }) as Param<string, Present<O>>;
}

/**
 * A page's `cursor`: `meta.next_cursor` passed back, opaque, or (with `form`) in the real service's
 * transparent form, which the route emits and accepts (the route table reads the form from here).
 * A value the route cannot page from is `invalid_cursor`, never `invalid_parameter`.
 */
export function cursorParam(opts: { description: string; form?: CursorForm; maxLength?: number }): Param<string, false> {
  const maxLength = opts.maxLength ?? 512;
  const parsed = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(maxLength, `must be at most ${maxLength} characters`));
  return withMeta(v.optional(parsed), opts.description, {
    openapi: { type: 'string', maxLength },
    errorCode: 'invalid_cursor',
    ...(opts.form && { cursorForm: opts.form }),
  });
}

/**
 * A `cursor` in the real service's transparent form: `<ts_ms>` (with `id`, `<ts_ms>_<id>`), a
 * position after which `what` are served, from meta.next_cursor or built from the last row served.
 * Its time lies in the window, or (`bucketed`: rows are buckets that may open before `start`) in the
 * bucket holding `start`.
 */
export function positionCursorParam(what: string, opts: { id?: string; bucketed?: boolean } = {}): Param<string, false> {
  const { id, bucketed } = opts;
  return cursorParam({
    form: id ? 'ms_id' : 'ms',
    description:
      `${id ? `<ts_ms>_<${id}>` : '<ts_ms>'}: meta.next_cursor, or the time (epoch ms)${id ? ` and ${id}` : ''} of the last row served;`
      + ` ${what} after it. Its time must lie in [start, end]${bucketed ? ' or in the bucket holding start' : ''}; other parameters may change between pages`,
  });
}
