/**
 * Reference values for the relative metrics, read from the archive: last-hour and last-day quote
 * volume from the 1-minute candles, open interest (contracts x mark price) from the latest
 * open-interest row, and a wallet's 30-day traded notional. Values are taken at the start of the
 * occurrence's minute and cached per family and minute (wallets per hour), so a batch costs at most
 * one scan per family.
 */
import type { ArchiveDeps } from '../../ports/archive.ts';
import { minuteCandleSource, windowSource } from '../archive/read.ts';
import { FAMILIES, type Family } from '../venues.ts';
import type { MarketReference, ReferenceSource } from './relative-metrics.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

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

  async function familyAt(family: Family, at: number): Promise<Map<string, MarketReference>> {
    const refs = new Map<string, MarketReference>();
    const candles = await minuteCandleSource(deps, { family, from: at - DAY, to: at - MINUTE });
    if (candles) {
      const rows = await deps.sql.query({
        sql: `SELECT symbol, sum(quote_volume) FILTER (WHERE ts >= $r_hour) AS v1h, sum(quote_volume) AS v24h FROM (${candles.sql}) GROUP BY symbol`,
        params: { ...candles.params, r_hour: at - HOUR },
      });
      for (const row of rows) refs.set(String(row.symbol), { volume1hUsd: Number(row.v1h ?? 0), volume24hUsd: Number(row.v24h ?? 0), openInterestUsd: null, at });
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
    let total = 0;
    for (const family of FAMILIES) {
      const trades = await windowSource(deps, { dataset: 'trades', family, from: at - 30 * DAY, to: at });
      if (!trades) continue;
      const [row] = await deps.sql.query({
        sql: `SELECT sum(CAST(size AS DOUBLE) * CAST(price AS DOUBLE)) AS notional FROM (${trades.sql}) WHERE user_address = $r_address`,
        params: { ...trades.params, r_address: address },
      });
      total += Number(row?.notional ?? 0);
    }
    return total;
  }

  return {
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
