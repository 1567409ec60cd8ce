/**
 * DuckDB behind the SqlEngine port. One instance per container (created on first use). Single
 * queries borrow a connection from a small idle pool and give it back (opening one per query was a
 * fixed cost of every read); sessions and statements, which may create temporary tables, get a
 * connection of their own that is closed after them, so no temporary table outlives its work or
 * meets another request's. DuckDB's httpfs cannot be installed offline, so objects are read from
 * local files (see file-cache.ts).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { BIGINT, BOOLEAN, DOUBLE, DuckDBInstance, LIST, VARCHAR, listValue, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { Row, SqlEngine, SqlQuery, SqlSession, SqlValue } from '../ports/sql.ts';

function bind(params: Record<string, SqlValue>): { values: Record<string, DuckDBValue>; types: Record<string, DuckDBType> } {
  const values: Record<string, DuckDBValue> = {};
  const types: Record<string, DuckDBType> = {};
  for (const [name, value] of Object.entries(params)) {
    if (Array.isArray(value)) {
      values[name] = listValue(value as string[]);
      types[name] = LIST(VARCHAR);
    } else if (typeof value === 'bigint') {
      values[name] = value;
      types[name] = BIGINT;
    } else if (typeof value === 'number') {
      values[name] = value;
      types[name] = Number.isInteger(value) ? BIGINT : DOUBLE;
      if (Number.isInteger(value)) values[name] = BigInt(value);
    } else if (typeof value === 'boolean') {
      values[name] = value;
      types[name] = BOOLEAN;
    } else {
      values[name] = value as string | null;
      types[name] = VARCHAR;
    }
  }
  return { values, types };
}

/**
 * BIGINT values arrive as bigint; the archive's (timestamps, ids) are safe integers. Converted in
 * place. The row is then what the caller's query selects (SqlSession.query's `R`).
 */
function plain<R extends object>(row: Record<string, unknown>): R;
function plain(row: Record<string, unknown>): Row {
  for (const key in row) {
    const value = row[key];
    if (typeof value === 'bigint') row[key] = Number(value);
  }
  return row;
}

/** DuckDB's own default bound on one JSON object, and lines long enough to need more. */
const DEFAULT_MAXIMUM_OBJECT_BYTES = 16_777_216;
const LONG_LINE_CHARS = 256 * 1024;
/** Idle connections kept for single queries: a container serves one request at a time, a local process a few. */
const IDLE_CONNECTIONS = 4;

export function duckDbEngine(options: { tempDir: string; threads: number; memoryLimitMb?: number }): SqlEngine {
  let instance: Promise<DuckDBInstance> | undefined;
  const open = () => {
    mkdirSync(options.tempDir, { recursive: true });
    instance ??= DuckDBInstance.create(':memory:', {
      threads: String(options.threads),
      // Lambda's only writable directory is /tmp; DuckDB's defaults point elsewhere.
      temp_directory: options.tempDir,
      home_directory: options.tempDir,
      ...(options.memoryLimitMb && { memory_limit: `${options.memoryLimitMb}MB` }),
      // Objects are already cached on local disk (file-cache.ts); DuckDB's own in-memory copy of the
      // blocks it read grew with every distinct file a long-lived process touched.
      enable_external_file_cache: 'false',
      // Nothing may be downloaded at run time.
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    });
    return instance;
  };
  async function withConnection<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const connection = await (await open()).connect();
    try {
      return await work(connection);
    } finally {
      connection.closeSync();
    }
  }
  const idle: DuckDBConnection[] = [];
  /** A connection from the idle pool for one read-only query; back to the pool after it, whatever happened. */
  async function withPooled<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const connection = idle.pop() ?? (await (await open()).connect());
    try {
      return await work(connection);
    } finally {
      if (idle.length < IDLE_CONNECTIONS) idle.push(connection);
      else connection.closeSync();
    }
  }

  const sessionOf = (connection: DuckDBConnection): SqlSession => ({
    async query<R extends object>({ sql, params }: SqlQuery) {
      const { values, types } = bind(params);
      const reader = await connection.runAndReadAll(sql, values, types);
      return reader.getRowObjectsJS().map((row) => plain<R>(row));
    },
    async queryColumns({ sql, params }: SqlQuery) {
      const { values, types } = bind(params);
      const reader = await connection.runAndReadAll(sql, values, types);
      return reader.getColumnsObjectJS() as Record<string, unknown[]>;
    },
    async execute({ sql, params }: SqlQuery) {
      const { values, types } = bind(params);
      await connection.run(sql, values, types);
    },
  });

  return {
    query: <R extends object>(query: SqlQuery) => withPooled((connection) => sessionOf(connection).query<R>(query)),
    queryColumns: (query) => withPooled((connection) => sessionOf(connection).queryColumns(query)),
    execute: (query) => withConnection((connection) => sessionOf(connection).execute(query)),
    session: (work) => withConnection((connection) => work(sessionOf(connection))),

    async writeParquet(columns, jsonRows, orderBy, path, rowGroupRows) {
      // DuckDB parses the rows natively (off the JavaScript thread) from a scratch NDJSON file.
      const source = `${path}.ndjson`;
      const body = jsonRows.join('\n');
      writeFileSync(source, body);
      // DuckDB (1.5.5) splits a file larger than its largest expected object (16 MB by default)
      // between threads, and with lines of a megabyte or more (checkpoints of deep books) a split can
      // land mid-line and read as malformed JSON. Such files are read whole: the bound is raised past
      // the file (it needs some headroom beyond its size).
      const longest = jsonRows.reduce((max, row) => Math.max(max, row.length), 0);
      // The file's size in bytes only matters (and is only counted) when a line is that long.
      const maximumObjectSize = longest > LONG_LINE_CHARS ? Math.max(DEFAULT_MAXIMUM_OBJECT_BYTES, 2 * Buffer.byteLength(body)) : DEFAULT_MAXIMUM_OBJECT_BYTES;
      try {
        // Column names and types come from the dataset definitions in schemas/, never from a request.
        const types = columns.map((c) => `"${c.name}": '${c.type}'`).join(', ');
        await withConnection((connection) =>
          connection.run(
            `COPY (SELECT ${columns.map((c) => `"${c.name}"`).join(', ')}
                 FROM read_json($source, format = 'newline_delimited', maximum_object_size = ${maximumObjectSize}, columns = {${types}})
                 ORDER BY ${orderBy.map((c) => `"${c}"`).join(', ')})
           TO $path (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroupRows})`,
            { source, path },
            { source: VARCHAR, path: VARCHAR },
          ),
        );
      } finally {
        rmSync(source, { force: true });
      }
    },
  };
}
