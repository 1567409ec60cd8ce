import type { ArchiveManifest, ObjectStore } from '../../ports/archive.ts';
import type { Clock } from '../../ports/clock.ts';
import type { LocalFiles, SqlEngine } from '../../ports/sql.ts';

/** Everything the archive core needs, passed in (see functions/shared/deps.ts for the real ones). */
export interface ArchiveDeps {
  manifest: ArchiveManifest;
  objects: ObjectStore;
  files: LocalFiles;
  sql: SqlEngine;
  clock: Clock;
  /** A writable scratch directory for Parquet files on their way to S3. */
  scratchDir: string;
}
