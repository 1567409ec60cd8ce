/**
 * Bulk positions as an Arrow IPC stream (SPEC rule 9): one record batch of the page, every member a
 * nullable UTF-8 column named and ordered as in the JSON rows, so a client reading the stream with
 * apache-arrow or DuckDB gets the JSON route's rows.
 */
import { Table, Utf8, tableToIPC, vectorFromArray } from 'apache-arrow';
import type { PositionFamily } from './engine.ts';
import { marketPositionColumns } from './shape.ts';

/** A page's columns (as `bulkPositions` reads them) as one Arrow record batch in an IPC stream. */
export function positionsArrow(family: PositionFamily, columns: Readonly<Record<string, readonly (string | null)[]>>): Uint8Array {
  const vectors = Object.fromEntries(marketPositionColumns(family).map(([name]) => [name, vectorFromArray(columns[name] ?? [], new Utf8())]));
  return tableToIPC(new Table(vectors), 'stream');
}
