/**
 * Recordings of the altx venue's public API (formats `altx_api` for altx, `altx_rh_api` for
 * altx-rh: the venue's two deployments answer alike, so the format names the family) become the
 * family's trades, L2 snapshots, order-level checkpoints, funding, open interest and instruments.
 *
 *   trades          REST `recentTrades`/`trades`, WS `trade/{id}` (`trades` and `liquidation_trades`):
 *                   one row per venue `trade_id`, however many answers and messages carry it; the
 *                   taker's side (`is_maker_ask`: the maker sold, so the taker bought).
 *   l2_snapshots    WS `order_book/{id}`: the book after each message, at the message's time.
 *   l4_checkpoints  REST `orderBookOrders` (wrapped: its market and time are the request's).
 *   funding         REST `fundings` (hourly, settled; wrapped: its market is the request's) and WS
 *                   `market_stats` (`current_funding_rate`, the hour's running prediction). The
 *                   venue gives percents, the archive fractions; `fundings` gives the rate unsigned
 *                   and the paying side in `direction` (`short`: shorts pay, a negative rate).
 *   open_interest   WS `market_stats` (the venue's USD open interest over its mark price, in base
 *                   units at the market's size decimals) and REST `orderBookDetails` (base units).
 *   instruments     REST `orderBooks`/`orderBookDetails`, with the venue's `market_id`.
 *
 * Times are the venue's where it gives one (a trade's `timestamp`, a message's `timestamp`), else
 * the recorder's (a wrapper's `time`). Market ids become symbols through altx-markets.ts; a trade
 * and a market_stats entry become records in altx-records.ts.
 */
import * as v from 'valibot';
import { NormalizedRecord, type FundingRecord } from '#schemas/datasets.ts';
import type { BatchFormat } from '#schemas/messages.ts';
import type { Family } from '../venues.ts';
import { refusedField } from './record-check.ts';
import { ANSWERS, MARKET_STATS_ALL, MESSAGES, decimalOfNumber, epochMsOf, negated, shifted, type AltxMarketStats, type AltxTrade } from './altx-shapes.ts';
import { statsRecords, tradeRecord } from './altx-records.ts';
import { instrumentOf, marketOf, type AltxMarket, type AltxMarkets } from './altx-markets.ts';
import { BookReplay, l2Snapshot, l3Checkpoint } from './altx-books.ts';
import { marketIdOfPath, readLine, type Line } from './altx-lines.ts';

export const ALTX_FORMAT_FAMILY = { altx_api: 'altx', altx_rh_api: 'altx-rh' } as const satisfies Partial<Record<BatchFormat, Family>>;
export type AltxFormat = keyof typeof ALTX_FORMAT_FAMILY;
type AltxFamily = (typeof ALTX_FORMAT_FAMILY)[AltxFormat];
export const isAltxFormat = (format: string): format is AltxFormat => format in ALTX_FORMAT_FAMILY;
export const altxFormatOf = (family: AltxFamily): AltxFormat => (family === 'altx' ? 'altx_api' : 'altx_rh_api');

const MAX_PROBLEMS = 5;

/** parse.ts's ParseResult (declared here too: parse.ts dispatches to this module). */
type ParseResult = { ok: true; records: NormalizedRecord[]; lines: string[] } | { ok: false; reason: string; unknownMarkets?: number[] };
type Rows = Map<string, { record: NormalizedRecord; line: number }>;

function describe(issue: v.BaseIssue<unknown>): string {
  const path = v.getDotPath(issue);
  return `${path ? `${path} ` : ''}${issue.message}`;
}

/** A line's value checked against its schema, or the problem. */
function checked<S extends v.GenericSchema>(schema: S, json: unknown): v.InferOutput<S> | { error: string } {
  const parsed = v.safeParse(schema, json);
  return parsed.success ? parsed.output : { error: describe(parsed.issues[0]) };
}

const isError = (value: unknown): value is { error: string } => typeof value === 'object' && value !== null && 'error' in value;

class Conversion {
  readonly rows: Rows = new Map();
  readonly unknown = new Set<number>();
  readonly #books = new BookReplay();

  constructor(
    readonly family: AltxFamily,
    readonly markets: AltxMarkets,
  ) {}

  /** Keeps the first row of a key (the same trade in two answers), or the last (a book's state at an instant). */
  add(key: string, record: NormalizedRecord, line: number, last = false): void {
    if (last || !this.rows.has(key)) this.rows.set(key, { record, line });
  }

  market(id: number): AltxMarket | { error: string } {
    const market = this.markets.get(id);
    if (market) return market;
    this.unknown.add(id);
    return { error: `market_id ${id} is not a known ${this.family} market: record the venue's orderBooks answer with it, or ingest one first` };
  }

