/**
 * Turns a raw batch into normalized records, or refuses the whole batch with a reason that names
 * the first bad lines. Nothing is written for a refused batch.
 */
import * as v from 'valibot';
import { NormalizedRecord, familiesOf } from '../../../schemas/datasets.ts';
import type { BatchFormat } from '../../../schemas/messages.ts';
import { blockToRecords, FillPairing, NodeFillEvent, NodeFillsBlock } from './node-fills.ts';
import { NodeTrade, nodeTradeToRecords } from './node-trades.ts';
import { NodeOrderStatusesBlock, NodeRawBookDiffsBlock, orderStatusesToRecords, rawBookDiffsToRecords } from './node-books.ts';
import { refusedField } from './record-check.ts';
import { isAltxFormat, parseAltxRecording, type AltxFormat } from './altx-api.ts';
import type { AltxMarkets } from './altx-markets.ts';

/** The node's own formats, one JSON line per block: the block's schema and its conversion to records. */
const NODE_FORMATS: { [F in BlockFormat]: { block: v.GenericSchema; records: (block: never) => NormalizedRecord[] | { error: string } } } = {
  node_fills_by_block: { block: NodeFillsBlock, records: blockToRecords },
  node_raw_book_diffs_by_block: { block: NodeRawBookDiffsBlock, records: rawBookDiffsToRecords },
  node_order_statuses_by_block: { block: NodeOrderStatusesBlock, records: orderStatusesToRecords },
};

/**
 * The node's formats whose trades span lines, so a batch is read whole before it is converted:
 * `node_fills` (one `[user, fill]` per line, the two sides of a trade on two lines),
 * `node_fills_streaming` (`--stream-with-block-info`: the by-block envelope, but written as events
 * are processed, so a block and a trade's sides spread over lines) and `node_trades` (one trade per
 * line, some hours listing each trade twice).
 */
const TRADE_FORMATS = ['node_fills', 'node_fills_streaming', 'node_trades'] as const;
type TradeFormat = (typeof TRADE_FORMATS)[number];
type BlockFormat = Exclude<BatchFormat, 'normalized' | TradeFormat | AltxFormat>;
const isTradeFormat = (format: BatchFormat): format is TradeFormat => (TRADE_FORMATS as readonly string[]).includes(format);

const MAX_PROBLEMS = 5;

/** `lines[i]` is the JSON text of `records[i]` (the raw line when the batch was already normalized). */
export type ParseResult =
  | { ok: true; records: NormalizedRecord[]; lines: string[] }
  /** `unknownMarkets`: altx market ids neither the batch nor the registry names (another file may, once ingested). */
  | { ok: false; reason: string; unknownMarkets?: number[] };

function describe(issue: v.BaseIssue<unknown>): string {
  const path = v.getDotPath(issue);
  return `${path ? `${path} ` : ''}${issue.message}`;
}

/**
 * Adds a converted record to the batch when it is a valid record of a family that has its dataset;
 * else the problem, named by line.
 */
function accept(record: NormalizedRecord, line: number, records: NormalizedRecord[], texts: string[], problems: string[]): boolean {
  // A node writes every coin; records of a family without the dataset (spot order statuses) are not archived.
  if (!familiesOf(record.dataset).includes(record.family)) return true;
  if (refusedField(record) === undefined) {
    records.push(record);
    texts.push(JSON.stringify(record));
    return true;
  }
  const checked = v.safeParse(NormalizedRecord, record);
  if (!checked.success) {
    problems.push(`line ${line}: ${describe(checked.issues[0])}`);
    return false;
  }
  records.push(checked.output);
  texts.push(JSON.stringify(checked.output));
  return true;
}

function jsonLines(text: string): { line: number; json: unknown }[] | { problems: string[] } {
  const problems: string[] = [];
  const out: { line: number; json: unknown }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length && problems.length < MAX_PROBLEMS; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    try {
      out.push({ line: i + 1, json: JSON.parse(line) });
    } catch {
      problems.push(`line ${i + 1}: not JSON`);
    }
  }
  return problems.length > 0 ? { problems } : out;
}

