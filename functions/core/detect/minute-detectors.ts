/**
 * Detectors of the `minutes` latency class, run once a minute over the minutes that have settled
 * (and by estimate over the archive). Each is a pure function of rows read with enough lookback to
 * judge the first minute of the window, returning the occurrences whose time falls in
 * [from, to). Being stateless they can be re-run over any window and give the same events, which
 * is what makes the job's retries and catch-up safe.
 *
 * Events that depend on a rule's params (windows, thresholds, hysteresis) are computed once per
 * distinct set of params in use and carry those params, so only rules with exactly them match.
 */
import { createHash } from 'node:crypto';
import type { FundingRecord, InstrumentRecord, LiquidationRecord, OpenInterestRecord, SettlementRecord } from '../../../schemas/datasets.ts';
import { FAMILY_PREFIX } from '../venues.ts';
import { dexOf, type Family } from '../venues.ts';
import { groupBy } from './group.ts';
import type { Candidate } from './candidate.ts';
import { PGA_MIN_AMOUNT, PGA_PER_DAY } from '../archive/sql.ts';
import { MIN_DENOMINATOR_USD, type MarketReference } from './relative-metrics.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();
const round = (n: number, digits = 4) => Number(n.toFixed(digits));
const inWindow = (ts: number, from: number, to: number) => ts >= from && ts < to;
const instrumentUrl = (family: Family, symbol: string) => `${FAMILY_PREFIX[family]}/instruments/${encodeURIComponent(symbol)}`;

/** Each market's rows, oldest first, as [symbol, rows]: one venue's BTC is not another's. */
function bySymbol<T extends { family: string; symbol: string; ts: number }>(rows: readonly T[]): [string, T[]][] {
  return [...groupBy(rows, (r) => `${r.family}|${r.symbol}`).values()].map((list) => [list[0]!.symbol, list.sort((a, b) => a.ts - b.ts)]);
}

/** Percent moves are compared at a fixed precision, so a move of exactly the threshold fires (3 -> 2.97 is 1%). */
const percent = (ratio: number) => round(ratio * 100, 8);

/**
 * `market.funding_flip`: a settled funding rate whose sign differs from the market's previous one.
 * Funding settles hourly; the rows between hours are the running prediction, whose sign wobbles
 * whenever the premium sits near zero, so only the hourly rates are compared.
 */
export function fundingFlips(rows: readonly FundingRecord[], from: number, to: number): Candidate[] {
  const out: Candidate[] = [];
  for (const [symbol, series] of bySymbol(rows.filter((r) => r.ts % HOUR === 0))) {
    for (let i = 1; i < series.length; i += 1) {
      const previous = Number(series[i - 1]!.funding_rate);
      const row = series[i]!;
      const rate = Number(row.funding_rate);
      if (!inWindow(row.ts, from, to) || previous === 0 || rate === 0 || Math.sign(previous) === Math.sign(rate)) continue;
      out.push(fundingFlip(row.family as Family, symbol, row.ts, rate, previous));
    }
  }
  return out;
}

/** One market.funding_flip: the settled `rate` at `ts` after `previous` of the other sign. */
export function fundingFlip(family: Family, symbol: string, ts: number, rate: number, previous: number): Candidate {
  const fields = { venue: family, symbol, timestamp: iso(ts), funding_rate: rate, flipped_to: rate > 0 ? 'positive' : 'negative' };
  let data: Candidate['data'] | undefined;
  return {
    type: 'market.funding_flip', key: `flip:${family}:${symbol}:${ts}`, occurredAt: ts, venue: family, symbol, address: null, metrics: fields,
    // Built when first read: an estimate makes a candidate of each of a month's flips to match and count them, and shows five.
    get data() { return (data ??= { ...fields, previous_rate: previous, api_url: instrumentUrl(family, symbol) }); },
  };
}

/** `market.listed`: once per market, at its listing time. */
export function listings(rows: readonly InstrumentRecord[], from: number, to: number): Candidate[] {
  return rows.filter((r) => inWindow(r.ts, from, to) && r.market_type !== 'outcome').map((r) => {
    const family = r.family as Family;
    const fields = { venue: family, symbol: r.symbol, timestamp: iso(r.ts) };
    return {
      type: 'market.listed', key: `listed:${family}:${r.symbol}`, occurredAt: r.ts, venue: family, symbol: r.symbol, address: null,
      metrics: fields, data: { ...fields, market_type: r.market_type, max_leverage: r.max_leverage ?? null, api_url: instrumentUrl(family, r.symbol) },
    };
  });
}

