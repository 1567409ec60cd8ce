/**
 * The block a derived answer names: the newest order-event block of the market at or before each
 * instant, within the hour before it (datasets sampled off the chain, positions and open interest,
 * carry no block of their own). Instants without one are absent.
 */
import type { ArchiveDeps } from '#ports/archive.ts';
import type { Family } from '../venues.ts';
import { windowSource } from '../archive/read.ts';

const WITHIN = 3_600_000;

export async function blocksAt(deps: ArchiveDeps, family: Family, symbol: string, instants: readonly number[]): Promise<Map<number, number>> {
  const blocks = new Map<number, number>();
  if (instants.length === 0) return blocks;
  const source = await windowSource(deps, { dataset: 'order_events', family, symbol, from: Math.min(...instants) - WITHIN, to: Math.max(...instants) });
  if (!source) return blocks;
  const rows = await deps.sql.query<{ t: number; block: number }>({
    sql: `SELECT i.t AS t, max(e.block_number) AS block FROM unnest(CAST($v_instants AS BIGINT[])) AS i(t)
          JOIN (${source.sql}) e ON e.ts <= i.t AND e.ts > i.t - ${WITHIN} GROUP BY i.t`,
    params: { ...source.params, v_instants: instants.map(String) },
  });
  for (const r of rows) blocks.set(Number(r.t), Number(r.block));
  return blocks;
}
