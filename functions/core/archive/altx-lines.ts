/**
 * The lines of an altx recording (README "Bringing real data": recordings of the altx venue's API):
 * one JSON value a line, each a WebSocket message or a REST answer body as the venue sent it, or
 * that value wrapped by the recorder as `{"time": <epoch ms received>, "path": "<request path and
 * query>", "body": <the value>}` when the value lacks what a row needs (a `fundings` or
 * `orderBookOrders` answer names no market; a `market_stats` message carries no time). This module
 * reads lines and tells what each holds; altx-api.ts turns them into records.
 */
import * as v from 'valibot';
import { type ANSWERS, MESSAGES, Wrapper, epochMsOf } from './altx-shapes.ts';

export type Answer = keyof typeof ANSWERS;
export type Channel = keyof typeof MESSAGES;

export type Kind =
  | { ws: Channel; channelId: string; type: string }
  | { rest: Answer }
  /** A message or answer of the venue that holds nothing the archive stores (pings, account channels, `exchangeStats`'s 24-hour figures, errors). */
  | { ignored: string };

export interface Line {
  line: number;
  kind: Kind;
  json: Record<string, unknown>;
  time?: number;
  path?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a value of the venue holds, or why it is no value of the venue. */
export function kindOf(json: unknown): Kind | { error: string } {
  if (!isObject(json)) return { error: 'neither a message nor an answer of the altx venue (not a JSON object)' };
  if (typeof json.type === 'string') {
    // WebSocket: `channel` is `<name>:<id>` in messages (`<name>/<id>` when subscribing).
    const match = typeof json.channel === 'string' ? /^([a-z_]+)[:/](.+)$/.exec(json.channel) : null;
    const name = match?.[1];
    if (name && name in MESSAGES && /^(subscribed|update)\//.test(json.type)) return { ws: name as Channel, channelId: match![2]!, type: json.type };
    return { ignored: `${json.type} message` };
  }
  if ('fundings' in json) return { rest: 'fundings' };
  if ('order_book_details' in json || 'spot_order_book_details' in json) return { rest: 'orderBookDetails' };
  if ('order_books' in json) return { rest: 'orderBooks' };
  if ('trades' in json) return { rest: 'trades' };
  if ('asks' in json && 'bids' in json && ('total_asks' in json || 'total_bids' in json)) return { rest: 'orderBookOrders' };
  if ('order_book_stats' in json) return { ignored: 'exchangeStats answer' };
  // Every answer of the venue has a result code; one without rows is another endpoint's or an error.
  if (typeof json.code === 'number') return { ignored: 'answer' };
  return { error: 'neither a message nor an answer of the altx venue' };
}

/** A recorder's wrapper: an object with `body` and no field of the venue's own envelopes. */
const isWrapper = (json: Record<string, unknown>) => 'body' in json && !('type' in json) && !('code' in json);

/** A line's value, unwrapped, with what it holds; or the problem. */
export function readLine(text: string, line: number): Line | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: `line ${line}: not JSON` };
  }
  let time: number | undefined;
  let path: string | undefined;
  if (isObject(json) && isWrapper(json)) {
    const wrapper = v.safeParse(Wrapper, json);
    if (!wrapper.success) {
      const at = v.getDotPath(wrapper.issues[0]);
      return { problem: `line ${line}: ${at ? `${at} ` : ''}${wrapper.issues[0].message}` };
    }
    time = wrapper.output.time == null ? undefined : epochMsOf(wrapper.output.time);
    path = wrapper.output.path ?? undefined;
    json = wrapper.output.body;
  }
  const kind = kindOf(json);
  if ('error' in kind) return { problem: `line ${line}: ${kind.error}` };
  return { line, kind, json: json as Record<string, unknown>, ...(time !== undefined && { time }), ...(path !== undefined && { path }) };
}

/** The `market_id` of a request path's query (`/api/v1/fundings?market_id=1&…`). */
export function marketIdOfPath(path: string | undefined): number | undefined {
  if (path === undefined) return undefined;
  const value = new URL(path, 'http://recording.invalid').searchParams.get('market_id');
  return value !== null && /^\d{1,5}$/.test(value) ? Number(value) : undefined;
}

const LINES_SNIFFED = 50;

/**
 * Whether a text is an altx recording: its first lines are all the venue's values and at least one
 * holds rows (a recording may open with `connected` and `subscribed` messages).
 */
export function isAltxRecording(text: string): boolean {
  let seen = 0;
  let start = 0;
  while (start < text.length && seen < LINES_SNIFFED) {
    const end = text.indexOf('\n', start);
    const raw = (end < 0 ? text.slice(start) : text.slice(start, end)).trim();
    start = end < 0 ? text.length : end + 1;
    if (raw === '') continue;
    seen += 1;
    const read = readLine(raw, seen);
    if ('problem' in read) return false;
    if (!('ignored' in read.kind)) return true;
  }
  return false;
}

/** The altx family a path names by a directory (`…/altx-rh/…`), undefined when none, an error when both. */
export function altxFamilyOfPath(path: string): 'altx' | 'altx-rh' | undefined | { error: string } {
  const segments = new Set(path.split(/[\\/]/));
  const named = (['altx', 'altx-rh'] as const).filter((family) => segments.has(family));
  if (named.length > 1) return { error: 'the path names both altx and altx-rh: pass --family' };
  return named[0];
}
