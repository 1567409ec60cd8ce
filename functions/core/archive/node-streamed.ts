/**
 * The node's book diffs and order statuses as it streams them with `--stream-with-block-info`
 * (`node_raw_book_diffs_streaming`, `node_order_statuses_streaming`, the node's directory names):
 * the by-block envelope `{local_time, block_time, block_number, events}`, written as the node
 * processes events rather than once per block, so a block spreads over lines (one event a line in
 * the node's files; a line of several events reads the same). They give the rows the by-block form
 * of the same blocks gives (node-books.ts converts both), `seq` being an event's place in its block.
 *
 * What the node guarantees, and what is done with it:
 * - It executes one block at a time and writes its events in the order they happen (the venue's
 *   order book server applies streamed diffs in line order), so a block's lines are consecutive and
 *   its events are numbered in line order across them. A block that comes back after another one
 *   began (interleaved, or written again by a node replaying blocks after a restart) leaves its
 *   events' places unknown: the batch is refused, naming the line and `block_number`.
 * - Every line of a block carries the block's `block_time` (`local_time` is when the line was
 *   written, and may differ): a line whose `block_time` differs is refused, naming the line.
 * - It rotates its hourly file by its own clock, not between blocks, so a file's first and last
 *   blocks may be cut. A batch of these formats is read as whole blocks: `npm run ingest` cuts the
 *   node's files at block boundaries before it sends them (streamed-run.ts).
 */
import * as v from 'valibot';
import type { NormalizedRecord } from '#schemas/datasets.ts';
import { compiledCheck } from './record-check.ts';
import { blockMs, NodeOrderStatusesBlock, NodeRawBookDiffsBlock, orderStatusesToRecords, rawBookDiffsToRecords } from './node-books.ts';

/**
 * Each streamed format: the schema of its lines (the by-block envelope), the same compiled into a
 * predicate (valibot cost a third of a status line's ingest at the venue's rate; it now words
 * refusals only), and the conversion of a line from its first event's place.
 */
const STREAMED = {
  node_raw_book_diffs_streaming: { line: NodeRawBookDiffsBlock, accepts: compiledCheck(NodeRawBookDiffsBlock), records: rawBookDiffsToRecords },
  node_order_statuses_streaming: { line: NodeOrderStatusesBlock, accepts: compiledCheck(NodeOrderStatusesBlock), records: orderStatusesToRecords },
} as const;

export type StreamedFormat = keyof typeof STREAMED;
export const STREAMED_FORMATS = Object.keys(STREAMED) as StreamedFormat[];
export const isStreamedFormat = (format: string): format is StreamedFormat => format in STREAMED;

/** The records of each line (by its number in the text) and each block's time, or the problems that refuse the batch. */
export type StreamedRecords = { lines: { line: number; records: NormalizedRecord[] }[]; blockTimes: Map<number, number> } | { problems: string[] };

function describe(issue: v.BaseIssue<unknown>): string {
  const path = v.getDotPath(issue);
  return `${path ? `${path} ` : ''}${issue.message}`;
}

/** The block being read: its number, time, first line and how many events its lines so far held. */
interface OpenBlock {
  number: number;
  time: string;
  firstLine: number;
  events: number;
}

/**
 * Converts the parsed lines of a streamed batch, in order, numbering each block's events across
 * its lines. Stops at `maxProblems` problems.
 */
export function streamedRecords(format: StreamedFormat, lines: Iterable<{ line: number; json: unknown }>, maxProblems: number): StreamedRecords {
  const { line: schema, accepts, records: convert } = STREAMED[format];
  const problems: string[] = [];
  const out: { line: number; records: NormalizedRecord[] }[] = [];
  const blockTimes = new Map<number, number>();
  /** The first line of each block met, to name it when it comes back. */
  const firstLines = new Map<number, number>();
  let open: OpenBlock | undefined;
  for (const { line, json } of lines) {
    if (problems.length >= maxProblems) break;
    // An accepted line is read as parsed: the conversion reads only the schema's members, so keys valibot's output would leave out change nothing.
    const parsed = accepts(json) ? { success: true as const, output: json as v.InferOutput<typeof schema> } : v.safeParse(schema, json);
    if (!parsed.success) {
      problems.push(`line ${line}: ${describe(parsed.issues[0])}`);
      continue;
    }
    const block = parsed.output;
    if (open?.number !== block.block_number) {
      const earlier = firstLines.get(block.block_number);
      if (earlier !== undefined) {
        problems.push(
          `line ${line}: block_number ${block.block_number} again after block ${open?.number} began (line ${open?.firstLine}); its lines from line ${earlier} are not consecutive, so its events' places in the block are not known`,
        );
        continue;
      }
      open = { number: block.block_number, time: block.block_time, firstLine: line, events: 0 };
      firstLines.set(open.number, line);
      const ms = blockMs(block.block_time);
      if (!Number.isNaN(ms)) blockTimes.set(open.number, ms);
    } else if (block.block_time !== open.time) {
      problems.push(
        `line ${line}: block_time ${JSON.stringify(block.block_time)} is not that of block ${open.number} (${JSON.stringify(open.time)} from line ${open.firstLine})`,
      );
      continue;
    }
    // The schemas differ by format; each conversion takes its own format's line.
    const records = (convert as (b: typeof block, firstSeq: number) => NormalizedRecord[] | { error: string })(block, open.events);
    open.events += block.events.length;
    if ('error' in records) {
      problems.push(`line ${line}: ${records.error}`);
      continue;
    }
    out.push({ line, records });
  }
  return problems.length > 0 ? { problems } : { lines: out, blockTimes };
}
