/**
 * Turns a raw batch into normalized records, or refuses the whole batch with a reason that names
 * the first bad lines. Nothing is written for a refused batch. Every format has its entry in one of
 * four registries by how its records span the text: a line each (LINE_FORMATS), trades spread over
 * lines (TRADE_FORMATS), blocks spread over lines (node-streamed.ts) or the whole text at once
 * (WHOLE_FORMATS).
 */
import * as v from 'valibot';
import { NormalizedRecord, familiesOf } from '#schemas/datasets.ts';
import type { BatchFormat } from '#schemas/messages.ts';
import { blockToRecords, FillPairing, NodeFillEvent, NodeFillsBlock } from './node-fills.ts';
import { NodeTrade, nodeTradeToRecords } from './node-trades.ts';
import { NodeOrderStatusesBlock, NodeRawBookDiffsBlock, orderStatusesToRecords, rawBookDiffsToRecords } from './node-books.ts';
import { snapshotToRecords } from './node-snapshot.ts';
import { assetCtxsToRecords } from './asset-ctxs.ts';
import { l2BookLineToRecords } from './l2-book.ts';
import { spotMetaOf, spotPairsOf } from './spot-meta.ts';
import { refusedField } from './record-check.ts';
import { isAltxFormat, parseAltxRecording, type AltxFormat } from './altx-api.ts';
import { isStreamedFormat, streamedRecords, type StreamedFormat } from './node-streamed.ts';
import { MAX_PROBLEMS, accept, describe, jsonLines, noteBlock, outcome, type ParseOptions, type ParseResult } from './batch-records.ts';

export type { ParseOptions, ParseResult };

/**
 * A format of one JSON value a line: the line read with its schema and converted to records (the
 * two bound together, so the conversion takes what the schema parsed), and whether a line is a node
 * block (whose time the batch reports: an L4 snapshot is timed by its block).
 */
interface LineFormatDef {
  block: boolean;
  read(json: unknown): { issue: v.BaseIssue<unknown> } | { output: unknown; converted: NormalizedRecord[] | { error: string } };
}

function lineFormat<S extends v.GenericSchema>(
  line: S,
  records: (parsed: v.InferOutput<S>) => NormalizedRecord[] | { error: string },
  block: boolean,
): LineFormatDef {
  return {
    block,
    read(json) {
      const parsed = v.safeParse(line, json);
      return parsed.success ? { output: parsed.output, converted: records(parsed.output) } : { issue: parsed.issues[0] };
    },
  };
}

const LINE_FORMATS: { [F in LineFormat]: LineFormatDef } = {
  node_fills_by_block: lineFormat(NodeFillsBlock, blockToRecords, true),
  node_raw_book_diffs_by_block: lineFormat(NodeRawBookDiffsBlock, rawBookDiffsToRecords, true),
  node_order_statuses_by_block: lineFormat(NodeOrderStatusesBlock, orderStatusesToRecords, true),
  // Three message shapes; l2-book.ts tells them apart and names the field.
  l2_book: lineFormat(v.unknown(), l2BookLineToRecords, false),
};

/** Formats read whole: their records, or the problems (each naming its line or element) that refuse them. */
const WHOLE_FORMATS: { [F in WholeFormat]: (text: string, options: ParseOptions) => { records: NormalizedRecord[] } | { problems: string[] } } = {
  node_l4_snapshot: (text, options) => snapshotToRecords(text, options.at),
  asset_ctxs: (text) => assetCtxsToRecords(text),
  spot_meta: (text, options) => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      return { problems: [`not JSON (${(error as Error).message})`] };
    }
    const meta = spotMetaOf(json);
    if ('error' in meta) return { problems: [meta.error] };
    const pairs = spotPairsOf(meta, options.at);
    return 'error' in pairs ? { problems: [pairs.error] } : { records: pairs.map((p) => p.record) };
  },
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
type WholeFormat = 'node_l4_snapshot' | 'asset_ctxs' | 'spot_meta';
type LineFormat = Exclude<BatchFormat, 'normalized' | TradeFormat | WholeFormat | AltxFormat | StreamedFormat>;
const isTradeFormat = (format: BatchFormat): format is TradeFormat => (TRADE_FORMATS as readonly string[]).includes(format);
const isWholeFormat = (format: BatchFormat): format is WholeFormat => format in WHOLE_FORMATS;