/** A batch of a format whose trades span lines: every line read, then each trade converted once. */
function parseTrades(format: TradeFormat, text: string): ParseResult {
  const parsedLines = jsonLines(text);
  const problems = 'problems' in parsedLines ? parsedLines.problems : [];
  const converted: { at: number; records: NormalizedRecord[] }[] = [];
  if (!('problems' in parsedLines)) {
    const pairing = new FillPairing();
    // node_trades: a trade's derived id names it; its first listing is kept.
    const trades = new Map<string, { at: number; records: NormalizedRecord[] }>();
    for (const { line, json } of parsedLines) {
      if (problems.length >= MAX_PROBLEMS) break;
      const schema = format === 'node_trades' ? NodeTrade : format === 'node_fills' ? NodeFillEvent : NodeFillsBlock;
      const parsed = v.safeParse(schema as v.GenericSchema, json);
      if (!parsed.success) {
        problems.push(`line ${line}: ${describe(parsed.issues[0])}`);
        continue;
      }
      if (format === 'node_trades') {
        const records = nodeTradeToRecords(parsed.output as NodeTrade);
        if ('error' in records) { problems.push(`line ${line}: ${records.error}`); continue; }
        const key = `${records[0]!.family}#${(records[0] as { trade_id: number }).trade_id}`;
        if (!trades.has(key)) trades.set(key, { at: line, records });
        continue;
      }
      const events = format === 'node_fills' ? [parsed.output as NodeFillEvent] : (parsed.output as v.InferOutput<typeof NodeFillsBlock>).events;
      for (const event of events) {
        const error = pairing.add(event, line);
        if (error) { problems.push(`line ${line}: ${error.error}`); break; }
      }
    }
    converted.push(...(format === 'node_trades' ? trades.values() : pairing.trades()));
  }
  const records: NormalizedRecord[] = [];
  const texts: string[] = [];
  for (const trade of converted) {
    if (problems.length >= MAX_PROBLEMS) break;
    for (const record of trade.records) if (!accept(record, trade.at, records, texts, problems)) break;
  }
  return outcome(format, problems, records, texts);
}

function outcome(format: BatchFormat, problems: string[], records: NormalizedRecord[], texts: string[]): ParseResult {
  if (problems.length > 0) return { ok: false, reason: `batch refused (${format}): ${problems.join('; ')}` };
  if (records.length === 0) return { ok: false, reason: `batch refused (${format}): no records` };
  return { ok: true, records, lines: texts };
}

/** What a batch is read with besides its text: the altx family's markets by id (altx-markets.ts). */
export interface BatchContext { altxMarkets?: AltxMarkets }

export function parseBatch(format: BatchFormat, text: string, context: BatchContext = {}): ParseResult {
  if (isTradeFormat(format)) return parseTrades(format, text);
  if (isAltxFormat(format)) return parseAltxRecording(format, text, context.altxMarkets);
  const problems: string[] = [];
  const records: NormalizedRecord[] = [];
  const texts: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length && problems.length < MAX_PROBLEMS; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      problems.push(`line ${i + 1}: not JSON`);
      continue;
    }
    // The compiled check passes a good record as parsed; valibot words the problem of one it refuses (and has the last word).
    if (format === 'normalized' && refusedField(json) === undefined) {
      records.push(json as NormalizedRecord);
      texts.push(line);
      continue;
    }
    const parsed = v.safeParse(format === 'normalized' ? NormalizedRecord : NODE_FORMATS[format].block, json);
    if (!parsed.success) {
      problems.push(`line ${i + 1}: ${describe(parsed.issues[0])}`);
      continue;
    }
    if (format === 'normalized') {
      const record = parsed.output as NormalizedRecord;
      // Compaction and reads cover only the families a dataset has: any other record would be stored and never served.
      const families = familiesOf(record.dataset);
      if (!families.includes(record.family)) {
        problems.push(`line ${i + 1}: family ${record.family} has no ${record.dataset} (${families.join(', ')} have)`);
        continue;
      }
      records.push(record);
      texts.push(line);
      continue;
    }
    const converted = NODE_FORMATS[format].records(parsed.output as never);
    if ('error' in converted) {
      problems.push(`line ${i + 1}: ${converted.error}`);
      continue;
    }
    for (const record of converted) if (!accept(record, i + 1, records, texts, problems)) break;
  }
  return outcome(format, problems, records, texts);
}
