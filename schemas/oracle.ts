/**
 * hip3 oracle routes beyond the spec (issue 45): the deployer's external price beside the mark, and
 * the instantaneous price discovery bounds around it. Shapes as the reference client reads them
 * (reference §3 Hip3OracleExternal, Hip3OracleBounds): numbers, RFC 3339 time with an ms twin.
 */
import * as v from 'valibot';

const time = {
  timestamp: v.pipe(v.string(), v.description("the sample's time, RFC 3339 UTC")),
  timestamp_ms: v.pipe(v.number(), v.integer(), v.description("the sample's time, epoch ms")),
  block_number: v.pipe(
    v.number(),
    v.integer(),
    v.description("the market's newest order-event block at or before the sample; 0 when none is archived in the hour before"),
  ),
};

export const Hip3OracleExternalSchema = v.object({
  symbol: v.string(),
  external_price: v.pipe(
    v.nullable(v.number()),
    v.description('the deployer-pushed oracle (external) price of the newest open-interest sample; null when the sample has none'),
  ),
  mark_price: v.pipe(v.nullable(v.number()), v.description('the mark price of the same sample; null when it has none')),
  ...time,
});
export type Hip3OracleExternal = v.InferOutput<typeof Hip3OracleExternalSchema>;

export const Hip3OracleBoundsSchema = v.pipe(
  v.object({
    symbol: v.string(),
    reference_price: v.pipe(v.number(), v.description('the external price, or the mark price when the sample has no external price')),
    reference_source: v.picklist(['external', 'mark']),
    max_leverage: v.pipe(v.number(), v.integer(), v.description("the market's max leverage (instrument registry)")),
    bound_fraction: v.pipe(v.number(), v.description('1 / max_leverage, applied on each side of reference_price')),
    lower_bound: v.pipe(v.number(), v.description('reference_price x (1 - bound_fraction)')),
    upper_bound: v.pipe(v.number(), v.description('reference_price x (1 + bound_fraction)')),
    ...time,
  }),
  v.description("Instantaneous bounds only: a deployer's ratcheted range can be wider"),
);
export type Hip3OracleBounds = v.InferOutput<typeof Hip3OracleBoundsSchema>;
