/**
 * The minute detection run: reads what the `minutes` detectors need from the archive and the
 * breadth store, for the settled minutes since the last run (at most an hour, so an outage is caught
 * up on without one giant run), and dispatches what matches. Only types some rule uses are
 * computed, and param-dependent types only for the param sets in use.
 */
import type {
  FundingRecord, IngestedDataset, InstrumentRecord, LiquidationRecord, NormalizedRecord, OpenInterestRecord, SettlementRecord,
} from '../../../schemas/datasets.ts';
import type { ArchiveDeps } from '../archive/deps.ts';
import { whollyBeforeCoverage } from '../archive/coverage.ts';
import { windowSource } from '../archive/read.ts';
import { BREADTH_FAMILIES } from '../breadth/compute.ts';
import type { BreadthStore } from '../../ports/breadth.ts';
import { EVENT_TYPE_BY_NAME } from '../webhooks/catalog.ts';
import type { Family } from '../venues.ts';
import { dispatch, type ActiveRule, type DetectDeps, type DispatchCounts } from './dispatch.ts';
import type { Candidate } from './match.ts';
import {
  ARCHIVE_GAP_MS, PGA, archiveGaps, breadthCrosses, fundingFlips, ingestStalls, listings, liquidationBursts, oiDeltas, oracleJumps, pgaPayments,
  settledHoldings, settlements, type BreadthPoint, type BurstParams, type Holder, type PgaPayment, type Tick,
} from './minute.ts';
import { withReferences, type MarketReference } from './references.ts';

export const MINUTE_TYPES = [
  'market.funding_flip', 'market.listed', 'oracle.jump', 'market.oi_delta', 'market.liquidation_burst', 'market.breadth_cross',
  'archive.gap_detected', 'archive.gap_resolved', 'ingest.stall', 'ingest.recovered', 'market.pga_payment', 'hip4.settlement', 'account.hip4_settled',
] as const;
export type MinuteType = (typeof MINUTE_TYPES)[number];

const MINUTE = 60_000;
const HOUR = 3_600_000;
/** Data of a minute is complete about a minute after it ends (batches land every second; compaction runs each minute). */
export const SETTLE_MS = MINUTE;
/** Longest window one run covers; a longer outage is caught up on over successive runs. */
export const MAX_WINDOW_MS = HOUR;

export interface MinuteDeps extends DetectDeps {
  archive: ArchiveDeps;
  breadth: BreadthStore;
}

/** The distinct values of the given params among rules, as objects. */
export function paramSets<K extends string>(rules: readonly Pick<ActiveRule, 'subscription'>[], keys: readonly K[]): Record<K, never>[] {
  const seen = new Map<string, Record<K, never>>();
  for (const { subscription } of rules) {
    const params = (subscription.filters.params ?? {}) as Record<string, unknown>;
    const picked = Object.fromEntries(keys.map((k) => [k, params[k]])) as Record<K, never>;
    seen.set(JSON.stringify(picked), picked);
  }
  return [...seen.values()];
}

async function rowsOf<T extends NormalizedRecord>(archive: ArchiveDeps, dataset: IngestedDataset, families: readonly Family[], from: number, to: number): Promise<T[]> {
  const rows: T[] = [];
  for (const family of families) {
    if (whollyBeforeCoverage(dataset, family, to)) continue;
    const source = await windowSource(archive, { dataset, family, from, to: to - 1 });
    if (!source) continue;
    for (const row of await archive.sql.query({ sql: `SELECT * FROM (${source.sql}) ORDER BY ts`, params: source.params })) {
      rows.push({ ...row, dataset, family } as unknown as T);
    }
  }
  return rows;
}

/** How far back the times before a window are looked for first; only a longer silence reads further. */
const RECENT_MS = 15 * MINUTE;
/** Times kept per market from before the window: enough for its usual interval after a long silence. */
const TIMES_BEFORE = 10;

/**
 * Times only (no payload columns): every row's time in [from, to) and each market's last few times
 * before `from`, so a silence that began earlier is measured from its start and the market's usual
 * interval is known. The times before are looked for in the recent past; the rest of `lookbackMs` is
 * read only when a series (a market, or a whole venue) resumes inside the window after a longer
 * silence, so an ordinary minute never reads a day of files.
 */
