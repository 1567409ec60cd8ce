/** A bound value: strings, numbers (DOUBLE), bigints (BIGINT), booleans, null, or a list of strings (e.g. file paths). */
export type SqlValue = string | number | bigint | boolean | null | readonly string[];

export interface SqlQuery {
  sql: string;
  params: Record<string, SqlValue>;
}

export type Row = Record<string, unknown>;

export interface SqlSession {
  /**
   * Runs a query with named parameters (`$name`); BIGINT results come back as numbers. `R` is the
   * caller's word for its rows (what its select list reads from files written in the dataset
   * registry's columns), not checked here: rows cross this port unparsed, since a detection scan
   * or a positions snapshot reads thousands a query and a parse of each would cost more than the
   * read. Callers that cannot vouch for the columns read `Row`s and convert each value.
   */
  query<R extends object = Row>(query: SqlQuery): Promise<R[]>;
  /** Runs a query and returns its columns, each an array of values (no object per row): for large pages. */
  queryColumns(query: SqlQuery): Promise<Record<string, unknown[]>>;
  /** Runs a statement that returns nothing useful (COPY …). */
  execute(query: SqlQuery): Promise<void>;
}

export interface SqlEngine extends SqlSession {
  /** Runs `work` on one connection, so temporary tables live across its statements. */
  session<T>(work: (session: SqlSession) => Promise<T>): Promise<T>;
  /**
   * Writes JSON rows (one JSON object per string, already validated) to a ZSTD Parquet file with
   * the given columns, sorted by `orderBy`, with row groups sized for time-range reads. Keys that
   * are not columns are ignored; nested values land in VARCHAR columns as JSON text.
   */
  writeParquet(
    columns: readonly { name: string; type: string }[],
    jsonRows: readonly string[],
    orderBy: readonly string[],
    path: string,
    rowGroupRows: number,
  ): Promise<void>;
}

/** Resolves archive objects to local files DuckDB can read (downloading into a bounded cache). */
export interface LocalFiles {
  paths(files: readonly { key: string; etag: string; bytes: number }[]): Promise<string[]>;
}
