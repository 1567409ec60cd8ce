/**
 * The archive as a data lake: a Glue table per dataset of the registry (schemas/datasets.ts), its
 * columns the dataset's Parquet columns and its partitions projected from the archive's own key
 * layout (functions/core/archive/layout.ts), so Athena, Spark and DuckDB read the files where they lie.
 *
 * A table reads the compacted tier only. Ingest deltas (one per batch, every symbol) and the
 * compaction tiers overlap while compaction folds them (the manifest says which file holds a row at
 * any instant, S3 does not), so a table over every object would count rows twice:
 *   - per-symbol datasets: `family=…/symbol=…/day=…/`, where only compacted files live (hour files
 *     of the day under way, one file per symbol-day once it has closed); `symbol` is injected, so
 *     a query names the symbols it reads, as they appear in keys (percent-encoded: `xyz%3ATSLA`);
 *   - all-symbol datasets: `family=…/day=…/`, which holds the open day's deltas too, so their days
 *     end yesterday (UTC).
 * For ten minutes after compaction rewrites a file, the file it replaced is still there (readers
 * that resolved it may fetch it): exact counts of the last hour or of a day just folded dedupe on
 * the dataset's key (`archive.unique_by`).
 */
import type { CfnTable } from 'aws-cdk-lib/aws-glue';
import { DATASETS, DATASET_NAMES, familiesOf, type Column, type Dataset, type DatasetDef } from '../schemas/datasets.ts';
import { compactedDir, dayOf } from '../functions/core/archive/layout.ts';

/** DuckDB's Parquet column types as Hive (Glue) types. */
export const GLUE_TYPES: Readonly<Record<Column['type'], string>> = {
  VARCHAR: 'string',
  BIGINT: 'bigint',
  INTEGER: 'int',
  DOUBLE: 'double',
  BOOLEAN: 'boolean',
};

/** Partition keys come from the key path; `family` and `symbol` are also columns of the files (the same values, `symbol` as in keys). */
export function partitionKeysOf(dataset: Dataset): CfnTable.ColumnProperty[] {
  const def: DatasetDef = DATASETS[dataset];
  return [
    { name: 'family', type: 'string', comment: `venue family: ${familiesOf(dataset).join(', ')}` },
    ...(def.perSymbol ? [{ name: 'symbol', type: 'string', comment: 'symbol as in the object keys (percent-encoded); name it in the query (injected)' }] : []),
    { name: 'day', type: 'string', comment: 'UTC day of ts, yyyy-MM-dd' },
  ];
}

/** The Glue table of a dataset over the archive bucket named `bucketName`. */
export function lakeTableInput(dataset: Dataset, bucketName: string): CfnTable.TableInputProperty {
  const def: DatasetDef = DATASETS[dataset];
  const keys = partitionKeysOf(dataset);
  const keyNames = new Set(keys.map((k) => k.name));
  const root = `s3://${bucketName}/archive/v1/${dataset}/`;
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Glue's projection template names its partition keys as `${key}`.
  const template = `s3://${bucketName}/${compactedDir(dataset, '${family}', def.perSymbol ? '${symbol}' : undefined, '${day}')}`;
  const firstDay = dayOf(Math.min(...Object.values(def.coverage).filter((start): start is number => start !== undefined)));
  return {
    name: dataset,
    description: `The archive's ${dataset} (compacted files; see the README's data lake section)`,
    tableType: 'EXTERNAL_TABLE',
    partitionKeys: keys,
    parameters: {
      EXTERNAL: 'TRUE',
      classification: 'parquet',
      'parquet.compression': 'ZSTD',
      'archive.unique_by': ['family', ...def.uniqueBy].join(','),
      'projection.enabled': 'true',
      'projection.family.type': 'enum',
      'projection.family.values': familiesOf(dataset).join(','),
      ...(def.perSymbol && { 'projection.symbol.type': 'injected' }),
      'projection.day.type': 'date',
      'projection.day.format': 'yyyy-MM-dd',
      'projection.day.range': `${firstDay},${def.perSymbol ? 'NOW' : 'NOW-1DAYS'}`,
      'projection.day.interval': '1',
      'projection.day.interval.unit': 'DAYS',
      'storage.location.template': template,
    },
    storageDescriptor: {
      location: root,
      inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
      outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
      serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
      // A partition key cannot also be a column: family and symbol are read from the key path.
      columns: def.columns.filter((c) => !keyNames.has(c.name)).map((c) => ({ name: c.name, type: GLUE_TYPES[c.type] })),
    },
  };
}

/** Every dataset's table: the registry is the one list. */
export const lakeTableInputs = (bucketName: string): CfnTable.TableInputProperty[] => DATASET_NAMES.map((dataset) => lakeTableInput(dataset, bucketName));