async function timesOf(
  archive: ArchiveDeps, dataset: IngestedDataset, families: readonly Family[], from: number, to: number, lookbackMs: number, series: 'market' | 'venue',
): Promise<Tick[]> {
  const ticks: Tick[] = [];
  const seriesOf = (symbol: string) => (series === 'market' ? symbol : '');
  for (const family of families) {
    if (whollyBeforeCoverage(dataset, family, to)) continue;
    const recentFrom = from - Math.min(RECENT_MS, lookbackMs);
    const recent = await timesAround(archive, dataset, family, recentFrom, from, to);
    const known = new Set(recent.filter((t) => t.ts < from).map((t) => seriesOf(t.symbol)));
    const resumedAfterLongSilence = recent.some((t) => t.ts >= from && !known.has(seriesOf(t.symbol)));
    const older = resumedAfterLongSilence ? await timesAround(archive, dataset, family, from - lookbackMs, recentFrom, recentFrom) : [];
    for (const t of [...recent, ...older.filter((o) => !known.has(seriesOf(o.symbol)))]) ticks.push({ family, symbol: t.symbol, ts: t.ts });
  }
  return ticks;
}

/** Each symbol's last `TIMES_BEFORE` times in [since, from) and every time in [from, to). */
async function timesAround(archive: ArchiveDeps, dataset: IngestedDataset, family: Family, since: number, from: number, to: number): Promise<{ symbol: string; ts: number }[]> {
  const source = await windowSource(archive, { dataset, family, from: since, to: to - 1 });
  if (!source) return [];
  const rows = await archive.sql.query({
    sql: `SELECT symbol, ts FROM (${source.sql}) WHERE ts >= $t_from
          UNION ALL SELECT symbol, ts FROM (
            SELECT symbol, ts FROM (${source.sql}) WHERE ts < $t_from QUALIFY row_number() OVER (PARTITION BY symbol ORDER BY ts DESC) <= $t_keep)`,
    params: { ...source.params, t_from: from, t_keep: TIMES_BEFORE },
  });
  return rows.map((row) => ({ symbol: String(row.symbol), ts: Number(row.ts) }));
}

const venuesOf = (type: string) => (EVENT_TYPE_BY_NAME.get(type)?.venues ?? []) as readonly Family[];

/**
 * Candidates of the given types in [from, to), for the given param sets (live: those of the rules;
 * estimate: the previewed configuration's).
 */
