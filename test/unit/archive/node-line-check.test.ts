import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { compiledCheck } from '#core/archive/record-check.ts';
import { NodeOrderStatusesBlock, NodeRawBookDiffsBlock } from '#core/archive/node-books.ts';
import { VenueRateGenerator } from '#local/venue/generator.ts';

/** Real-shaped lines of both formats: the venue-rate generator's. */
const generator = new VenueRateGenerator({ seed: 3, scale: 2, startMs: Date.UTC(2026, 4, 10), intensity: 0.05 });
const lines = { statuses: [] as unknown[], diffs: [] as unknown[] };
while (lines.statuses.length < 200 || lines.diffs.length < 200) {
  const block = generator.next();
  lines.statuses.push(...block.statuses.map((l) => JSON.parse(l)));
  lines.diffs.push(...block.diffs.map((l) => JSON.parse(l)));
}

/** Every path to a value in a JSON tree (keys and indexes). */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const entries = Array.isArray(value) ? value.map((item, i) => [i, item] as const) : Object.entries(value);
  return [prefix, ...entries.flatMap(([key, item]) => paths(item, [...prefix, key]))];
}

/** The value with the node at `path` replaced (`replacement` undefined: the key deleted), or an extra key added beside it. */
function mutate(value: unknown, path: readonly (string | number)[], change: { kind: 'set' | 'delete' | 'extra'; replacement: unknown }): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  if (path.length === 0) return change.kind === 'set' ? change.replacement : copy;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (change.kind === 'set') parent[last] = change.replacement;
  // Removed from an array rather than left a hole: JSON has no sparse arrays.
  else if (change.kind === 'delete' && Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (change.kind === 'delete') delete parent[last];
  else if (!Array.isArray(parent)) parent.extraField = change.replacement;
  return copy;
}

describe("compiledCheck over the node's streamed lines", () => {
  it.each([
    ['node_order_statuses_streaming', NodeOrderStatusesBlock, lines.statuses],
    ['node_raw_book_diffs_streaming', NodeRawBookDiffsBlock, lines.diffs],
  ] as const)('%s: accepts exactly the lines valibot accepts, however a line is changed', (_format, schema, sample) => {
    const accepts = compiledCheck(schema);
    expect(sample.every((line) => accepts(line) && v.safeParse(schema, line).success)).toBe(true);
    fc.assert(
      fc.property(
        fc.nat(sample.length - 1),
        fc.nat(),
        fc.constantFrom<'set' | 'delete' | 'extra'>('set', 'set', 'delete', 'extra'),
        fc.oneof(fc.jsonValue(), fc.constantFrom('B', 'A', 'remove', '1.5', '-0.25', '1e5', `0x${'a'.repeat(40)}`, 0, -1, 1.5, 2 ** 53, null)),
        (index, pick, kind, replacement) => {
          const line = sample[index]!;
          const all = paths(line);
          const changed = mutate(line, all[pick % all.length]!, { kind, replacement });
          expect(accepts(changed)).toBe(v.safeParse(schema, changed).success);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
