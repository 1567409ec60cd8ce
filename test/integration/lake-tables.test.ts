/**
 * The data lake's Glue tables (lib/lake-tables.ts) against the files the archive writes: every
 * dataset's example goes through ingest and compaction (which derives the derived datasets), and
 * each compacted file's Parquet schema, read by DuckDB, is the synthesized table's columns and
 * partition keys with the same types; the file's key is where the table's partition projection looks.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import {
  DATASETS,
  DATASET_NAMES,
  DERIVED_DATASETS,
  INGESTED_DATASETS,
  familiesOf,
  type Dataset,
  type DerivedDataset,
  type IngestedDataset,
  type NormalizedRecord,
} from '#schemas/datasets.ts';
import { SYMBOL_FORMS } from '#schemas/venues.ts';
import { ingestBatch } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { dayOf } from '#core/archive/layout.ts';
import type { ArchiveFile } from '#ports/archive.ts';
import type { Family } from '#core/venues.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';
import { StatefulStack } from '#lib/stateful-stack.ts';
import { LakeStack } from '#lib/lake-stack.ts';
import { jsonl } from '../helpers/records.ts';

interface GlueColumn {
  Name: string;
  Type: string;
}
interface GlueTable {
  Name: string;
  PartitionKeys: GlueColumn[];
  Parameters: Record<string, unknown>;
  StorageDescriptor: { Columns: GlueColumn[] };
}

/** The synthesized tables, by name, with the bucket's import read as `BUCKET`. */
function synthesizedTables(): Map<string, GlueTable> {
  // cdk.json's feature flags, as the CLI passes them (the stateful stack's buckets depend on them).
  const app = new App({ context: JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context });
  const stateful = new StatefulStack(app, 'Stateful');
  const lake = new LakeStack(app, 'Lake', { archive: stateful.buckets.archive });
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== 'object') return value;
    const node = value as Record<string, unknown>;
    if ('Fn::ImportValue' in node) return 'BUCKET';
    if ('Fn::Join' in node) {
      const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
      return parts.map(resolve).join(separator);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v)]));
  };
  const resources = Template.fromStack(lake).findResources('AWS::Glue::Table');
  return new Map(
    Object.values(resources).map((r) => {
      const table = resolve(r.Properties.TableInput) as GlueTable;
      return [table.Name, table];
    }),
  );
}

const exampleOf = (dataset: IngestedDataset) => DATASETS[dataset].example as unknown as NormalizedRecord;
/** The source record a derived dataset is rebuilt from, in a family the derived dataset has (as test/integration/dataset-registry.test.ts). */
function sourceOf(dataset: DerivedDataset): NormalizedRecord {
  const example = exampleOf(DATASETS[dataset].compaction.derivedFrom as IngestedDataset);
  const family = familiesOf(dataset).includes(example.family as Family) ? (example.family as Family) : familiesOf(dataset)[0]!;
  return { ...example, family, symbol: family === example.family ? example.symbol : SYMBOL_FORMS[family].example } as NormalizedRecord;
}

/** The Hive type an engine reading the catalogue expects for each Parquet type DuckDB describes. */
const HIVE_TYPE_OF: Readonly<Record<string, string>> = { VARCHAR: 'string', BIGINT: 'bigint', INTEGER: 'int', DOUBLE: 'double', BOOLEAN: 'boolean' };

/** A template's `${key}`s as named groups of a pattern over object keys. */
function keyPattern(template: string): RegExp {
  const path = template.replace(/^s3:\/\/BUCKET\//, '');
  const escaped = path.replace(/[.*+?^()|[\]\\]/g, '\\$&').replace(/\$\{(\w+)\}/g, '(?<$1>[^/]+)');
  return new RegExp(`^${escaped}compacted-[^/]+\\.parquet$`);
}

describe("the data lake's tables", () => {
  const deps = scratchArchive();

  it('name one table per dataset, whose columns and types are those of the files ingest and compaction write, where its projection looks', async () => {
    // Prepare: every dataset's example, ingested and compacted (derived datasets from their sources)
    const examples = INGESTED_DATASETS.map(exampleOf);
    const extras = DERIVED_DATASETS.map(sourceOf).filter((r) => !examples.some((e) => e.dataset === r.dataset && e.family === r.family));
    expect(await ingestBatch(deps(), 'normalized', jsonl([...examples, ...extras]))).toMatchObject({ status: 'ingested' });
    await compactArchive(deps());
    const written = new Map<Dataset, ArchiveFile[]>();
    for (const record of [...examples, ...extras]) {
      for (const dataset of [record.dataset, ...DERIVED_DATASETS.filter((d) => DATASETS[d].compaction.derivedFrom === record.dataset)]) {
        if (!familiesOf(dataset).includes(record.family as Family)) continue;
        const files = await deps().manifest.compactedFilesOfDay(dataset, record.family as Family, dayOf(record.ts));
        written.set(dataset, [...(written.get(dataset) ?? []), ...files.filter((f) => !written.get(dataset)?.some((w) => w.fileId === f.fileId))]);
      }
    }

    // Act
    const tables = synthesizedTables();

    // Assess
    expect([...tables.keys()].sort()).toEqual([...DATASET_NAMES].sort());
    for (const dataset of DATASET_NAMES) {
      const table = tables.get(dataset)!;
      const files = written.get(dataset) ?? [];
      expect(files.length, `${dataset}: compacted files to compare with`).toBeGreaterThan(0);
      const keys = new Map(table.PartitionKeys.map((k) => [k.Name, k.Type]));
      const columns = new Map(table.StorageDescriptor.Columns.map((c) => [c.Name, c.Type]));
      const pattern = keyPattern(String(table.Parameters['storage.location.template']));
      for (const file of files) {
        const [path] = await deps().files.paths([file]);
        const described = await deps().sql.query({ sql: 'DESCRIBE SELECT * FROM read_parquet($path)', params: { path: path! } });
        const fileColumns = described.map(
          (row) => [String(row.column_name), HIVE_TYPE_OF[String(row.column_type)] ?? `(DuckDB ${String(row.column_type)})`] as const,
        );
        // Each file column is a table column of the same type, or a partition key (family, symbol: strings from the key path).
        expect(
          fileColumns.map(([name, _type]) => [name, columns.get(name) ?? keys.get(name)]),
          `${dataset} ${file.key}`,
        ).toEqual(fileColumns.map(([name, type]) => [name, type]));
        // The table has no column the files lack; only `day` comes from the key path alone.
        expect(
          [...columns.keys(), ...keys.keys()].filter((name) => !fileColumns.some(([n]) => n === name)),
          dataset,
        ).toEqual(['day']);
        const match = pattern.exec(file.key);
        expect(match?.groups, `${dataset}: ${file.key} against ${pattern}`).toMatchObject({
          family: file.family,
          day: file.day,
          ...(keys.has('symbol') && { symbol: encodeURIComponent(file.symbol!) }),
        });
        expect(String(table.Parameters['projection.family.values']).split(','), dataset).toContain(file.family);
      }
    }
  });
});
