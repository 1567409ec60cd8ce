/**
 * Items read back from a table, parsed at the read with their schema (schemas/stored.ts for the
 * shapes the ports share, the adapter's own for its attribute layout). A malformed item (a field
 * missing or of another type, JSON that does not parse) is an internal error naming the table, the
 * item's key and each field at fault: the HTTP shell answers it as it answers any unexpected error
 * (a 500 with the request id) and logs the message; a queue consumer or a task fails and retries.
 */
import * as v from 'valibot';
import { AppError } from '../core/errors.ts';
import { describeIssues } from '#schemas/issues.ts';

type Item = Record<string, unknown>;

/** The item's key as every table here names it (`pk` / `sk`). */
const keyOf = (item: Item) => `${String(item.pk)} / ${String(item.sk)}`;

export function parseItem<S extends v.GenericSchema>(schema: S, tableName: string, item: Item): v.InferOutput<S> {
  const parsed = v.safeParse(schema, item);
  if (parsed.success) return parsed.output;
  throw new AppError('internal_error', `Malformed item in table ${tableName} at ${keyOf(item)}: ${describeIssues(parsed.issues, '(item)')}`);
}

/** An attribute holding `schema`'s value as JSON text. */
export const json = <S extends v.GenericSchema>(schema: S) => v.pipe(v.string(), v.parseJson(), schema);
