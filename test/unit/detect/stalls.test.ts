import { describe, expect, it } from 'vitest';
import { archiveGaps } from '#core/events/archive.gap_detected.ts';
import { ingestStalls } from '#core/events/ingest.stall.ts';
import type { Tick } from '#core/events/kit/reads.ts';
import { matches } from '#core/detect/match.ts';
import { EVENT_TYPE_BY_NAME } from '#core/webhooks/catalog.ts';
import { normalizeConfig } from '#core/webhooks/filters.ts';

const T = Date.UTC(2026, 10, 21, 12, 0, 0);
const MIN = 60_000;
const every = (family: Tick['family'], symbol: string, start: number, end: number, stepMs: number): Tick[] =>
  Array.from({ length: Math.floor((end - start) / stepMs) }, (_, i) => ({ family, symbol, ts: start + i * stepMs }));

describe('archiveGaps', () => {
  it("detects a venue's trade stream silent for 5 minutes when it is noticed, and resolves it when data resumes, sharing the incident", () => {
    const ticks = [...every('perpx', 'BTC', T, T + 10 * MIN, 1_000), ...every('perpx', 'ETH', T + 30 * MIN, T + 40 * MIN, 1_000)];
    const lastBefore = T + 10 * MIN - 1_000;

    const detected = archiveGaps(ticks, T, T + 20 * MIN);
    const resolved = archiveGaps(ticks, T + 20 * MIN, T + 40 * MIN);

    expect(detected.map((c) => [c.type, c.occurredAt])).toEqual([['archive.gap_detected', lastBefore + 5 * MIN]]);
    expect(resolved.map((c) => [c.type, c.occurredAt])).toEqual([['archive.gap_resolved', T + 30 * MIN]]);
    expect(resolved[0]!.data.incident_id).toBe(detected[0]!.data.incident_id);
    expect(resolved[0]!.data.gap_s).toBe((T + 30 * MIN - lastBefore) / 1000);
    expect(archiveGaps(every('perpx', 'BTC', T, T + 20 * MIN, 60_000), T, T + 20 * MIN)).toEqual([]);
  });
});

describe('ingestStalls', () => {
  const feeds = [
    ...every('perpx', 'BTC', T - 60 * MIN, T + 5 * MIN, 10_000), // stops at T + 5 min
    ...every('perpx', 'BTC', T + 30 * MIN, T + 40 * MIN, 10_000), // and comes back at T + 30 min
    ...every('perpx', 'ETH', T - 60 * MIN, T + 5 * MIN, 10_000), // stops with it
    ...every('altx', 'SOL', T - 120 * MIN, T + 60 * MIN, 60_000 * 5), // a slow feed: never judged at 600 s
  ];

  it('gives per-market stall and recovery events and one storm-collapsed event per venue and minute', () => {
    const out = ingestStalls(feeds, T, T + 45 * MIN, [600]);

    const perMarket = out.filter((c) => c.scope === 'per_market');
    const storms = out.filter((c) => c.scope === 'collapsed');
    expect(perMarket.map((c) => `${c.type} ${c.symbol}`).sort()).toEqual(['ingest.recovered BTC', 'ingest.stall BTC', 'ingest.stall ETH']);
    expect(storms.map((c) => [c.type, c.data.symbols])).toEqual([
      ['ingest.stall', ['BTC', 'ETH']],
      ['ingest.recovered', ['BTC']],
    ]);
    const [stall, recovered] = ['ingest.stall', 'ingest.recovered'].map((t) => perMarket.find((c) => c.type === t && c.symbol === 'BTC')!);
    expect(recovered!.data.incident_id).toBe(stall!.data.incident_id);
    expect(out.every((c) => c.venue === 'perpx')).toBe(true);
  });

  it("routes per-market events to rules naming symbols and storms to rules without, at the rule's threshold only", () => {
    const decl = EVENT_TYPE_BY_NAME.get('ingest.stall')!;
    const out = ingestStalls(feeds, T, T + 45 * MIN, [600]).filter((c) => c.type === 'ingest.stall');
    const named = normalizeConfig(decl, { symbols: ['BTC'] }, new Set());
    const all = normalizeConfig(decl, {}, new Set());
    const slower = normalizeConfig(decl, { threshold_s: 1800 }, new Set());

    expect(out.filter((c) => matches(decl, named, c)).map((c) => c.symbol)).toEqual(['BTC']);
    expect(out.filter((c) => matches(decl, all, c)).map((c) => c.data.symbols)).toEqual([['BTC', 'ETH']]);
    expect(out.filter((c) => matches(decl, slower, c))).toEqual([]);
  });
});
