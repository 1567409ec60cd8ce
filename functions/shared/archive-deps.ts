/**
 * The archive's ports: manifest, S3 objects, the bounded local file cache and DuckDB. Kept apart
 * from deps.ts so only the functions that read or write Parquet bundle the DuckDB native module.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BUCKETS } from '../resources.ts';
import type { ArchiveDeps } from '../ports/archive.ts';
import { s3ObjectStore } from '../adapters/s3-objects.ts';
import { fileCache } from '../adapters/file-cache.ts';
import { fileListMemo, viewMemo } from '../core/archive/files.ts';
import { duckDbEngine } from '../adapters/duckdb-engine.ts';
import { systemClock } from '../ports/clock.ts';
import { config, requireSetting } from './config.ts';
import { archiveManifest, once, s3Client } from './deps.ts';

export const archiveDeps = once((): ArchiveDeps => {
  const cfg = config();
  const objects = s3ObjectStore(s3Client(), requireSetting(cfg, BUCKETS.archive.envVar));
  mkdirSync(cfg.SCRATCH_DIR, { recursive: true });
  return {
    manifest: archiveManifest(),
    objects,
    files: fileCache(objects, cfg.ARCHIVE_CACHE_DIR, cfg.ARCHIVE_CACHE_MB * 1024 * 1024),
    sql: duckDbEngine({
      tempDir: join(cfg.SCRATCH_DIR, 'duckdb'),
      threads: cfg.DUCKDB_THREADS,
      memoryLimitMb: cfg.DUCKDB_MEMORY_MB ?? (cfg.AWS_LAMBDA_FUNCTION_MEMORY_SIZE && Math.floor(cfg.AWS_LAMBDA_FUNCTION_MEMORY_SIZE * 0.6)),
    }),
    clock: systemClock,
    scratchDir: cfg.SCRATCH_DIR,
    fileLists: fileListMemo(),
    views: viewMemo(),
  };
});
