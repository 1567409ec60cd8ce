/** Turns raw request strings into typed values with the route's schemas, or a 400 naming the parameter. */
import * as v from 'valibot';
import { AppError } from '../core/errors.ts';
import { paramMeta, type ParamSchema } from '#schemas/params.ts';

export function parseParams(
  schemas: Readonly<Record<string, ParamSchema>> | undefined,
  values: Record<string, string | undefined> | null | undefined,
  location: 'path' | 'query' | 'header',
): Record<string, unknown> {
  const parsed: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(schemas ?? {})) {
    const input = values?.[name];
    const result = v.safeParse(schema, input);
    if (!result.success) {
      const meta = paramMeta(schema);
      const message =
        input === undefined
          ? `Missing required ${location} parameter '${name}'.`
          : `Invalid ${name} '${input}': ${result.issues[0]?.message ?? 'invalid value'}.`;
      throw new AppError(meta?.errorCode ?? 'invalid_parameter', message, { param: name, validValues: meta?.validValues });
    }
    parsed[name] = result.output;
  }
  return parsed;
}

export function parseBody(schema: v.GenericSchema, body: string | null, isBase64Encoded: boolean): unknown {
  let json: unknown;
  if (body !== null && body !== '') {
    const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
    try {
      json = JSON.parse(text);
    } catch {
      throw new AppError('invalid_json', 'The request body is not valid JSON.');
    }
  }
  const result = v.safeParse(schema, json ?? {});
  if (!result.success) {
    const issue = result.issues[0]!;
    const param = v.getDotPath(issue) ?? undefined;
    const where = param ? `'${param}'` : 'body';
    throw new AppError('invalid_parameter', `Invalid ${where}: ${issue.message}.`, { param });
  }
  return result.output;
}