  convert(line: Line): string | undefined {
    const { kind } = line;
    if ('ignored' in kind) return undefined;
    if ('ws' in kind) return this.message(line, kind.ws, kind.channelId, kind.type);
    switch (kind.rest) {
      case 'trades':
        return this.trades(line, checked(ANSWERS.trades, line.json), (a) => a.trades);
      case 'fundings':
        return this.fundings(line);
      case 'orderBookOrders':
        return this.orders(line);
      case 'orderBooks':
        return this.definitions(line, checked(ANSWERS.orderBooks, line.json), (a) => a.order_books);
      case 'orderBookDetails':
        return this.definitions(line, checked(ANSWERS.orderBookDetails, line.json), (a) => [
          ...(a.order_book_details ?? []),
          ...(a.spot_order_book_details ?? []),
        ]);
    }
  }

  trades<A>(line: Line, answer: A | { error: string }, list: (a: A) => readonly AltxTrade[]): string | undefined {
    if (isError(answer)) return answer.error;
    for (const trade of list(answer)) {
      const market = this.market(trade.market_id);
      if ('error' in market) return market.error;
      if (!market.archived) continue;
      this.add(`trades#${trade.trade_id}`, tradeRecord(this.family, market.symbol, trade), line.line);
    }
    return undefined;
  }

  definitions<A>(
    line: Line,
    answer: A | { error: string },
    list: (a: A) => readonly v.InferOutput<typeof ANSWERS.orderBooks>['order_books'][number][],
  ): string | undefined {
    if (isError(answer)) return answer.error;
    for (const def of list(answer)) {
      const instrument = instrumentOf(this.family, def, line.time);
      if (instrument) this.add(`instruments#${instrument.symbol}#${instrument.ts}`, instrument, line.line);
      const market = marketOf(this.family, def);
      const oi = def.open_interest == null ? undefined : decimalOfNumber(def.open_interest);
      if (market.archived && oi !== undefined && line.time !== undefined) {
        this.add(
          `open_interest#${market.symbol}#${line.time}`,
          { dataset: 'open_interest', family: this.family, symbol: market.symbol, ts: line.time, open_interest: oi },
          line.line,
        );
      }
    }
    return undefined;
  }

  fundings(line: Line): string | undefined {
    const answer = checked(ANSWERS.fundings, line.json);
    if (isError(answer)) return answer.error;
    if (answer.resolution != null && answer.resolution !== '1h')
      return `resolution ${answer.resolution}: only hourly fundings are archived (request resolution=1h)`;
    const id = marketIdOfPath(line.path);
    if (id === undefined)
      return 'a fundings answer names no market: record it wrapped with its request path ({"path": "/api/v1/fundings?market_id=…", "body": …})';
    const market = this.market(id);
    if ('error' in market) return market.error;
    if (!market.archived) return undefined;
    for (const [i, funding] of answer.fundings.entries()) {
      if (funding.rate.startsWith('-')) return `fundings.${i}.rate must be unsigned (the paying side is in direction)`;
      const fraction = shifted(funding.rate, 2);
      const ts = epochMsOf(funding.timestamp);
      const record: FundingRecord = {
        dataset: 'funding',
        family: this.family,
        symbol: market.symbol,
        ts,
        funding_rate: funding.direction === 'short' ? negated(fraction) : fraction,
      };
      this.add(`funding#${market.symbol}#${ts}`, record, line.line);
    }
    return undefined;
  }

  orders(line: Line): string | undefined {
    const answer = checked(ANSWERS.orderBookOrders, line.json);
    if (isError(answer)) return answer.error;
    const id = marketIdOfPath(line.path);
    if (id === undefined || line.time === undefined) {
      return 'an orderBookOrders answer names no market or time: record it wrapped ({"time": …, "path": "/api/v1/orderBookOrders?market_id=…", "body": …})';
    }
    const market = this.market(id);
    if ('error' in market) return market.error;
    if (market.archived) this.add(`l4_checkpoints#${market.symbol}#${line.time}`, l3Checkpoint(this.family, market.symbol, line.time, answer), line.line, true);
    return undefined;
  }

