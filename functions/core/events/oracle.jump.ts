import { HOUR_MS, MINUTE_MS, rowsOf } from './kit/reads.ts';
import { common, declaration, minute, pct, type EventDefinition } from './declare.ts';
import { iso, inWindow, instrumentUrl, bySymbol, round, percent } from './kit/format.ts';
import { groupBy } from '../group.ts';
import type { Candidate } from './kit/candidate.ts';
import { dexOf } from '../venues.ts';
import type { OpenInterestRecord } from '#schemas/datasets.ts';

/** `oracle.jump` (hip3): an oracle price that moved at least `threshold_pct` since its previous update. */
/** What a jump is judged on: an open-interest record's, or an oracle_moves_1h row's, members. */
export type OracleUpdate = Pick<OpenInterestRecord, 'symbol' | 'ts' | 'oracle_price'> & { family: string };

export function oracleJumps(rows: readonly OracleUpdate[], from: number, to: number, thresholds: readonly number[]): Candidate<'oracle.jump'>[] {
  const out: Candidate<'oracle.jump'>[] = [];
  for (const [symbol, series] of bySymbol(rows.filter((r) => Number(r.oracle_price) > 0))) {
    for (let i = 1; i < series.length; i += 1) {
      const prev = series[i - 1]!;
      const row = series[i]!;
      if (!inWindow(row.ts, from, to)) continue;
      const change = percent(Number(row.oracle_price) / Number(prev.oracle_price) - 1);
      for (const threshold of thresholds) {
        if (Math.abs(change) < threshold) continue;
        const fields = {
          venue: 'hip3' as const,
          symbol,
          timestamp: iso(row.ts),
          dex: dexOf(symbol) ?? null,
          change_pct: round(change),
          direction: change > 0 ? 'up' : 'down',
        };
        out.push({
          type: 'oracle.jump',
          key: `ojump:${symbol}:${row.ts}`,
          occurredAt: row.ts,
          venue: 'hip3',
          symbol,
          address: null,
          params: { threshold_pct: threshold },
          metrics: fields,
          data: {
            ...fields,
            prev_price: Number(prev.oracle_price),
            price: Number(row.oracle_price),
            interval_s: (row.ts - prev.ts) / 1000,
            threshold_pct: threshold,
            api_url: instrumentUrl('hip3', symbol),
          },
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
export function oracleJumpsOfMoves(
  rows: readonly Record<string, unknown>[],
  from: number,
  to: number,
  thresholds: readonly number[],
): Candidate<'oracle.jump'>[] {
  const update = (r: Record<string, unknown>, ts: number, price: unknown): OracleUpdate => ({
    family: String(r.family),
    symbol: String(r.symbol),
    ts,
    oracle_price: price === null || price === undefined ? null : String(price),
  });
  const out: Candidate<'oracle.jump'>[] = [];
  for (const series of groupBy(rows, (r) => `${String(r.family)}|${String(r.symbol)}`).values()) {
    series.sort((a, b) => Number(a.ts) - Number(b.ts));
    for (let i = 0; i < series.length; i += 1) {
      const row = series[i]!;
      const ts = Number(row.ts);
      if (!inWindow(ts, from, to)) continue;
      const previous = series[i - 1];
      const before =
        row.prev_ts !== null && row.prev_ts !== undefined
          ? update(row, Number(row.prev_ts), row.prev_price)
          : previous && update(previous, Number(previous.ts), previous.oracle_price);
      if (!before) continue;
      out.push(...oracleJumps([before, update(row, ts, row.oracle_price)], from, to, thresholds));
    }
  }
  return out;
}

export default {
  declaration: declaration({
    type: 'oracle.jump',
    live: true,
    description: 'An oracle price moved at least the threshold between updates',
    scope: 'public',
    venues: ['hip3'],
    scopeKeys: ['venue', 'symbols'],
    params: { threshold_pct: { type: 'number', default: 2, min: 0.1, max: 50, unit: '%', description: 'Move that fires' } },
    metrics: { ...common(['hip3']), dex: { type: 'text' }, change_pct: pct('Move between updates'), direction: { type: 'enum', values: ['up', 'down'] } },
  }),
  // Oracle prices ride on the open-interest rows; ten minutes back finds each market's previous update.
  detection: minute<{ threshold_pct: number }, 'oracle.jump'>({
    params: ['threshold_pct'],
    detect: async (ctx, sets) =>
      oracleJumps(
        await rowsOf(ctx, 'open_interest', ['hip3'], ctx.from - 10 * MINUTE_MS),
        ctx.from,
        ctx.to,
        sets.map((s) => s.threshold_pct),
      ),
  }),
  preview: {
    estimate: {
      metric: 'change_pct',
      absolute: true,
      gate: { param: 'threshold_pct', lowest: 0.1 },
      // The updates that can fire (0.1% moves and up) with the update before each, from their hourly reduction.
      reduced: {
        rows: { reduction: 'oracle_moves_1h' },
        bySymbol: true,
        since: (from) => from - HOUR_MS,
        detect: async (rows, from, to, _archive, paramSets) =>
          oracleJumpsOfMoves(
            rows,
            from,
            to,
            paramSets.map((s) => s.threshold_pct as number),
          ),
        note: 'Each update is compared with the one before it in the archive, however long before (live detection looks ten minutes back).',
      },
    },
  },
} satisfies EventDefinition<'oracle.jump'>;
