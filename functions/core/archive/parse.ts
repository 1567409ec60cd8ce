/**
 * Turns a raw batch into normalized records, or refuses the whole batch with a reason that names
 * the first bad lines. Nothing is written for a refused batch.
 */
import * as v from 'valibot';
import { NormalizedRecord, familiesOf } from '../../../schemas/datasets.ts';
import type { BatchFormat } from '../../../schemas/messages.ts';
import { blockToRecords, NodeFillsBlock } from './node-fills.ts';
import { NodeOrderStatusesBlock, NodeRawBookDiffsBlock, orderStatusesToRecords, rawBookDiffsToRecords } from './node-books.ts';
import { refusedField } from './record-check.ts';

/** The node's own formats, one JSON line per block: the block's schema and its conversion to records. */
const NODE_FORMATS: { [F in Exclude<BatchFormat, 'normalized'>]: { block: v.GenericSchema; records: (block: never) => NormalizedRecord[] | { error: string } } } = {
  node_fills_by_block: { block: NodeFillsBlock, records: blockToRecords },
  node_raw_book_diffs_by_block: { block: NodeRawBookDiffsBlock, records: rawBookDiffsToRecords },
  node_order_statuses_by_block: { block: NodeOrderStatusesBlock, records: orderStatusesToRecords },
};

const MAX_PROBLEMS = 5;

/** `lines[i]` is the JSON text of `records[i]` (the raw line when the batch was already normalized). */
export type ParseResult = { ok: true; records: NormalizedRecord[]; lines: string[] } | { ok: false; reason: string };

function describe(issue: v.BaseIssue<unknown>): string {
  const path = v.getDotPath(issue);
  return `${path ? `${path} ` : ''}${issue.message}`;
}

export function parseBatch(format: BatchFormat, text: string): ParseResult {
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
    for (const record of converted) {
      // A node writes every coin; records of a family without the dataset (spot order statuses) are not archived.
      if (!familiesOf(record.dataset).includes(record.family)) continue;
      if (refusedField(record) === undefined) {
        records.push(record);
        texts.push(JSON.stringify(record));
        continue;
      }
      const checked = v.safeParse(NormalizedRecord, record);
      if (!checked.success) {
        problems.push(`line ${i + 1}: ${describe(checked.issues[0])}`);
        break;
      }
      records.push(checked.output);
      texts.push(JSON.stringify(checked.output));
    }
  }
  if (problems.length > 0) return { ok: false, reason: `batch refused (${format}): ${problems.join('; ')}` };
  if (records.length === 0) return { ok: false, reason: `batch refused (${format}): no records` };
  return { ok: true, records, lines: texts };
}
