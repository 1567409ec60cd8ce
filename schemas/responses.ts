/** Response shapes shared by every route, as valibot schemas (also the source of the OpenAPI components). */
import * as v from 'valibot';
import { ERROR_STATUS, type ErrorCode } from './errors.ts';

export const ErrorBodySchema = v.object({
  success: v.literal(false),
  code: v.pipe(v.number(), v.integer(), v.description('HTTP status code')),
  error: v.pipe(v.string(), v.description('Human-readable message')),
  error_code: v.pipe(v.picklist(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]), v.description('Stable machine-readable code')),
  param: v.optional(v.pipe(v.string(), v.description('The request parameter at fault'))),
  valid_values: v.optional(v.array(v.union([v.string(), v.number()]))),
  datatype: v.optional(v.pipe(v.string(), v.description('unsupported_for_venue: the data asked for'))),
  venue: v.optional(v.pipe(v.string(), v.description('unsupported_for_venue: the family asked'))),
  available_on: v.optional(v.pipe(v.array(v.object({ venue: v.string(), route: v.string() })), v.description('unsupported_for_venue: where the data is'))),
  request_id: v.string(),
});

export const MetaSchema = v.object({
  count: v.pipe(v.number(), v.integer()),
  has_more: v.optional(v.pipe(v.boolean(), v.description('On cursor-paged routes: whether another page follows'))),
  next_cursor: v.optional(v.pipe(v.string(), v.description('Present exactly when has_more is true; pass it as `cursor`'))),
  symbol: v.optional(v.pipe(v.string(), v.description('On per-symbol routes'))),
  venue: v.optional(v.pipe(v.string(), v.description('The venue family answered'))),
  interval: v.optional(v.pipe(v.string(), v.description('The bucket interval, on bucketed routes'))),
  price_unit: v.optional(v.pipe(v.string(), v.description('hip4 candles: `probability`'))),
  quote_currency: v.optional(v.pipe(v.string(), v.description('hip4 candles: `USDH`'))),
  coverage_from: v.optional(v.pipe(v.string(), v.description('When the window ends before the dataset\'s coverage: where coverage starts'))),
  notice: v.optional(v.pipe(v.string(), v.description('Why a page is empty, when the archive can say'))),
  age_ms: v.optional(v.pipe(v.number(), v.description('`/current` reads: how old the value is'))),
  request_id: v.string(),
});

/** The success envelope `{success, data, meta}` around a payload schema. */
export function envelope<T extends v.GenericSchema>(data: T) {
  return v.object({ success: v.literal(true), data, meta: MetaSchema });
}

export const HealthSchema = v.object({ status: v.literal('ok') });
