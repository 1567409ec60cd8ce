/**
 * Reference values for the relative metrics, read from the archive: last-hour and last-day quote
 * volume from the 1-minute candles, open interest (contracts x mark price) from the latest
 * open-interest row, and a wallet's 30-day traded notional. Values are taken at the start of the
 * occurrence's minute and cached per family and minute (wallets per hour), so a batch costs at most
 * one scan per family.
 */
import type { ArchiveDeps, ArchiveFile } from '#ports/archive.ts';
import { minuteCandleSource } from '../archive/read-candles.ts';
import { windowFiles, windowSource } from '../archive/read.ts';
import { FAMILIES, type Family } from '../venues.ts';
import { DELETION_GRACE_MS } from '../archive/compact-slot.ts';
import { marketKey, type MarketReference, type ReferenceSource } from '../events/kit/relative-metrics.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Well inside compaction's deletion grace, so a listed file still exists when it is read. */
const WALLET_FILES_TTL_MS = DELETION_GRACE_MS / 2;

/** A bounded cache of loads in flight or done; a failed load is forgotten so the next call retries. */
function cached<T>(cache: Map<string, Promise<T>>, key: string, bound: number, load: () => Promise<T>): Promise<T> {
  let loading = cache.get(key);
  if (!loading) {
    if (cache.size >= bound) cache.clear();
    loading = load();
    loading.catch(() => cache.delete(key));
    cache.set(key, loading);
  }
  return loading;
}

