/**
 * Rounding as DuckDB's `round(x, digits)` does (half away from zero, on x times 10^digits), for
 * values the detectors send that SQL also computes (the hourly rollups and previews in
 * archive/sql.ts): `toFixed` rounds the binary value instead, and 0.1 x 13.35 came out 1.33 in
 * JavaScript against 1.34 in SQL.
 */
export function roundAsSql(n: number, digits: number): number {
  const scale = 10 ** digits;
  return (Math.sign(n) * Math.round(Math.abs(n) * scale)) / scale;
}
