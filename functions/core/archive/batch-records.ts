/**
 * A batch as parse.ts assembles it, whatever its format: each converted record checked and
 * accepted or refused by line, at most a few problems named, and the outcome.
 */
import * as v from 'valibot';
import { NormalizedRecord, familiesOf } from '#schemas/datasets.ts';
import type { BatchFormat } from '#schemas/messages.ts';
import { blockMs } from './node-books.ts';
import { nameSpot } from './spot-meta.ts';
import { refusedField } from './record-check.ts';
import type { AltxMarkets } from './altx-markets.ts';

/** What a batch's text does not say itself. */
export interface ParseOptions {
  /** The instant of a file that carries no time (an L4 snapshot, the spot metadata), epoch ms. */
  at?: number;
  /** Spot pair index -> symbol, to name the `@N` coins of the venue's files (spot-meta.ts). */
  spotNames?: ReadonlyMap<number, string>;
  /** The altx family's markets by id (altx-markets.ts), for a recording that names markets its answers do not describe. */
  altxMarkets?: AltxMarkets;
}

/** Problems named before a batch is refused (the rest would repeat them). */
export const MAX_PROBLEMS = 5;

/**
 * `lines[i]` is the JSON text of `records[i]` (the raw line when the batch was already normalized);
 * `blockTimes` the time of each block a node batch holds (an L4 snapshot's time comes from them).
 */
export type ParseResult =
  | { ok: true; records: NormalizedRecord[]; lines: string[]; blockTimes: Map<number, number> }
  /** `unknownMarkets`: altx market ids neither the batch nor the registry names (another file may, once ingested). */
  | { ok: false; reason: string; unknownMarkets?: number[] };

export function describe(issue: v.BaseIssue<unknown>): string {
  const path = v.getDotPath(issue);
  return `${path ? `${path} ` : ''}${issue.message}`;
}

/**
 * Adds a converted record to the batch when it is a valid record of a family that has its dataset
 * (a spot pair named by index renamed when the names are known); else the problem, named by line.
 */
export function accept(
  record: NormalizedRecord,
  where: string,
  records: NormalizedRecord[],
  texts: string[],
  problems: string[],
  options: ParseOptions,
): boolean {
  // A node writes every coin; records of a family without the dataset (spot order statuses) are not archived.
  if (!familiesOf(record.dataset).includes(record.family)) return true;
  if (record.family === 'spot' && record.dataset !== 'instruments') record.symbol = nameSpot(record.symbol, options.spotNames);
  if (refusedField(record) === undefined) {
    records.push(record);
    texts.push(JSON.stringify(record));
    return true;
  }
  const checked = v.safeParse(NormalizedRecord, record);
  if (!checked.success) {
    problems.push(`${where}: ${describe(checked.issues[0])}`);
    return false;
  }
  records.push(checked.output);
  texts.push(JSON.stringify(checked.output));
  return true;
}

export function jsonLines(text: string): { line: number; json: unknown }[] | { problems: string[] } {
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

/** Records a node block's time (by its number) from its envelope. */
export function noteBlock(blockTimes: Map<number, number>, block: unknown): void {
  const { block_number: number, block_time: time } = block as { block_number: number; block_time: string };
  const ms = blockMs(time);
  if (!Number.isNaN(ms)) blockTimes.set(number, ms);
}

export function outcome(format: BatchFormat, problems: string[], records: NormalizedRecord[], texts: string[], blockTimes: Map<number, number>): ParseResult {
  if (problems.length > 0) return { ok: false, reason: `batch refused (${format}): ${problems.join('; ')}` };
  if (records.length === 0) return { ok: false, reason: `batch refused (${format}): no records` };
  return { ok: true, records, lines: texts, blockTimes };
}
