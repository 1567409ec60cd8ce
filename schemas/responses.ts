/** Response shapes shared by every route, as valibot schemas (also the source of the OpenAPI components). */
import * as v from 'valibot';
import { ERROR_STATUS, type ErrorCode } from './errors.ts';
import { MarketSummarySchema } from './positions.ts';

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
  coverage_from: v.optional(v.pipe(v.string(), v.description("When the window ends before the dataset's coverage: where coverage starts"))),
  notice: v.optional(v.pipe(v.string(), v.description('Why a page is empty, when the archive can say'))),
  age_ms: v.optional(v.pipe(v.number(), v.description('`/current` reads: how old the value is'))),
  // Positions (SPEC "Account and market positions", rules 1-8); times always with milliseconds.
  as_of: v.optional(v.pipe(v.string(), v.description('Positions: the instant the data describes'))),
  stale: v.optional(v.pipe(v.boolean(), v.description('Positions: the latest snapshot is older than 12 minutes (with a notice)'))),
  source: v.optional(
    v.pipe(
      v.picklist(['snapshot', 'reconstructed', 'changes']),
      v.description('Positions: a stored snapshot, the snapshot before plus change legs, or the change log'),
    ),
  ),
  snapshot_ts: v.optional(v.pipe(v.string(), v.description('Positions: the snapshot read (market and bulk pages stay on it); absent when the hour has none'))),
  built_through: v.optional(v.pipe(v.string(), v.description('Positions: how far the change log is built'))),
  finalized_through: v.optional(v.pipe(v.string(), v.description("altx, altx-rh positions: legs up to here are in the venue's finalized record"))),
  requested_end: v.optional(v.pipe(v.string(), v.description('Positions: the time asked for, when it was later than the change log'))),
  clamped_to: v.optional(v.pipe(v.string(), v.description('Positions: the time answered instead (built_through)'))),
  quality: v.optional(
    v.pipe(
      v.picklist(['complete', 'partial', 'degraded']),
      v.description("Positions: partial when a position's history has a gap; degraded when rows are preliminary"),
    ),
  ),
  finalized: v.optional(v.pipe(v.boolean(), v.description('altx, altx-rh positions: every row rests on finalized legs'))),
  totals: v.optional(v.pipe(MarketSummarySchema, v.description('First page of /positions/{symbol}: the summary of the whole filtered set'))),
  // Data quality and the catalogue: reports the service caches say when they were measured.
  cached_at: v.optional(v.pipe(v.string(), v.description('Data quality: when this cached report was measured (RFC 3339)'))),
  cache_ttl_s: v.optional(v.pipe(v.number(), v.description('Data quality: how long the report is kept before it is measured again'))),
  request_id: v.string(),
});

/** The success envelope `{success, data, meta}` around a payload schema. */
export function envelope<T extends v.GenericSchema>(data: T) {
  return v.object({ success: v.literal(true), data, meta: MetaSchema });
}

export const HealthSchema = v.object({ status: v.literal('ok') });