/** `oracle.jump` (hip3): an oracle price that moved at least `threshold_pct` since its previous update. */
export function oracleJumps(rows: readonly OpenInterestRecord[], from: number, to: number, thresholds: readonly number[]): Candidate[] {
  const out: Candidate[] = [];
  for (const [symbol, series] of bySymbol(rows.filter((r) => Number(r.oracle_price) > 0))) {
    for (let i = 1; i < series.length; i += 1) {
      const prev = series[i - 1]!;
      const row = series[i]!;
      if (!inWindow(row.ts, from, to)) continue;
      const change = percent(Number(row.oracle_price) / Number(prev.oracle_price) - 1);
      for (const threshold of thresholds) {
        if (Math.abs(change) < threshold) continue;
        const fields = { venue: 'hip3' as const, symbol, timestamp: iso(row.ts), dex: dexOf(symbol) ?? null, change_pct: round(change), direction: change > 0 ? 'up' : 'down' };
        out.push({
          type: 'oracle.jump', key: `ojump:${symbol}:${row.ts}`, occurredAt: row.ts, venue: 'hip3', symbol, address: null, params: { threshold_pct: threshold },
          metrics: fields,
          data: { ...fields, prev_price: Number(prev.oracle_price), price: Number(row.oracle_price), interval_s: (row.ts - prev.ts) / 1000, threshold_pct: threshold, api_url: instrumentUrl('hip3', symbol) },
        });
      }
    }
  }
  return out;
}

/**
 * oracle.jump over the rows of oracle_moves_1h (core/archive/sql.ts): each kept update is judged
 * by `oracleJumps` against the update before it, which the row carries (`prev_ts`, `prev_price`)
 * when that was in the same hour, and otherwise is the symbol's previous kept row (the last
 * update of the previous hour with any, always kept).
 */
export function oracleJumpsOfMoves(rows: readonly Record<string, unknown>[], from: number, to: number, thresholds: readonly number[]): Candidate[] {
  const out: Candidate[] = [];
  for (const series of groupBy(rows, (r) => `${String(r.family)}|${String(r.symbol)}`).values()) {
    series.sort((a, b) => Number(a.ts) - Number(b.ts));
    for (let i = 0; i < series.length; i += 1) {
      const row = series[i]!;
      const ts = Number(row.ts);
      if (!inWindow(ts, from, to)) continue;
      const before = row.prev_ts !== null && row.prev_ts !== undefined
        ? { ...row, ts: Number(row.prev_ts), oracle_price: row.prev_price }
        : series[i - 1];
      if (!before) continue;
      const pair = [before, { ...row, ts }] as unknown as OpenInterestRecord[];
      out.push(...oracleJumps(pair, from, to, thresholds));
    }
  }
  return out;
}

const oiUsd = (r: OpenInterestRecord) => Number(r.open_interest) * Number(r.mark_price ?? r.oracle_price ?? 0);

/**
 * `market.oi_delta`: open interest moved at least `threshold_pct` over `window_s`; once per
 * direction per crossing (it fires when the move crosses the threshold, not while it stays past it).
 */
export function oiDeltas(rows: readonly OpenInterestRecord[], from: number, to: number, paramSets: readonly { window_s: number; threshold_pct: number }[]): Candidate[] {
  const out: Candidate[] = [];
  for (const [symbol, series] of bySymbol(rows)) {
    for (const { window_s: windowS, threshold_pct: threshold } of paramSets) {
      // Each row's base, the last row at or before its time minus the window, in one pass (times ascend).
      const baseOf = new Map<OpenInterestRecord, OpenInterestRecord | undefined>();
      for (let i = 0, j = -1; i < series.length; i += 1) {
        while (j + 1 < series.length && series[j + 1]!.ts <= series[i]!.ts - windowS * 1000) j += 1;
        baseOf.set(series[i]!, j >= 0 ? series[j] : undefined);
      }
      const stateAt = (row: OpenInterestRecord) => {
        const base = baseOf.get(row);
        if (!base || oiUsd(base) <= 0) return { state: 'none' as const, delta: 0, base };
        const delta = percent(oiUsd(row) / oiUsd(base) - 1);
        return { state: delta >= threshold ? ('up' as const) : delta <= -threshold ? ('down' as const) : ('none' as const), delta, base };
      };
      for (let i = 1; i < series.length; i += 1) {
        const row = series[i]!;
        if (!inWindow(row.ts, from, to)) continue;
        const now = stateAt(row);
        if (now.state === 'none' || stateAt(series[i - 1]!).state === now.state) continue;
        const family = row.family as Family;
        const fields = {
          venue: family, symbol, timestamp: iso(row.ts), delta_pct: round(now.delta), delta_usd: round(oiUsd(row) - oiUsd(now.base!), 2), direction: now.state,
          open_interest_usd: round(oiUsd(row), 2),
        };
        out.push({
          type: 'market.oi_delta', key: `oid:${family}:${symbol}:${row.ts}:${windowS}:${threshold}`, occurredAt: row.ts, venue: family, symbol, address: null,
          params: { window_s: windowS, threshold_pct: threshold }, metrics: fields, data: { ...fields, window_s: windowS, threshold_pct: threshold, api_url: instrumentUrl(family, symbol) },
        });
      }
    }
  }
  return out;
}

