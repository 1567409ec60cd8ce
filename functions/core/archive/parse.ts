/**
 * Turns a raw batch into normalized records, or refuses the whole batch with a reason that names
 * the first bad lines. Nothing is written for a refused batch.
 */
import * as v from 'valibot';
import { NormalizedRecord, familiesOf } from '../../../schemas/datasets.ts';
import type { BatchFormat } from '../../../schemas/messages.ts';
import { blockToRecords, NodeFillsBlock } from './node-fills.ts';

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
    if (format === 'normalized') {
      const parsed = v.safeParse(NormalizedRecord, json);
      if (!parsed.success) {
        problems.push(`line ${i + 1}: ${describe(parsed.issues[0])}`);
        continue;
      }
      // Compaction and reads cover only the families a dataset has: any other record would be stored and never served.
      const families = familiesOf(parsed.output.dataset);
      if (!families.includes(parsed.output.family)) {
        problems.push(`line ${i + 1}: family ${parsed.output.family} has no ${parsed.output.dataset} (${families.join(', ')} have)`);
        continue;
      }
      records.push(parsed.output);
      texts.push(line);
    } else {
      const parsed = v.safeParse(NodeFillsBlock, json);
      if (!parsed.success) {
        problems.push(`line ${i + 1}: ${describe(parsed.issues[0])}`);
        continue;
      }
      const converted = blockToRecords(parsed.output);
      if ('error' in converted) problems.push(`line ${i + 1}: ${converted.error}`);
      else {
        records.push(...converted);
        texts.push(...converted.map((record) => JSON.stringify(record)));
      }
    }
  }
  if (problems.length > 0) return { ok: false, reason: `batch refused (${format}): ${problems.join('; ')}` };
  if (records.length === 0) return { ok: false, reason: `batch refused (${format}): no records` };
  return { ok: true, records, lines: texts };
}
