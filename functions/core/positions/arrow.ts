/**
 * Bulk positions as an Arrow IPC stream (SPEC rule 9): one record batch of the page, every member a
 * nullable UTF-8 column named and ordered as in the JSON rows, so a client reading the stream with
 * apache-arrow or DuckDB gets the JSON route's rows.
 */
import { Table, Utf8, makeData, makeVector, tableToIPC, type Vector } from 'apache-arrow';
import type { PositionFamily } from './engine.ts';
import { marketPositionColumns } from './shape.ts';

/**
 * A UTF-8 column from its strings, its buffers laid out directly (offsets, validity bits, one byte
 * buffer): apache-arrow's generic builder costs about a microsecond a value, which at 12 columns
 * was most of a 50,000-row page.
 */
function utf8Vector(values: readonly (string | null)[]): Vector<Utf8> {
  const length = values.length;
  const valueOffsets = new Int32Array(length + 1);
  const nullBitmap = new Uint8Array(Math.ceil(length / 8));
  const parts: string[] = [];
  let nullCount = 0;
  let bytes = 0;
  for (let i = 0; i < length; i++) {
    const value = values[i];
    if (value == null) nullCount += 1;
    else {
      nullBitmap[i >> 3]! |= 1 << (i & 7);
      parts.push(value);
      bytes += Buffer.byteLength(value);
    }
    valueOffsets[i + 1] = bytes;
  }
  const data = new Uint8Array(Buffer.from(parts.join(''), 'utf8'));
  return makeVector(makeData({ type: new Utf8(), length, nullCount, nullBitmap, valueOffsets, data }));
}

/** A page's columns (as `bulkPositions` reads them) as one Arrow record batch in an IPC stream. */
export function positionsArrow(family: PositionFamily, columns: Readonly<Record<string, readonly (string | null)[]>>): Uint8Array {
  const vectors = Object.fromEntries(marketPositionColumns(family).map(([name]) => [name, utf8Vector(columns[name] ?? [])]));
  return tableToIPC(new Table(vectors), 'stream');
}
