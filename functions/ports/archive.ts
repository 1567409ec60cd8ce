import type { Dataset } from '#schemas/datasets.ts';
import type { Family } from '../core/venues.ts';
import type { FileCadence } from '../core/archive/cadence.ts';
import type { Clock } from './clock.ts';
import type { LocalFiles, Row, SqlEngine } from './sql.ts';

/** One Parquet object in the archive, as the manifest records it. */
export interface ArchiveFile {
  fileId: string;
  key: string;
  dataset: Dataset;
  family: Family;
  day: string;
  kind: 'delta' | 'compacted';
  /**
   * The compaction tier: `minute` is a delta compaction merged from ingest deltas (all symbols, one
   * UTC hour); `hour` a compacted file of one symbol-hour. Absent on ingest deltas and on
   * compacted files of a whole symbol-day.
   */
  tier?: 'minute' | 'hour';
  /** The UTC hour (0-23) a `minute` or `hour` file holds. */
  hour?: number;
  /** The one symbol of a per-symbol compacted file. */
  symbol?: string;
  /** Every symbol a delta or an all-symbol file holds. */
  symbols: string[];
  rows: number;
  bytes: number;
  etag: string;
  minTs: number;
  maxTs: number;
  /** Files whose rows this compacted file now holds; readers skip them from the moment it exists. */
  replaces: string[];
  createdAt: number;
  /**
   * Per symbol: rows, bounds, interval histogram and long silences, written with the file (data
   * quality reads them, never the Parquet). Queries do not return them: `cadenceOf` does.
   */
  cadence?: FileCadence;
}

/** What names a file's manifest entry and its object: enough to ask whether the manifest lists it. */
export type FileRef = Pick<ArchiveFile, 'fileId' | 'key' | 'kind' | 'dataset' | 'family' | 'day' | 'symbol'>;

/**
 * Why an object's deletion was scheduled: `upload`, before its object was written (if the writer
 * dies before listing the file, the object is an orphan); `retired`, after its file was replaced.
 */
export type DeletionStage = 'upload' | 'retired';

/** A scheduled deletion whose time has come; `file` is absent on entries from before files were named. */
export interface DueDeletion {
  id: string;
  key: string;
  stage: DeletionStage;
  file?: FileRef;
}

export type BatchOutcome = { status: 'done'; records: number } | { status: 'rejected'; reason: string };

export interface ArchiveManifest {
  putFile(file: ArchiveFile): Promise<void>;
  deleteFile(file: ArchiveFile): Promise<void>;
  /** The cadence statistics of these files, by file id (files written before statistics existed have none). */
  cadenceOf(files: readonly ArchiveFile[]): Promise<Map<string, FileCadence>>;
  /** Compacted files of one symbol (or of the all-symbol partition) for days in [fromDay, toDay]. */
  compactedFiles(dataset: Dataset, family: Family, symbol: string | undefined, fromDay: string, toDay: string): Promise<ArchiveFile[]>;
  /** Every compacted file of one dataset, family and day (all symbols). */
  compactedFilesOfDay(dataset: Dataset, family: Family, day: string): Promise<ArchiveFile[]>;
  /** The days in [fromDay, toDay] that have compacted files of a dataset and family (one query, not one a day). */
  compactedDays(dataset: Dataset, family: Family, fromDay: string, toDay: string): Promise<string[]>;
  /** Delta files of a dataset and family for days in [fromDay, toDay]. */
  deltaFiles(dataset: Dataset, family: Family, fromDay: string, toDay: string): Promise<ArchiveFile[]>;
  batchOutcome(batchId: string): Promise<BatchOutcome | undefined>;
  recordBatch(batchId: string, outcome: BatchOutcome): Promise<void>;
  /** Takes a lease named `name` until `until` (epoch ms); false if someone else holds it. */
  acquireLease(name: string, owner: string, until: number, now: number): Promise<boolean>;
  releaseLease(name: string, owner: string): Promise<void>;
  /**
   * Each file's object is to be deleted after `after` unless the manifest lists the file then
   * (collectGarbage in core/archive/object-life.ts decides); answers the entries' ids.
   */
  scheduleDeletion(files: readonly FileRef[], after: number, stage: DeletionStage): Promise<string[]>;
  dueDeletions(now: number, limit: number): Promise<DueDeletion[]>;
  /** True if the manifest lists the file (read consistently). */
  isListed(file: FileRef): Promise<boolean>;
  forgetDeletion(id: string): Promise<void>;
}

export interface ObjectStore {
  /** Uploads a local file; returns its ETag. */
  putFile(key: string, path: string): Promise<{ etag: string; bytes: number }>;
  putBytes(key: string, body: Uint8Array | string): Promise<{ etag: string }>;
  getBytes(key: string): Promise<Uint8Array>;
  /** Downloads to `path` if the stored ETag is still `etag`; throws otherwise. */
  download(key: string, etag: string, path: string): Promise<void>;
  delete(keys: string[]): Promise<void>;
}

/**
 * The file list each window's manifest lookup last returned, kept per container: a window read
 * starts its page on it while the manifest is asked, and keeps that page only when the answer shows
 * the same files (core/archive/read.ts). A guess, never an answer: a stale or missing entry costs
 * time, not correctness.
 */
export interface FileListMemo {
  /** The list last set for `key`, and whether the lookup before gave the very same files (a list that is not changing). */
  get(key: string): { files: readonly ArchiveFile[]; confirmed: boolean } | undefined;
  set(key: string, files: readonly ArchiveFile[]): void;
}

/**
 * A container's memory of small views over the archive (the instrument registry), each kept with
 * the files it was computed from: an answer only while a lookup lists the very same files.
 */
export interface ViewMemo {
  get(key: string, files: readonly ArchiveFile[]): readonly Row[] | undefined;
  set(key: string, files: readonly ArchiveFile[], rows: readonly Row[]): void;
}

/** Everything the archive core needs, passed in (functions/shared/archive-deps.ts builds the real ones). */
export interface ArchiveDeps {
  manifest: ArchiveManifest;
  objects: ObjectStore;
  files: LocalFiles;
  sql: SqlEngine;
  clock: Clock;
  /** A writable scratch directory for Parquet files on their way to S3. */
  scratchDir: string;
  /** Without one, window reads wait for the manifest before reading (pure tests, one-off jobs). */
  fileLists?: FileListMemo;
  /** Without one, every view is computed afresh. */
  views?: ViewMemo;
}
