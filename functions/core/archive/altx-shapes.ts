/**
 * The altx venue's (Lighter's) public API as it answers, for recordings of it (altx-api.ts): the
 * REST answers (`recentTrades`/`trades`, `orderBooks`, `orderBookDetails`, `fundings`,
 * `orderBookOrders`, `exchangeStats`) and the WebSocket messages of the `trade/{id}`,
 * `order_book/{id}` and `market_stats/{id}` channels, with the field names and types of the venue's
 * OpenAPI document and WebSocket reference. Objects are `v.object` (not strict): the venue adds
 * fields, and a field the archive does not store must not refuse a line. Fields the reference marks
 * "omitted when zero/empty" are optional.
 */
import * as v from 'valibot';
import { formatDecimal, parseDecimal } from '../book/decimal.ts';

const decimal = v.pipe(v.string('must be a decimal string'), v.regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string'));
/** Ids above 2^53 do not survive JSON.parse as numbers; one that did not is refused, never rounded. */
const id = v.pipe(
  v.number('must be an integer'),
  v.integer('must be an integer'),
  v.minValue(0, 'must not be negative'),
  v.maxValue(Number.MAX_SAFE_INTEGER, 'must be below 2^53 (larger ids do not survive JSON numbers)'),
);
const integer = v.pipe(v.number('must be an integer'), v.integer('must be an integer'));
/** "omitted when empty": an empty string is the same as absent. */
const optionalDecimal = v.optional(v.nullable(v.union([decimal, v.literal('')], 'must be a decimal string')));

export const AltxTrade = v.object({
  trade_id: id,
  tx_hash: v.optional(v.nullable(v.string())),
  type: v.optional(v.nullable(v.string())),
  market_id: id,
  size: decimal,
  price: decimal,
  usd_amount: optionalDecimal,
  ask_id: v.optional(v.nullable(id)),
  bid_id: v.optional(v.nullable(id)),
  ask_account_id: v.optional(v.nullable(id)),
  bid_account_id: v.optional(v.nullable(id)),
  /** The resting (maker) order was the ask: the taker bought. */
  is_maker_ask: v.boolean('must be a boolean'),
  block_height: v.optional(v.nullable(id)),
  timestamp: id,
  /** The taker's fee rate in millionths (omitted when zero). */
  taker_fee: v.optional(v.nullable(integer)),
  taker_position_size_before: optionalDecimal,
});
export type AltxTrade = v.InferOutput<typeof AltxTrade>;

const Level = v.object({ price: decimal, size: decimal });

/** A market as `orderBooks` and `orderBookDetails` (perp and spot lists) describe it. */
export const AltxMarketDef = v.object({
  symbol: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
  market_id: id,
  market_type: v.optional(v.nullable(v.picklist(['perp', 'spot'], 'must be perp or spot'))),
  size_decimals: v.optional(v.nullable(v.pipe(integer, v.minValue(0), v.maxValue(18)))),
  supported_size_decimals: v.optional(v.nullable(v.pipe(integer, v.minValue(0), v.maxValue(18)))),
  /** Listing time, epoch ms (a string in the answers seen). */
  created_at: v.optional(v.nullable(v.union([integer, v.pipe(v.string(), v.regex(/^\d{1,19}$/, 'must be an epoch time'))]))),
  /** Initial margin fraction in hundredths of a percent (500 = 5%, 20x). */
  min_initial_margin_fraction: v.optional(v.nullable(integer)),
  /** orderBookDetails: open interest in base units, a JSON number. */
  open_interest: v.optional(v.nullable(v.number())),
});
export type AltxMarketDef = v.InferOutput<typeof AltxMarketDef>;

/** Funding per market and hour: an unsigned percent, the side that pays in `direction`. */
const Funding = v.object({ timestamp: id, rate: decimal, direction: v.picklist(['long', 'short'], 'must be long or short') });

/** An order of `orderBookOrders` (L3). */
const SimpleOrder = v.object({
  order_index: id,
  owner_account_index: id,
  initial_base_amount: optionalDecimal,
  remaining_base_amount: decimal,
  price: decimal,
});

export const AltxMarketStats = v.object({
  market_id: id,
  index_price: optionalDecimal,
  mark_price: optionalDecimal,
  /** USD notional, one side (the venue's own convention). */
  open_interest: optionalDecimal,
  /** Percent per hour, signed: the rate predicted for the hour under way. */
  current_funding_rate: optionalDecimal,
  daily_quote_token_volume: v.optional(v.nullable(v.number())),
});
export type AltxMarketStats = v.InferOutput<typeof AltxMarketStats>;

/** The answers and messages read, by what tells them apart. */
export const ANSWERS = {
  trades: v.object({ trades: v.array(AltxTrade) }),
  orderBooks: v.object({ order_books: v.array(AltxMarketDef) }),
  orderBookDetails: v.object({
    order_book_details: v.optional(v.nullable(v.array(AltxMarketDef))),
    spot_order_book_details: v.optional(v.nullable(v.array(AltxMarketDef))),
  }),
  fundings: v.object({ resolution: v.optional(v.nullable(v.string())), fundings: v.array(Funding) }),
  orderBookOrders: v.object({ asks: v.array(SimpleOrder), bids: v.array(SimpleOrder) }),
} as const;

export const MESSAGES = {
  trade: v.object({ trades: v.optional(v.nullable(v.array(AltxTrade))), liquidation_trades: v.optional(v.nullable(v.array(AltxTrade))) }),
  order_book: v.object({
    order_book: v.object({ asks: v.array(Level), bids: v.array(Level), nonce: v.optional(v.nullable(integer)), begin_nonce: v.optional(v.nullable(integer)) }),
  }),
  /** One market's stats (`market_stats/{id}`); `market_stats/all` sends every market's, keyed by id (MARKET_STATS_ALL). */
  market_stats: v.object({ market_stats: AltxMarketStats }),
} as const;
export const MARKET_STATS_ALL = v.object({ market_stats: v.record(v.string(), AltxMarketStats) });

/** A line wrapped by the recorder: when it was received and (REST) the request it answers. */
export const Wrapper = v.object({
  time: v.optional(v.nullable(id)),
  path: v.optional(v.nullable(v.string())),
  body: v.unknown(),
});

/**
 * Epoch milliseconds of a venue time. The reference's examples give seconds (1722339648) where the
 * live answers give milliseconds (1760041996404), and some newer fields are micro- or nanoseconds:
 * the magnitude tells them apart (10^11 s is the year 5138, 10^11 ms is 1973).
 */
export function epochMsOf(value: number): number {
  if (value < 1e11) return value * 1000;
  if (value < 1e14) return value;
  if (value < 1e17) return Math.floor(value / 1e3);
  return Math.floor(value / 1e6);
}

/** A decimal divided by 10^places, exactly (a percent to a fraction: 2 places). */
export function shifted(text: string, places: number): string {
  const { units, scale } = parseDecimal(text);
  return formatDecimal({ units, scale: scale + places });
}

export const negated = (text: string) => (text.startsWith('-') ? text.slice(1) : text === '0' ? text : `-${text}`);

/** `text × factor / 10^places`, exactly (a fee: the notional times a rate in millionths). */
export function scaledProduct(text: string, factor: number, places: number): string {
  const { units, scale } = parseDecimal(text);
  return formatDecimal({ units: units * BigInt(factor), scale: scale + places });
}

/** `a / b` rounded half to even at `places` decimals; undefined when `b` is zero. */
export function quotient(a: string, b: string, places: number): string | undefined {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  if (y.units === 0n) return undefined;
  // a / b = (x.units / 10^x.scale) / (y.units / 10^y.scale); in units of 10^-places:
  const numerator = x.units * 10n ** BigInt(places + y.scale);
  const denominator = y.units * 10n ** BigInt(x.scale);
  const sign = numerator < 0n !== denominator < 0n ? -1n : 1n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  let q = n / d;
  const r2 = (n % d) * 2n;
  if (r2 > d || (r2 === d && q % 2n === 1n)) q += 1n;
  return formatDecimal({ units: sign * q, scale: places });
}

/** A JSON number as a decimal string (the venue gives a few values as numbers); undefined when not finite. */
export function decimalOfNumber(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  const text = String(value);
  if (!/e/i.test(text)) return text;
  // Exponent forms (1e-7, 1e21): fixed notation, trailing zeros dropped.
  return formatDecimal(parseDecimal(value.toFixed(20).replace(/0+$/, '').replace(/\.$/, '')));
}