export async function minuteCandidates(
  deps: Pick<MinuteDeps, 'archive' | 'breadth' | 'references'>, type: MinuteType, sets: readonly Record<string, never>[], from: number, to: number,
  watched: ReadonlySet<string> = new Set(),
  /** Within one run: what paired types share (gaps detected and resolved, stalls and recoveries, settlements) is read once. */
  memo: Map<string, Promise<unknown>> = new Map(),
): Promise<Candidate[]> {
  const once = <T>(key: string, compute: () => Promise<T>): Promise<T> => {
    if (!memo.has(key)) memo.set(key, compute());
    return memo.get(key) as Promise<T>;
  };
  const settledRows = () => once('settlements', () => rowsOf<SettlementRecord>(deps.archive, 'settlements', ['hip4'], from, to));
  switch (type) {
    case 'market.funding_flip':
      return fundingFlips(await rowsOf<FundingRecord>(deps.archive, 'funding', venuesOf(type), from - 2 * HOUR, to), from, to);
    case 'market.listed':
      return listings(await rowsOf<InstrumentRecord>(deps.archive, 'instruments', venuesOf(type), from, to), from, to);
    case 'oracle.jump':
      return oracleJumps(await rowsOf<OpenInterestRecord>(deps.archive, 'open_interest', ['hip3'], from - 10 * MINUTE, to), from, to,
        sets.map((s) => (s as Record<string, number>).threshold_pct!));
    case 'market.oi_delta': {
      const longest = Math.max(...sets.map((s) => (s as Record<string, number>).window_s!));
      const rows = await rowsOf<OpenInterestRecord>(deps.archive, 'open_interest', venuesOf(type), from - longest * 1000 - 5 * MINUTE, to);
      return oiDeltas(rows, from, to, sets as never);
    }
    case 'market.liquidation_burst': {
      const bursts = sets as unknown as BurstParams[];
      const longest = Math.max(...bursts.map((s) => s.window_s));
      const rows = await rowsOf<LiquidationRecord>(deps.archive, 'liquidations', venuesOf(type), from - longest * 1000 - MINUTE, to);
      // Percent modes compare with references at each minute end; fetch them up front (the detector is synchronous).
      const references = new Map<string, MarketReference | undefined>();
      if (bursts.some((s) => s.threshold_mode !== 'usd')) {
        for (const key of new Set(rows.map((r) => `${r.family}|${r.symbol}`))) {
          const [family, symbol] = key.split('|') as [Family, string];
          for (let end = Math.ceil(from / MINUTE) * MINUTE - MINUTE; end < to; end += MINUTE) {
            references.set(`${key}|${end}`, await deps.references.market(family, symbol, end));
          }
        }
      }
      return liquidationBursts(rows, from, to, bursts, (family, symbol, at) => references.get(`${family}|${symbol}|${at}`));
    }
    case 'archive.gap_detected':
    case 'archive.gap_resolved': {
      // Venue-wide: one stream per venue, so symbols are ignored and the previous tick is the venue's.
      const gaps = await once('archive-gaps', async () =>
        archiveGaps(await timesOf(deps.archive, 'trades', venuesOf(type), from - ARCHIVE_GAP_MS - MINUTE, to, 24 * HOUR, 'venue'), from, to));
      return gaps.filter((c) => c.type === type);
    }
    case 'ingest.stall':
    case 'ingest.recovered': {
      const thresholds = [...new Set(sets.map((s) => (s as Record<string, number>).threshold_s!))].sort((a, b) => a - b);
      // Enough history to know each market's usual interval (the longest threshold is at least five of them).
      const lookback = 2 * Math.max(...thresholds) * 1000;
      const stalls = await once(`ingest-stalls|${thresholds.join(',')}`, async () =>
        ingestStalls(await timesOf(deps.archive, 'l2_snapshots', venuesOf(type), from - lookback, to, 24 * HOUR, 'market'), from, to, thresholds));
      return stalls.filter((c) => c.type === type);
    }
    case 'market.pga_payment': {
      const window = await pgaPaymentsBetween(deps.archive, from, to);
      if (window.length === 0) return [];
      // The day's earlier payments count towards its 50; read only when the window has one to judge.
      const dayStart = Math.floor(from / 86_400_000) * 86_400_000;
      const earlier = from > dayStart ? await pgaPaymentsBetween(deps.archive, dayStart, from) : [];
      const source = await windowSource(deps.archive, { dataset: 'trades', family: 'perpx', symbol: PGA.token, from: to - HOUR, to: to - 1 });
      const [price] = source
        ? await deps.archive.sql.query({ sql: `SELECT CAST(arg_max(price, ts) AS DOUBLE) AS price FROM (${source.sql})`, params: source.params })
        : [];
      return pgaPayments([...earlier, ...window], from, to, price?.price == null ? null : Number(price.price));
    }
    case 'hip4.settlement':
      return settlements(await settledRows(), from, to);
    case 'account.hip4_settled': {
      const settled = await settledRows();
      if (settled.length === 0 || watched.size === 0) return [];
      return settledHoldings(settled, await holdersOf(deps.archive, settled, watched, to), from, to);
    }
    case 'market.breadth_cross': {
      const points: BreadthPoint[] = [];
      for (const family of BREADTH_FAMILIES) {
        const { snapshots } = await deps.breadth.range(family, from - 24 * HOUR, to - 1, 2_000);
        for (const s of snapshots) points.push({ family, at: Date.parse(s.calculated_at), value: s.value_pct });
      }
      return breadthCrosses(points, from, to, sets as never);
    }
  }
}

