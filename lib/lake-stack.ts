/**
 * The data lake's catalogue (lib/lake-tables.ts): a Glue database with a table per dataset over the
 * archive bucket. A stack of its own beside the stateful one: tables are metadata generated from the
 * dataset registry, redeployed whenever a dataset changes, and dropping them deletes no data.
 * Nothing here is granted to the service's functions: the catalogue is for analysts' engines
 * (Athena, Spark), whose own roles need Glue read and the bucket's `archive/` prefix.
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { lakeTableInputs } from './lake-tables.ts';

/** The database's name: Athena queries name tables `market_archive.<dataset>`. */
export const LAKE_DATABASE = 'market_archive';

export interface LakeStackProps extends StackProps {
  readonly archive: IBucket;
  /** Glue database names are per account and region: a second deployment there needs another. */
  readonly databaseName?: string;
}

export class LakeStack extends Stack {
  readonly databaseName: string;
  readonly tables: readonly CfnTable[];

  constructor(scope: Construct, id: string, props: LakeStackProps) {
    super(scope, id, props);
    this.databaseName = props.databaseName ?? LAKE_DATABASE;
    const database = new CfnDatabase(this, 'database', {
      catalogId: this.account,
      databaseInput: { name: this.databaseName, description: "The market archive's datasets as tables over its Parquet files (compacted tier)" },
    });
    this.tables = lakeTableInputs(props.archive.bucketName).map((tableInput) => {
      const table = new CfnTable(this, `table-${tableInput.name}`, { catalogId: this.account, databaseName: this.databaseName, tableInput });
      table.node.addDependency(database);
      return table;
    });
    new CfnOutput(this, 'LakeDatabaseName', {
      value: this.databaseName,
      description: "Glue database of the archive's tables (README: The archive as a data lake)",
    });
  }
}
