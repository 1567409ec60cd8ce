/**
 * Spot TWAP statuses (the `twaps` dataset) of one pair or one wallet, oldest first, each with what
 * the TWAP's fills add (trades of the family carrying its twap id): the notional executed up to the
 * status and the first fill's time. A TWAP runs at most 24 hours on the venue, so its fills are
 * read from the 24 hours before the page's first status.
 */
import type { ArchiveDeps } from '#ports/archive.ts';
import { windowSource } from '../archive/read.ts';
import { DAY, startPage, windowPage, type WindowParams } from './queries.ts';
import { isoSql } from './shape.ts';
import type { SpotTwap } from '#schemas/flow-analytics.ts';

export interface SpotTwapRequest extends WindowParams {
  routeId: string;
  /** One pair, or every pair of one wallet. */
  symbol?: string;
  user?: string;
}

/** A status row as the page reads it, before its fills are added. */
type StatusRow = Omit<SpotTwap, 'executed_notional' | 'started_at'> & { ts: number };

const STATUS_PROJECTION = `{'coin': symbol, 'timestamp': ${isoSql('ts')}, 'ts': ts, 'twap_id': twap_id, 'user_address': user_address, 'side': side,
  'status': status, 'size': TRY_CAST(size AS DOUBLE), 'executed_size': TRY_CAST(executed_size AS DOUBLE)}`;

/** Per status (twap id, time): the notional of the TWAP's fills up to it, and its first fill's time. */
async function fillsOf(deps: ArchiveDeps, rows: readonly StatusRow[]): Promise<Map<string, { notional: number; first: number }>> {
  const out = new Map<string, { notional: number; first: number }>();
  if (rows.length === 0) return out;
  const times = rows.map((r) => r.ts);
  const source = await windowSource(deps, {
    dataset: 'trades',
    family: 'spot',
    symbols: [...new Set(rows.map((r) => r.coin))],
    from: Math.min(...times) - DAY,
    to: Math.max(...times),
  });
  if (!source) return out;
  const found = await deps.sql.query<{ twap_id: number; at: number; notional: number; first: number }>({
    sql: `SELECT s.twap_id, s.at, sum(TRY_CAST(t.price AS DOUBLE) * TRY_CAST(t.size AS DOUBLE)) AS notional, min(t.ts) AS first
          FROM (SELECT unnest(CAST($v_ids AS BIGINT[])) AS twap_id, unnest(CAST($v_times AS BIGINT[])) AS at) s
          JOIN (${source.sql}) t ON t.twap_id = s.twap_id AND t.ts <= s.at GROUP BY s.twap_id, s.at`,
    params: { ...source.params, v_ids: rows.map((r) => String(r.twap_id)), v_times: rows.map((r) => String(r.ts)) },
  });
  for (const f of found) out.set(`${f.twap_id}@${f.at}`, { notional: Math.round(Number(f.notional) * 1e8) / 1e8, first: Number(f.first) });
  return out;
}

export async function spotTwapPage(
  deps: ArchiveDeps,
  req: SpotTwapRequest,
  now: number,
): Promise<{ data: SpotTwap[]; nextCursor: string | null; meta?: Record<string, unknown> }> {
  const user = req.user?.toLowerCase();
  const paging = startPage('twaps', { ...req, family: 'spot' }, req.symbol ?? `user:${user}`, { user }, now);
  if ('done' in paging) return { data: [], nextCursor: null, ...(paging.done.meta && { meta: paging.done.meta }) };
  const result = await windowPage(
    deps,
    {
      dataset: 'twaps',
      family: 'spot',
      symbol: req.symbol,
      limit: req.limit,
      projection: STATUS_PROJECTION,
      filter: user === undefined ? undefined : { sql: 'user_address = $q_user', params: { q_user: user } },
    },
    paging,
  );
  const rows: StatusRow[] = JSON.parse(`[${result.json}]`);
  const fills = await fillsOf(deps, rows);
  const data = rows.map(({ ts, ...row }) => {
    const f = fills.get(`${row.twap_id}@${ts}`);
    return { ...row, executed_notional: f?.notional ?? 0, ...(f && { started_at: new Date(f.first).toISOString() }) };
  });
  return { data, nextCursor: result.more && result.last ? paging.cursorAt(result.last) : null };
}
