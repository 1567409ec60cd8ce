/**
 * Every dataset declared in the registry (schemas/datasets.ts) is wired end to end: its example
 * record passes ingest validation, lands in a delta file, is compacted, and reads back through the
 * archive reader; derived datasets are rebuilt when their source compacts. A dataset declared but
 * left out of any of these steps fails here, not in front of a user.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  DATASETS,
  DERIVED_DATASETS,
  INGESTED_DATASETS,
  NormalizedRecord,
  familiesOf,
  type Dataset,
  type DerivedDataset,
  type IngestedDataset,
} from '#schemas/datasets.ts';
import { SYMBOL_FORMS } from '#schemas/venues.ts';
import { ingestBatch } from '#core/archive/ingest.ts';
import { refusedField } from '#core/archive/record-check.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { readWindow } from '#core/archive/read-pages.ts';
import { coverageStart } from '#core/archive/coverage.ts';
import { FAMILIES, type Family } from '#core/venues.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';
import { jsonl } from '../helpers/records.ts';

const exampleOf = (dataset: IngestedDataset) => DATASETS[dataset].example as unknown as NormalizedRecord;

describe('the dataset registry, declared', () => {
  it('gives every ingested dataset an example record that ingest validation accepts, in a family that has the dataset', () => {
    for (const dataset of INGESTED_DATASETS) {
      const example = exampleOf(dataset);
      const parsed = v.safeParse(NormalizedRecord, example);
      expect(parsed.success ? [] : parsed.issues.map((i) => `${dataset}: ${v.getDotPath(i)} ${i.message}`)).toEqual([]);
      expect(familiesOf(dataset), dataset).toContain(example.family);
      // Ingest's compiled check (compiled from the same schemas when its module loads) accepts it too.
      expect(refusedField(example), dataset).toBeUndefined();
    }
  });

  it('derives every derived dataset from an ingested one, in families the source has', () => {
    for (const dataset of DERIVED_DATASETS) {
      const source = DATASETS[dataset].compaction.derivedFrom;
      expect(INGESTED_DATASETS as readonly string[], dataset).toContain(source);
      for (const family of familiesOf(dataset)) expect(familiesOf(source as Dataset), `${dataset} in ${family}`).toContain(family);
    }
  });

  it('names only known families and keeps unique keys among the columns', () => {
    for (const dataset of [...INGESTED_DATASETS, ...DERIVED_DATASETS]) {
      const def = DATASETS[dataset];
      for (const family of Object.keys(def.coverage)) expect(FAMILIES as readonly string[], dataset).toContain(family);
      const columns = def.columns.map((c) => c.name);
      for (const key of def.uniqueBy) expect(columns, `${dataset}.${key}`).toContain(key);
      expect(coverageStart(dataset, familiesOf(dataset)[0] as Family)).toBeTypeOf('number');
    }
  });
});

describe('the dataset registry, wired', () => {
  const deps = scratchArchive();

  it('ingests, compacts and reads back the example of every ingested dataset, and rebuilds what derives from it', async () => {
    // Prepare: one batch holding every dataset's example.
    const examples = INGESTED_DATASETS.map(exampleOf);
    // A derived dataset kept in other families than its source's example (oracle_moves_1h: hip3's
    // open interest) gets the example in its first family too.
    const sourceOf = (dataset: DerivedDataset) => {
      const example = exampleOf(DATASETS[dataset].compaction.derivedFrom as IngestedDataset);
      const family = familiesOf(dataset).includes(example.family as Family) ? (example.family as Family) : familiesOf(dataset)[0]!;
      return { ...example, family, symbol: family === example.family ? example.symbol : SYMBOL_FORMS[family].example } as NormalizedRecord;
    };
    const extras = DERIVED_DATASETS.map(sourceOf).filter((r) => !examples.some((e) => e.dataset === r.dataset && e.family === r.family));
    // Act
    const ingested = await ingestBatch(deps(), 'normalized', jsonl([...examples, ...extras]));
    const report = await compactArchive(deps());
    // Assess
    expect(ingested).toMatchObject({ status: 'ingested', records: examples.length + extras.length });
    expect(report.deltasRetired).toBe(examples.length + extras.length);
    for (const example of examples) {
      const family = example.family as Family;
      expect(await deps().manifest.deltaFiles(example.dataset, family, '0000-01-01', '9999-12-31'), `${example.dataset} deltas left`).toEqual([]);
      const { rows } = await readWindow(deps(), { dataset: example.dataset, family, symbol: example.symbol, from: example.ts, to: example.ts, limit: 10 });
      expect(rows, example.dataset).toHaveLength(1);
      expect(rows[0], example.dataset).toMatchObject({ symbol: example.symbol, ts: example.ts });
    }
    for (const dataset of DERIVED_DATASETS) {
      const source = sourceOf(dataset);
      const day = new Date(source.ts).toISOString().slice(0, 10);
      expect(await deps().manifest.compactedFilesOfDay(dataset, source.family as Family, day), dataset).toHaveLength(1);
    }
  });
});