/** A batch of a format whose trades span lines: every line read, then each trade converted once. */
function parseTrades(format: TradeFormat, text: string, options: ParseOptions): ParseResult {
  const parsedLines = jsonLines(text);
  const problems = 'problems' in parsedLines ? parsedLines.problems : [];
  const converted: { at: number; records: NormalizedRecord[] }[] = [];
  const blockTimes = new Map<number, number>();
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
        if ('error' in records) {
          problems.push(`line ${line}: ${records.error}`);
          continue;
        }
        const key = `${records[0]!.family}#${(records[0] as { trade_id: number }).trade_id}`;
        if (!trades.has(key)) trades.set(key, { at: line, records });
        continue;
      }
      if (format === 'node_fills_streaming') noteBlock(blockTimes, parsed.output);
      const events = format === 'node_fills' ? [parsed.output as NodeFillEvent] : (parsed.output as v.InferOutput<typeof NodeFillsBlock>).events;
      for (const event of events) {
        const error = pairing.add(event, line);
        if (error) {
          problems.push(`line ${line}: ${error.error}`);
          break;
        }
      }
    }
    converted.push(...(format === 'node_trades' ? trades.values() : pairing.trades()));
  }
  const records: NormalizedRecord[] = [];
  const texts: string[] = [];
  for (const trade of converted) {
    if (problems.length >= MAX_PROBLEMS) break;
    for (const record of trade.records) if (!accept(record, `line ${trade.at}`, records, texts, problems, options)) break;
  }
  return outcome(format, problems, records, texts, blockTimes);
}

/** A batch of the node's streamed book diffs or order statuses: each block's events numbered across its lines. */
function parseStreamed(format: StreamedFormat, text: string, options: ParseOptions): ParseResult {
  const parsedLines = jsonLines(text);
  const read = 'problems' in parsedLines ? parsedLines : streamedRecords(format, parsedLines, MAX_PROBLEMS);
  const problems = 'problems' in read ? read.problems : [];
  const records: NormalizedRecord[] = [];
  const texts: string[] = [];
  if ('lines' in read) {
    for (const { line, records: converted } of read.lines) {
      if (problems.length >= MAX_PROBLEMS) break;
      for (const record of converted) if (!accept(record, `line ${line}`, records, texts, problems, options)) break;
    }
  }
  return outcome(format, problems, records, texts, 'lines' in read ? read.blockTimes : new Map());
}

/** A batch of a format read whole. */
function parseWhole(format: WholeFormat, text: string, options: ParseOptions): ParseResult {
  const converted = WHOLE_FORMATS[format](text, options);
  const problems = 'problems' in converted ? converted.problems : [];
  const records: NormalizedRecord[] = [];
  const texts: string[] = [];
  // A record of a file read whole has no line of its own: a refusal names the record (`l4_checkpoints BTC: bids.3.1 ...`).
  if ('records' in converted)
    for (const record of converted.records) if (!accept(record, `${record.dataset} ${record.symbol}`, records, texts, problems, options)) break;
  return outcome(format, problems, records, texts, new Map());
}

export function parseBatch(format: BatchFormat, text: string, options: ParseOptions = {}): ParseResult {
  if (isTradeFormat(format)) return parseTrades(format, text, options);
  if (isWholeFormat(format)) return parseWhole(format, text, options);
  if (isStreamedFormat(format)) return parseStreamed(format, text, options);
  if (isAltxFormat(format)) {
    const parsed = parseAltxRecording(format, text, options.altxMarkets);
    return parsed.ok ? { ...parsed, blockTimes: new Map() } : parsed;
  }
  const problems: string[] = [];
  const blockTimes = new Map<number, number>();
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
    if (format === 'normalized') {
      const parsed = v.safeParse(NormalizedRecord, json);
      if (!parsed.success) {
        problems.push(`line ${i + 1}: ${describe(parsed.issues[0])}`);
        continue;
      }
      const record = parsed.output;
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
    const read = LINE_FORMATS[format].read(json);
    if ('issue' in read) {
      problems.push(`line ${i + 1}: ${describe(read.issue)}`);
      continue;
    }
    if (LINE_FORMATS[format].block) noteBlock(blockTimes, read.output);
    const { converted } = read;
    if ('error' in converted) {
      problems.push(`line ${i + 1}: ${converted.error}`);
      continue;
    }
    for (const record of converted) if (!accept(record, `line ${i + 1}`, records, texts, problems, options)) break;
  }
  return outcome(format, problems, records, texts, blockTimes);
}