/** Priority gas payments on perpx of at least the floor in [from, to). */
async function pgaPaymentsBetween(archive: ArchiveDeps, from: number, to: number): Promise<PgaPayment[]> {
  const source = await windowSource(archive, { dataset: 'trades', family: 'perpx', from, to: to - 1 });
  if (!source) return [];
  const rows = await archive.sql.query({
    sql: `SELECT ts, trade_id, symbol, user_address, CAST(priority_gas AS DOUBLE) AS amount FROM (${source.sql})
          WHERE priority_gas IS NOT NULL AND CAST(priority_gas AS DOUBLE) >= $p_min`,
    params: { ...source.params, p_min: PGA.minAmount },
  });
  return rows.map((r) => ({ ts: Number(r.ts), trade_id: Number(r.trade_id), symbol: String(r.symbol), payer: (r.user_address as string | null) ?? null, amount: Number(r.amount) }));
}

/** Watched addresses' positions in the settled sides, from each one's last fill before settlement (30 days back). */
async function holdersOf(archive: ArchiveDeps, settled: readonly SettlementRecord[], watched: ReadonlySet<string>, to: number): Promise<Holder[]> {
  const source = await windowSource(archive, { dataset: 'trades', family: 'hip4', from: to - 30 * 24 * HOUR, to: to - 1 });
  if (!source) return [];
  const rows = await archive.sql.query({
    sql: `SELECT symbol, user_address, arg_max(CAST(coalesce(start_position, '0') AS DOUBLE) + CASE WHEN side = 'B' THEN 1 ELSE -1 END * CAST(size AS DOUBLE), ts) AS position
          FROM (${source.sql}) WHERE list_contains($h_symbols, symbol) AND list_contains($h_users, user_address) GROUP BY symbol, user_address`,
    params: { ...source.params, h_symbols: [...new Set(settled.map((s) => s.symbol))], h_users: [...watched] },
  });
  return rows.map((r) => ({ symbol: String(r.symbol), address: String(r.user_address), position: Number(r.position) }));
}

/** The params each param-dependent type's occurrences depend on. */
export const DETECTION_PARAMS: Readonly<Record<MinuteType, readonly string[]>> = {
  'market.funding_flip': [],
  'market.listed': [],
  'oracle.jump': ['threshold_pct'],
  'market.oi_delta': ['window_s', 'threshold_pct'],
  'market.liquidation_burst': ['window_s', 'threshold_mode', 'threshold_usd', 'threshold_pct'],
  'market.breadth_cross': ['threshold', 'hysteresis_pct'],
  'archive.gap_detected': [],
  'archive.gap_resolved': [],
  'ingest.stall': ['threshold_s'],
  'ingest.recovered': ['threshold_s'],
  'market.pga_payment': [],
  'hip4.settlement': [],
  'account.hip4_settled': [],
};

/** One run at `now`: the settled minutes since the cursor, detected, matched and queued. */
export async function runMinuteDetection(deps: MinuteDeps, now: number): Promise<DispatchCounts & { from: number; to: number }> {
  const to = Math.floor((now - SETTLE_MS) / MINUTE) * MINUTE;
  const cursor = (await deps.store.readDetectionCursor()) ?? to - MINUTE;
  const from = Math.max(cursor, to - MAX_WINDOW_MS);
  if (from >= to) return { candidates: 0, matched: 0, from, to };
  const candidates: Candidate[] = [];
  const memo = new Map<string, Promise<unknown>>();
  for (const type of MINUTE_TYPES) {
    const rules = await deps.rules.rules(type);
    if (rules.length === 0) continue;
    const watched = new Set(rules.flatMap((r) => [...r.watched]));
    candidates.push(...await minuteCandidates(deps, type, paramSets(rules, DETECTION_PARAMS[type]), from, to, watched, memo));
  }
  const counts = await dispatch(deps, await withReferences(candidates, deps.references));
  // Moved on only after every match is queued: a failed run is repeated whole, and ids dedupe it.
  await deps.store.writeDetectionCursor(to);
  return { ...counts, from, to };
}