export type BurstParams = { window_s: number; threshold_mode: string; threshold_usd: number; threshold_pct: number };

/**
 * What market.liquidation_burst sums: a liquidation fill, or (from the liquidation_minutes_1h
 * reduction) the fills of one market and minute folded into one row: `fills` fills whose
 * notional is `price` x `size`.
 */
export type BurstRow = Pick<LiquidationRecord, 'family' | 'symbol' | 'ts'> & { price: string | number; size: string | number; fills?: number };

/** The first index of `sorted` whose value is above `value`. */
function firstAbove(sorted: readonly number[], value: number): number {
  let [lo, hi] = [0, sorted.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! > value) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * `market.liquidation_burst`: liquidated notional over the trailing `window_s`, judged at each
 * minute's end, crossing the threshold (USD, or percent of open interest or of last-hour volume);
 * the rising edge only. A percent mode never fires while its denominator is under 10,000 USD.
 *
 * Only the minute ends that can be an edge are judged, so a month of one market costs its rows,
 * not its minutes (the estimate runs this over 30 days): in USD mode the sum rises only at a
 * minute end some row enters, and a percent mode can fire only while the window holds a row
 * (thresholds are positive, so an empty window is never over).
 */
export function liquidationBursts(
  rows: readonly BurstRow[], from: number, to: number, paramSets: readonly BurstParams[],
  reference: (family: Family, symbol: string, at: number) => MarketReference | undefined,
): Candidate[] {
  const out: Candidate[] = [];
  for (const [symbol, series] of bySymbol(rows)) {
    const family = series[0]!.family as Family;
    const times = series.map((r) => r.ts);
    const firstEnd = Math.ceil(from / MINUTE) * MINUTE;
    for (const params of paramSets) {
      const windowMs = params.window_s * 1000;
      const measure = (end: number) => {
        let usd = 0;
        let count = 0;
        // The window's rows, summed oldest first (the order fixes the floating-point sum).
        for (let i = firstAbove(times, end - windowMs); i < series.length && series[i]!.ts <= end; i += 1) {
          usd += Number(series[i]!.price) * Number(series[i]!.size);
          count += series[i]!.fills ?? 1;
        }
        const ref = reference(family, symbol, end);
        const denominator = params.threshold_mode === 'pct_oi' ? ref?.openInterestUsd : params.threshold_mode === 'pct_volume_1h' ? ref?.volume1hUsd : undefined;
        const value = params.threshold_mode === 'usd' ? usd
          : denominator === undefined || denominator === null || denominator < MIN_DENOMINATOR_USD ? null : percent(usd / denominator);
        const threshold = params.threshold_mode === 'usd' ? params.threshold_usd : params.threshold_pct;
        return { usd, count, value, over: value !== null && value >= threshold, ref };
      };
      // The minute ends in [from, to) that can be an edge: each row's own minute end (USD), or
      // every minute end while the row is in the window (percent modes).
      const ends = new Set<number>();
      for (const ts of times) {
        const entered = Math.ceil(ts / MINUTE) * MINUTE;
        const last = params.threshold_mode === 'usd' ? entered : Math.min(to - 1, ts + windowMs - 1);
        for (let end = Math.max(entered, firstEnd); end <= last && end < to; end += MINUTE) ends.add(end);
      }
      for (const end of [...ends].sort((a, b) => a - b)) {
        const now = measure(end);
        if (!now.over || measure(end - MINUTE).over) continue;
        out.push(liquidationBurst(family, symbol, end, params, now));
      }
    }
  }
  return out;
}

/** One market.liquidation_burst: the window ending at `end` holds `usd` of `count` fills, `value` in the mode's unit. */
export function liquidationBurst(family: Family, symbol: string, end: number, params: BurstParams, at: { usd: number; count: number; value: number | null }): Candidate {
  const fields = { venue: family, symbol, timestamp: iso(end), notional_usd: round(at.usd, 2), liquidation_count: at.count };
  const paramsKey = `${params.window_s}:${params.threshold_mode}:${params.threshold_mode === 'usd' ? params.threshold_usd : params.threshold_pct}`;
  let data: Candidate['data'] | undefined;
  return {
    type: 'market.liquidation_burst', key: `burst:${family}:${symbol}:${end}:${paramsKey}`, occurredAt: end, venue: family, symbol, address: null,
    params: { ...params }, metrics: fields,
    // Built when first read (see fundingFlip).
    get data() {
      return (data ??= {
        ...fields, window_s: params.window_s, threshold_mode: params.threshold_mode, value: round(at.value!, 4),
        threshold: params.threshold_mode === 'usd' ? params.threshold_usd : params.threshold_pct,
        api_url: `${FAMILY_PREFIX[family]}/trades/${encodeURIComponent(symbol)}?start=${end - params.window_s * 1000}&end=${end}`,
      });
    },
  };
}

export interface BreadthPoint { family: Family; at: number; value: number | null }

/**
 * `market.breadth_cross`: the share above session VWAP crossing `threshold` with hysteresis. After
 * an upward cross the next upward one needs the value to have gone back below threshold minus the
 * band first (and the mirror for downward), so a value hovering at the line fires once. `points`
 * should start well before `from` (a day) so the arming state is known when the window opens.
 */
export function breadthCrosses(points: readonly BreadthPoint[], from: number, to: number, paramSets: readonly { threshold: number; hysteresis_pct: number }[]): Candidate[] {
  const out: Candidate[] = [];
  for (const series of groupBy(points, (p) => p.family).values()) {
    const family = series[0]!.family;
    series.sort((a, b) => a.at - b.at);
    for (const { threshold, hysteresis_pct: band } of paramSets) {
      let armedUp = false;
      let armedDown = false;
      let previous: number | null = null;
      for (const point of series) {
        if (point.value === null) continue;
        const value = point.value;
        if (value <= threshold - band) armedUp = true;
        if (value >= threshold + band) armedDown = true;
        const crossedUp = previous !== null && previous < threshold && value >= threshold && armedUp;
        const crossedDown = previous !== null && previous > threshold && value <= threshold && armedDown;
        if ((crossedUp || crossedDown) && inWindow(point.at, from, to)) {
          const direction = crossedUp ? 'up' : 'down';
          const fields = { venue: family, value_pct: value, direction, timestamp: iso(point.at) };
          out.push({
            type: 'market.breadth_cross', key: `breadth:${family}:${point.at}:${threshold}:${band}`, occurredAt: point.at, venue: family, symbol: null, address: null,
            params: { threshold, hysteresis_pct: band }, metrics: fields,
            data: { ...fields, threshold, hysteresis_pct: band, api_url: `${FAMILY_PREFIX[family]}/breadth/above-vwap?start=${point.at}&end=${point.at + MINUTE}` },
          });
        }
        if (crossedUp) armedUp = false;
        if (crossedDown) armedDown = false;
        previous = value;
      }
    }
  }
  return out;
}

export interface Tick { family: Family; symbol: string; ts: number }

const incidentOf = (...parts: (string | number)[]) => createHash('sha256').update(parts.join('|')).digest('hex').slice(0, 16);

/** A silence longer than `thresholdMs` in a series of times: when it was noticed and when it ended (if it has). */
function silences(times: readonly number[], thresholdMs: number, from: number, to: number) {
  const out: { state: 'stalled' | 'recovered'; at: number; since: number; until?: number }[] = [];
  for (let i = 0; i < times.length; i += 1) {
    const since = times[i]!;
    const next = times[i + 1];
    if (next !== undefined && next - since <= thresholdMs) continue;
    const noticed = since + thresholdMs;
    if (inWindow(noticed, from, to)) out.push({ state: 'stalled', at: noticed, since });
    if (next !== undefined && inWindow(next, from, to)) out.push({ state: 'recovered', at: next, since, until: next });
  }
  return out;
}

/** Archive gaps: a venue's trade stream silent for this long is a gap in the archive. */
export const ARCHIVE_GAP_MS = 5 * MINUTE;

/** `archive.gap_detected` / `archive.gap_resolved`, per venue, from the trade stream's own timestamps. */
export function archiveGaps(ticks: readonly Tick[], from: number, to: number): Candidate[] {
  const out: Candidate[] = [];
  for (const stream of groupBy(ticks, (t) => t.family).values()) {
    const family = stream[0]!.family;
    const times = stream.map((t) => t.ts).sort((a, b) => a - b);
    for (const s of silences(times, ARCHIVE_GAP_MS, from, to)) {
      const type = s.state === 'stalled' ? 'archive.gap_detected' : 'archive.gap_resolved';
      const incident = incidentOf('gap', family, s.since);
      const fields = { venue: family, stream: 'trades', gap_s: Math.round(((s.until ?? s.at) - s.since) / 1000) };
      out.push({
        type, key: `${type}:${incident}`, occurredAt: s.at, venue: family, symbol: null, address: null, metrics: fields,
        data: {
          ...fields, state: s.state === 'stalled' ? 'detected' : 'resolved', incident_id: incident, gap_id: incident, last_data_at: iso(s.since),
          ...(s.until !== undefined && { resumed_at: iso(s.until) }), api_url: `${FAMILY_PREFIX[family]}/trades/{symbol}?start=${s.since}&end=${s.until ?? s.at}`,
        },
      });
    }
  }
  return out;
}

/**
 * `ingest.stall` / `ingest.recovered`: a market's L2 feed silent for `threshold_s`. A market is judged
 * only when the threshold is at least five times its usual (median) update interval, so slow feeds
 * are not stalls. Per-market events go to rules naming `symbols`; rules without them get one
 * storm-collapsed event per venue and minute listing every market that stalled (or recovered) in it.
 */
export function ingestStalls(ticks: readonly Tick[], from: number, to: number, thresholds: readonly number[]): Candidate[] {
  const out: Candidate[] = [];
  const markets = groupBy(ticks, (t) => `${t.family}|${t.symbol}`);
  for (const thresholdS of thresholds) {
    const storms = new Map<string, { family: Family; state: 'stalled' | 'recovered'; minute: number; symbols: string[]; incidents: string[] }>();
    for (const series of markets.values()) {
      const { family, symbol } = series[0]!;
      const times = series.map((t) => t.ts).sort((a, b) => a - b);
      const gaps = times.slice(1).map((t, i) => t - times[i]!).sort((a, b) => a - b);
      const usual = gaps[Math.floor(gaps.length / 2)];
      if (usual === undefined || thresholdS * 1000 < 5 * usual) continue;
      for (const s of silences(times, thresholdS * 1000, from, to)) {
        const type = s.state === 'stalled' ? 'ingest.stall' : 'ingest.recovered';
        const incident = incidentOf('stall', family, symbol, s.since, thresholdS);
        const age = Math.round(((s.until ?? s.at) - s.since) / 1000);
        const fields = { venue: family, symbol, timestamp: iso(s.at), age_s: age };
        out.push({
          type, key: `${type}:${incident}`, occurredAt: s.at, venue: family, symbol, address: null, params: { threshold_s: thresholdS }, scope: 'per_market',
          metrics: fields, data: { ...fields, state: s.state, incident_id: incident, threshold_s: thresholdS, last_update_at: iso(s.since), api_url: instrumentUrl(family, symbol) },
        });
        const minute = Math.floor(s.at / MINUTE) * MINUTE;
        const slot = `${family}|${s.state}|${minute}`;
        const storm = storms.get(slot) ?? { family, state: s.state, minute, symbols: [], incidents: [] };
        storm.symbols.push(symbol);
        storm.incidents.push(incident);
        storms.set(slot, storm);
      }
    }
    for (const storm of storms.values()) {
      const type = storm.state === 'stalled' ? 'ingest.stall' : 'ingest.recovered';
      const incident = incidentOf('storm', storm.family, storm.minute, thresholdS, ...storm.incidents.sort());
      const fields = { venue: storm.family, symbol: null, timestamp: iso(storm.minute) };
      out.push({
        type, key: `${type}:storm:${incident}`, occurredAt: storm.minute, venue: storm.family, symbol: null, address: null, params: { threshold_s: thresholdS },
        scope: 'collapsed', metrics: { ...fields, age_s: null },
        data: { ...fields, state: storm.state, symbols: storm.symbols.sort(), market_count: storm.symbols.length, incident_id: incident, threshold_s: thresholdS, api_url: `${FAMILY_PREFIX[storm.family]}/instruments` },
      });
    }
  }
  return out;
}

/**
 * `hip4.settlement`: an outcome side settled. Its notional is the contracts outstanding at their
 * face value (1 USD each), whichever way the side resolved.
 */
export function settlements(rows: readonly SettlementRecord[], from: number, to: number): Candidate[] {
  return rows.filter((r) => inWindow(r.ts, from, to)).map((r) => {
    const notional = round(Number(r.open_interest), 2);
    const fields = { venue: 'hip4' as const, symbol: r.symbol, timestamp: iso(r.ts), notional_usd: notional, resolution: r.resolution };
    return {
      type: 'hip4.settlement', key: `settle:${r.symbol}:${r.ts}`, occurredAt: r.ts, venue: 'hip4', symbol: r.symbol, address: null,
      metrics: fields, data: { ...fields, settle_price: Number(r.settle_price), open_interest: Number(r.open_interest), api_url: instrumentUrl('hip4', r.symbol) },
    };
  });
}

/** A watched address's position in a settled side, from its last fill there (position before plus the fill). */
export interface Holder { address: string; symbol: string; position: number }

/** `account.hip4_settled`: a watched address held the side when it settled; notional at face value. */
export function settledHoldings(rows: readonly SettlementRecord[], holders: readonly Holder[], from: number, to: number): Candidate[] {
  const out: Candidate[] = [];
  for (const r of rows.filter((s) => inWindow(s.ts, from, to))) {
    for (const holder of holders.filter((h) => h.symbol === r.symbol && h.position !== 0)) {
      const notional = round(Math.abs(holder.position), 2);
      const fields = { venue: 'hip4' as const, symbol: r.symbol, timestamp: iso(r.ts), address: holder.address, notional_usd: notional, resolution: r.resolution };
      out.push({
        type: 'account.hip4_settled', key: `settle:${r.symbol}:${r.ts}:${holder.address}`, occurredAt: r.ts, venue: 'hip4', symbol: r.symbol, address: holder.address,
        metrics: fields,
        data: { ...fields, account: holder.address, position: holder.position, payout: round(holder.position * Number(r.settle_price), 2), api_url: instrumentUrl('hip4', r.symbol) },
      });
    }
  }
  return out;
}

/** PGA payments of at least this many native tokens are read; at most this many events per UTC day. */
export const PGA = { minAmount: PGA_MIN_AMOUNT, perDay: PGA_PER_DAY, token: 'HYPE' } as const;

export interface PgaPayment { ts: number; trade_id: number; symbol: string; payer: string | null; amount: number }

/**
 * `market.pga_payment`: priority gas auction payments on perpx, from 1.5 native tokens up, the
 * first 50 of each UTC day (in time order). `payments` must start at the UTC day of `from`.
 */
export function pgaPayments(payments: readonly PgaPayment[], from: number, to: number, tokenPriceUsd: number | null): Candidate[] {
  const out: Candidate[] = [];
  const perDay = new Map<number, number>();
  for (const p of [...payments].filter((q) => q.amount >= PGA.minAmount).sort((a, b) => a.ts - b.ts || a.trade_id - b.trade_id)) {
    const day = Math.floor(p.ts / 86_400_000);
    const seen = (perDay.get(day) ?? 0) + 1;
    perDay.set(day, seen);
    if (seen > PGA.perDay || !inWindow(p.ts, from, to)) continue;
    const fields = {
      venue: 'perpx' as const, symbol: PGA.token, timestamp: iso(p.ts), amount: p.amount, token: PGA.token,
      notional_usd: tokenPriceUsd === null ? null : round(p.amount * tokenPriceUsd, 2),
    };
    out.push({
      type: 'market.pga_payment', key: `pga:${p.trade_id}`, occurredAt: p.ts, venue: 'perpx', symbol: PGA.token, address: null, metrics: fields,
      data: { ...fields, market: p.symbol, payer: p.payer, payment_of_day: seen, api_url: `${FAMILY_PREFIX.perpx}/trades/${encodeURIComponent(p.symbol)}?start=${p.ts}&end=${p.ts + 1}` },
    });
  }
  return out;
}