export function archiveReferences(deps: ArchiveDeps): ReferenceSource {
  const markets = new Map<string, Promise<Map<string, MarketReference>>>();
  const wallets = new Map<string, Promise<number>>();
  const walletFiles = new Map<string, Promise<ArchiveFile[]>>();

  async function familyAt(family: Family, at: number): Promise<Map<string, MarketReference>> {
    const refs = new Map<string, MarketReference>();
    const candles = await minuteCandleSource(deps, { family, from: at - DAY, to: at - MINUTE });
    if (candles) {
      const rows = await deps.sql.query({
        sql: `SELECT symbol, sum(quote_volume) FILTER (WHERE ts >= $r_hour) AS v1h, sum(quote_volume) AS v24h FROM (${candles.sql}) GROUP BY symbol`,
        params: { ...candles.params, r_hour: at - HOUR },
      });
      for (const row of rows)
        refs.set(String(row.symbol), { volume1hUsd: Number(row.v1h ?? 0), volume24hUsd: Number(row.v24h ?? 0), openInterestUsd: null, at });
    }
    const oi = await windowSource(deps, { dataset: 'open_interest', family, from: at - 2 * HOUR, to: at });
    if (oi) {
      const rows = await deps.sql.query({
        sql: `SELECT symbol, arg_max(CAST(open_interest AS DOUBLE) * CAST(coalesce(mark_price, oracle_price) AS DOUBLE), ts) AS oi FROM (${oi.sql}) GROUP BY symbol`,
        params: oi.params,
      });
      for (const row of rows) {
        const symbol = String(row.symbol);
        const ref = refs.get(symbol) ?? { volume1hUsd: 0, volume24hUsd: 0, openInterestUsd: null, at };
        refs.set(symbol, { ...ref, openInterestUsd: row.oi === null ? null : Number(row.oi) });
      }
    }
    return refs;
  }

  async function walletAt(address: string, at: number): Promise<number> {
    const totals = await Promise.all(
      FAMILIES.map(async (family) => {
        const window = { dataset: 'trades' as const, family, from: at - 30 * DAY, to: at };
        // The files are the same for every wallet that hour: listed once (a manifest query a day) for
        // all of them, and again after a while, as compaction replaces files and deletes the old ones
        // (DELETION_GRACE_MS after).
        const listedAt = Math.floor(deps.clock.now() / WALLET_FILES_TTL_MS);
        const files = await cached(walletFiles, `${family}|${at}|${listedAt}`, 64, () => windowFiles(deps, window));
        const trades = await windowSource(deps, window, files);
        if (!trades) return 0;
        const [row] = await deps.sql.query({
          sql: `SELECT sum(CAST(size AS DOUBLE) * CAST(price AS DOUBLE)) AS notional FROM (${trades.sql}) WHERE user_address = $r_address`,
          params: { ...trades.params, r_address: address },
        });
        return Number(row?.notional ?? 0);
      }),
    );
    return totals.reduce((a, b) => a + b, 0);
  }

  /**
   * `familyAt` for many markets and minutes in one query: the candles and open-interest rows
   * covering all of them are read once, and each (market, minute) takes the same sums (last hour
   * and day of quote volume before the minute) and the same latest open interest (two hours back)
   * through range joins.
   */
  async function marketsAt(family: Family, wanted: readonly { symbol: string; at: number }[]): Promise<Map<string, MarketReference>> {
    const refs = new Map<string, MarketReference>();
    const pairs = [
      ...new Map(
        wanted.map((w) => {
          const minute = Math.floor(w.at / MINUTE) * MINUTE;
          return [marketKey(w.symbol, minute), { symbol: w.symbol, minute }] as const;
        }),
      ).values(),
    ];
    if (pairs.length === 0) return refs;
    const first = Math.min(...pairs.map((p) => p.minute));
    const last = Math.max(...pairs.map((p) => p.minute));
    const symbols = [...new Set(pairs.map((p) => p.symbol))];
    const [candles, oi] = await Promise.all([
      minuteCandleSource(deps, { family, from: first - DAY, to: last - MINUTE }),
      windowSource(deps, { dataset: 'open_interest', family, from: first - 2 * HOUR, to: last, symbols }),
    ]);
    if (!candles && !oi) return refs;
    const parts: string[] = [];
    if (candles) {
      parts.push(`SELECT p.symbol, p.minute, sum(c.quote_volume) FILTER (WHERE c.ts >= p.minute - ${HOUR}) AS v1h, sum(c.quote_volume) AS v24h, NULL AS oi, true AS has_volume, false AS has_oi
        FROM pairs p JOIN (${candles.sql}) c ON c.symbol = p.symbol AND c.ts BETWEEN p.minute - ${DAY} AND p.minute - ${MINUTE} GROUP BY p.symbol, p.minute`);
    }
    if (oi) {
      parts.push(`SELECT p.symbol, p.minute, NULL AS v1h, NULL AS v24h,
          arg_max(CAST(o.open_interest AS DOUBLE) * CAST(coalesce(o.mark_price, o.oracle_price) AS DOUBLE), o.ts) AS oi, false AS has_volume, true AS has_oi
        FROM pairs p JOIN (${oi.sql}) o ON o.symbol = p.symbol AND o.ts BETWEEN p.minute - ${2 * HOUR} AND p.minute GROUP BY p.symbol, p.minute`);
    }
    const rows = await deps.sql.query({
      sql: `WITH pairs AS (SELECT unnest($q_symbols) AS symbol, CAST(unnest($q_ats) AS BIGINT) AS minute)
            SELECT symbol, minute, max(v1h) AS v1h, max(v24h) AS v24h, max(oi) AS oi, bool_or(has_volume) AS has_volume, bool_or(has_oi) AS has_oi
            FROM (${parts.join(' UNION ALL ')}) GROUP BY symbol, minute`,
      params: { ...candles?.params, ...oi?.params, q_symbols: pairs.map((p) => p.symbol), q_ats: pairs.map((p) => String(p.minute)) },
    });
    for (const row of rows) {
      const at = Number(row.minute);
      refs.set(marketKey(String(row.symbol), at), {
        volume1hUsd: Number(row.v1h ?? 0),
        volume24hUsd: Number(row.v24h ?? 0),
        openInterestUsd: row.has_oi && row.oi !== null ? Number(row.oi) : null,
        at,
      });
    }
    return refs;
  }

  return {
    marketsAt,
    async market(family, symbol, at) {
      const minute = Math.floor(at / MINUTE) * MINUTE;
      return (await cached(markets, `${family}|${minute}`, 64, () => familyAt(family, minute))).get(symbol);
    },
    walletVolume30dUsd(address, at) {
      const hour = Math.floor(at / HOUR) * HOUR;
      return cached(wallets, `${address}|${hour}`, 4_096, () => walletAt(address, hour));
    },
  };
}