  message(line: Line, channel: keyof typeof MESSAGES, channelId: string, type: string): string | undefined {
    if (channel === 'trade') {
      return this.trades(line, checked(MESSAGES.trade, line.json), (m) => [...(m.trades ?? []), ...(m.liquidation_trades ?? [])]);
    }
    // The message's own time (the venue's), else when it was received.
    const ts = typeof line.json.timestamp === 'number' ? epochMsOf(line.json.timestamp) : line.time;
    if (ts === undefined) return `a ${channel} message carries no timestamp: record it wrapped with its receive time ({"time": …, "body": …})`;
    if (channel === 'order_book') {
      const message = checked(MESSAGES.order_book, line.json);
      if (isError(message)) return message.error;
      if (!/^\d+$/.test(channelId)) return `channel ${String(line.json.channel)} names no market`;
      const market = this.market(Number(channelId));
      if ('error' in market) return market.error;
      const levels = this.#books.apply(Number(channelId), type.startsWith('subscribed/') ? 'snapshot' : 'update', message.order_book);
      if (levels && market.archived) this.add(`l2_snapshots#${market.symbol}#${ts}`, l2Snapshot(this.family, market.symbol, ts, levels), line.line, true);
      return undefined;
    }
    const raw = line.json.market_stats;
    const single = typeof raw === 'object' && raw !== null && 'market_id' in raw;
    const message = single ? checked(MESSAGES.market_stats, line.json) : checked(MARKET_STATS_ALL, line.json);
    if (isError(message)) return message.error;
    const stats: AltxMarketStats[] = 'market_id' in message.market_stats ? [message.market_stats as AltxMarketStats] : Object.values(message.market_stats);
    for (const entry of stats) {
      const error = this.stats(line.line, ts, entry);
      if (error) return error;
    }
    return undefined;
  }

  stats(line: number, ts: number, s: AltxMarketStats): string | undefined {
    const market = this.market(s.market_id);
    if ('error' in market) return market.error;
    if (!market.archived) return undefined;
    for (const record of statsRecords(this.family, market, ts, s)) this.add(`${record.dataset}#${market.symbol}#${ts}`, record, line);
    return undefined;
  }
}

/** The markets a recording's own orderBooks/orderBookDetails answers describe; two names for one id are refused. */
function recordedMarkets(family: AltxFamily, lines: readonly Line[], problems: string[]): Map<number, AltxMarket> {
  const markets = new Map<number, { market: AltxMarket; line: number }>();
  const name = (m: AltxMarket) => (m.archived ? m.symbol : m.venueSymbol);
  for (const line of lines) {
    if (!('rest' in line.kind) || (line.kind.rest !== 'orderBooks' && line.kind.rest !== 'orderBookDetails')) continue;
    const answer = line.kind.rest === 'orderBooks' ? checked(ANSWERS.orderBooks, line.json) : checked(ANSWERS.orderBookDetails, line.json);
    if (isError(answer)) continue; // named when the line is converted
    const defs = 'order_books' in answer ? answer.order_books : [...(answer.order_book_details ?? []), ...(answer.spot_order_book_details ?? [])];
    for (const def of defs) {
      const market = marketOf(family, def);
      const known = markets.get(def.market_id);
      if (known && name(known.market) !== name(market))
        problems.push(`line ${line.line}: market_id ${def.market_id} is ${def.symbol} here but ${name(known.market)} on line ${known.line}`);
      // orderBooks and orderBookDetails may both describe a market; the one with size decimals is kept.
      else if (!known || (known.market.archived && known.market.szDecimals === undefined)) markets.set(def.market_id, { market, line: line.line });
    }
  }
  return new Map([...markets].map(([id, { market }]) => [id, market]));
}

/**
 * A recording as records, or refused whole, naming the first bad lines. `registry` is the family's
 * instrument registry as market ids (altx-markets.ts `registryMarkets`); the recording's own
 * market answers override it.
 */
export function parseAltxRecording(format: AltxFormat, text: string, registry: AltxMarkets = new Map()): ParseResult {
  const family = ALTX_FORMAT_FAMILY[format];
  const problems: string[] = [];
  const lines: Line[] = [];
  const texts = text.split('\n');
  for (let i = 0; i < texts.length && problems.length < MAX_PROBLEMS; i++) {
    const raw = texts[i]!.trim();
    if (raw === '') continue;
    const read = readLine(raw, i + 1);
    if ('problem' in read) problems.push(read.problem);
    else lines.push(read);
  }
  const conversion = new Conversion(family, new Map([...registry, ...recordedMarkets(family, lines, problems)]));
  for (const line of lines) {
    if (problems.length >= MAX_PROBLEMS) break;
    const error = conversion.convert(line);
    if (error) problems.push(`line ${line.line}: ${error}`);
  }
  const records: NormalizedRecord[] = [];
  const recordTexts: string[] = [];
  for (const { record, line } of conversion.rows.values()) {
    if (problems.length >= MAX_PROBLEMS) break;
    if (refusedField(record) !== undefined) {
      const parsed = v.safeParse(NormalizedRecord, record);
      if (!parsed.success) {
        problems.push(`line ${line}: ${record.dataset} row ${describe(parsed.issues[0])}`);
        continue;
      }
    }
    records.push(record);
    recordTexts.push(JSON.stringify(record));
  }
  if (problems.length > 0) {
    return {
      ok: false,
      reason: `batch refused (${format}): ${problems.join('; ')}`,
      ...(conversion.unknown.size > 0 && { unknownMarkets: [...conversion.unknown] }),
    };
  }
  if (records.length === 0) return { ok: false, reason: `batch refused (${format}): no records` };
  return { ok: true, records, lines: recordTexts };
}
