/**
 * The venue archive's hourly book files (`market_data/[date]/[hour]/l2Book/[coin].lz4`): one
 * JSON line per snapshot, the `l2Book` websocket message as the archiver received it,
 * `{time, ver_num, raw: {channel: 'l2Book', data: {coin, time, levels: [bids, asks]}}}`, each level
 * `{px, sz, n}`, best first, 20 a side. `time` outside is the archiver's receipt (naive UTC, to
 * the nanosecond), `raw.data.time` the venue's own (epoch ms): the snapshot is the venue's, so its
 * time is the row's; the receipt time is used only when a line lacks the venue's. Lines of the bare
 * message (`{channel, data}`) or of its data alone (the info endpoint's `l2Book` answer) are read too.
 * Each line becomes a native book snapshot; levels past the native 20 (a local server's
 * `n_levels`) are not the venue's native book and are left out.
 */
import * as v from 'valibot';
import { NATIVE_BOOK_LEVELS } from '../venues.ts';
import type { NormalizedRecord, RecordOf } from '#schemas/datasets.ts';
import { familyOfCoin } from './node-fills.ts';
import { epochMsOfNaive } from './node-trades.ts';

const decimal = v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string'));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Level = v.object({ px: decimal, sz: decimal, n: count });
const Data = v.object({
  coin: v.pipe(v.string(), v.minLength(1)),
  time: v.optional(count),
  levels: v.tuple([v.array(Level), v.array(Level)], 'must be [bids, asks]'),
});
const ReceiptTime = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z?$/, 'must be an ISO time'));

/** A line's book message and receipt time, from whichever of the three shapes it has. */
function messageOf(json: unknown): { data: unknown; path: string; received?: unknown } | { error: string } {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { error: 'must be an l2Book message (an object)' };
  const line = json as Record<string, unknown>;
  const envelope = 'raw' in line ? line.raw : line;
  const path = 'raw' in line ? 'raw.' : '';
  if (typeof envelope !== 'object' || envelope === null) return { error: `${path || 'line '}must be an object` };
  const message = envelope as Record<string, unknown>;
  if (!('channel' in message)) return { data: message, path, received: line.time };
  if (message.channel !== 'l2Book') return { error: `${path}channel must be l2Book (got ${JSON.stringify(message.channel)})` };
  return { data: message.data, path: `${path}data.`, received: line.time };
}

export function l2BookLineToRecords(json: unknown): NormalizedRecord[] | { error: string } {
  const message = messageOf(json);
  if ('error' in message) return message;
  const parsed = v.safeParse(Data, message.data);
  if (!parsed.success) return { error: `${message.path}${v.getDotPath(parsed.issues[0]) ?? ''} ${parsed.issues[0].message}`.trim() };
  const { coin, time, levels } = parsed.output;
  let ts = time;
  if (ts === undefined) {
    const received = v.safeParse(ReceiptTime, message.received);
    if (!received.success) return { error: `${message.path}time is absent, and so is the line's receipt time` };
    ts = epochMsOfNaive(received.output);
  }
  const market = familyOfCoin(coin);
  if ('error' in market) return { error: `${message.path}coin: ${market.error}` };
  const side = (list: readonly v.InferOutput<typeof Level>[]) => list.slice(0, NATIVE_BOOK_LEVELS).map((l): [string, string, number] => [l.px, l.sz, l.n]);
  const record: RecordOf<'l2_snapshots'> = { dataset: 'l2_snapshots', ...market, ts, bids: side(levels[0]), asks: side(levels[1]) };
  return [record];
}
