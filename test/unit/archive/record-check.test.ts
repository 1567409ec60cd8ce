/**
 * The compiled record check (functions/core/archive/record-check.ts) against valibot, the
 * reference: on every dataset's example record and on generated variations of it (optional fields
 * dropped or null, values replaced by any JSON value, keys removed or added), it accepts exactly
 * what valibot and ingest's family rule accept, and names the field valibot's first issue names.
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { DATASETS, INGESTED_DATASETS, NormalizedRecord, familiesOf, type IngestedDataset } from '#schemas/datasets.ts';
import { FAMILIES } from '#schemas/venues.ts';
import { refusedField } from '#core/archive/record-check.ts';
import { parseBatch } from '#core/archive/parse.ts';

/** What valibot (and ingest's family rule) say of a parsed JSON line: undefined when accepted, else the top-level field named. */
function valibotField(json: unknown): string | undefined {
  const parsed = v.safeParse(NormalizedRecord, json);
  if (!parsed.success) return String(parsed.issues[0].path?.[0]?.key ?? '');
  return familiesOf(parsed.output.dataset).includes(parsed.output.family) ? undefined : 'family';
}

const example = (dataset: IngestedDataset) => DATASETS[dataset].example as Record<string, unknown>;
const keysOf = (dataset: IngestedDataset) => Object.keys((DATASETS[dataset].record as unknown as { entries: Record<string, unknown> }).entries);

/** Values that are sometimes right and mostly wrong for a field: the types JSON has, near-misses of the registry's forms. */
const anyValue = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    1e21,
    2 ** 53,
    1_700_000_000_000,
    1_700_000_000_000.5,
    5_000_000_000_000,
    '',
    '1',
    '-0.5',
    '1.',
    '1e3',
    ' 1',
    'B',
    'A',
    'b',
    'perpx',
    'spot',
    'hip3',
    'altx',
    'xyz:TSLA',
    'BTC',
    'btc',
    '#10',
    'HYPE-USDC',
    '12345',
    '0x00000000000000000000000000000000000a11ce',
    '0x00000000000000000000000000000000000A11CE',
    'new',
    'update',
    'remove',
    'yes',
    'trades',
    'a1b2c3d',
    [],
    {},
    ['1', '1', 1],
    [['1', '1', 1]],
    [[7, '0x00000000000000000000000000000000000a11ce', '1', '1', null]],
    [[7, '12345', '1', '1', null, '2']],
  ),
  fc.string({ maxLength: 45 }),
  fc.integer(),
  fc.double(),
  fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), { maxLength: 4 }),
);

/** A change to a record: drop a key, null it, set it to another value, add an unknown key, or move the record to another family. */
type Change = { key: string; how: 'drop' | 'null' | 'set'; value: unknown };
const change = (dataset: IngestedDataset): fc.Arbitrary<Change> =>
  fc.oneof(
    fc.record({ key: fc.constantFrom(...keysOf(dataset)), how: fc.constantFrom('drop' as const, 'null' as const), value: fc.constant(null) }),
    fc.record({ key: fc.constantFrom(...keysOf(dataset)), how: fc.constant('set' as const), value: anyValue }),
    fc.record({ key: fc.string({ minLength: 1, maxLength: 8 }), how: fc.constant('set' as const), value: anyValue }),
    fc.record({ key: fc.constant('family'), how: fc.constant('set' as const), value: fc.constantFrom<unknown>(...FAMILIES) }),
  );

/** A dataset's example with none to three changes (a field fixed and another broken). */
const record = fc.constantFrom(...INGESTED_DATASETS).chain((dataset) =>
  fc.array(change(dataset), { maxLength: 3 }).map((changes) => {
    const json = structuredClone(example(dataset));
    for (const { key, how, value } of changes) {
      if (how === 'drop') delete json[key];
      else json[key] = how === 'null' ? null : value;
    }
    return json;
  }),
);

describe('the compiled record check', () => {
  it("accepts every dataset's example record, as valibot does", () => {
    for (const dataset of INGESTED_DATASETS) expect(refusedField(example(dataset)), dataset).toBe(valibotField(example(dataset)));
  });

  it('accepts exactly what valibot accepts on generated records, naming the same field', () => {
    fc.assert(
      fc.property(record, (json) => {
        // Through JSON, as a line arrives (undefined values and -0 as JSON has them).
        const line = JSON.parse(JSON.stringify(json)) as unknown;
        expect(refusedField(line)).toBe(valibotField(line));
      }),
      { numRuns: 20_000 },
    );
  });

  it('refuses what is not a record at all as valibot does', () => {
    for (const json of [null, 1, 'x', [], [1], {}, { dataset: 'quotes' }, { dataset: 1 }])
      expect(refusedField(json), JSON.stringify(json)).toBe(valibotField(json));
  });

  it('refuses a batch naming the line and the problem valibot names', () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 8 }), (records) => {
        const lines = records.map((r) => JSON.stringify(r));
        const expected = lines.flatMap((line, i) => {
          const field = valibotField(JSON.parse(line));
          return field === undefined ? [] : [i + 1];
        });
        const result = parseBatch('normalized', lines.join('\n'));
        expect(result.ok).toBe(expected.length === 0);
        const named = [...(!result.ok ? result.reason : '').matchAll(/line (\d+): /g)].map((m) => Number(m[1]));
        expect(named).toEqual(expected.slice(0, 5));
      }),
      { numRuns: 2_000 },
    );
  });
});
