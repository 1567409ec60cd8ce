/**
 * Estimate and dry-run over the real archive (dynalite manifest, s3rver objects, DuckDB):
 * - the estimate read from the hourly liquidation rollup (itself checked against a raw replay in
 *   webhook-rollups.test.ts) counts per day exactly what a replay finds at a power-of-ten
 *   threshold, its ladder is monotone and each rung is the replay's count at that bucket edge;
 * - a dry-run out of time answers what it read: `truncated`, `window.from` moved to an hour
 *   boundary, and exactly the occurrences of the shortened window.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestBatch } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { liquidationCandidates } from '#core/events/market.liquidation.ts';
import { archiveReferences } from '#core/detect/archive-references.ts';
import { dryRun, estimateWithCost } from '#core/detect/preview.ts';
import { SCAN_BUDGET_MS, type PreviewDeps } from '#core/detect/scan.ts';
import { bucketEdge, bucketOf, HOUR_MS } from '#core/detect/rollups.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { breadthStore, webhookStores } from '#shared/deps.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { LiquidationRecord } from '#schemas/datasets.ts';

let env: ScratchEmulators;
let archive: ArchiveDeps;
const DAY = 86_400_000;
const T0 = Date.parse('2026-09-01T00:00:00Z');
/** Day one closed (day files), day two open: hours before 13:00 folded into hour files, 13:xx still deltas. */
const NOW = T0 + DAY + 13 * HOUR_MS + 20 * 60_000;
const USERS = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000a2', '0x00000000000000000000000000000000000000a3'];

beforeAll(async () => {
  env = await startScratchEmulators();
  archive = { ...archiveDeps(), clock: { now: () => NOW } };
});
afterAll(async () => {
  await env?.stop();
});

const fillArb = fc.record({
  offset: fc.integer({ min: 0, max: NOW - T0 - 1 }),
  // Several fills of one account and instant collapse into one event: instants on a coarse grid.
  user: fc.integer({ min: 0, max: USERS.length - 1 }),
  dollars: fc.integer({ min: 1, max: 200_000 }),
  lots: fc.integer({ min: 1, max: 4_000 }),
  side: fc.constantFrom<'A' | 'B'>('A', 'B'),
});
type Fill = { offset: number; user: number; dollars: number; lots: number; side: 'A' | 'B' };

let run = 0;
let accounts = 0;
const account = () => ({ id: `acct-preview-${accounts++}`, plan: 'free' as const });

/** Ingests one run's fills under a symbol of its own, in two batches, and compacts as the clock says. */
async function ingest(fills: readonly Fill[]): Promise<{ symbol: string; records: LiquidationRecord[] }> {
  const symbol = `RL${run}`;
  const firstId = run++ * 10_000;
  const records = fills.map(
    (f, i) =>
      ({
        dataset: 'liquidations',
        family: 'perpx',
        symbol,
        ts: T0 + f.offset - (f.offset % 60_000),
        trade_id: firstId + i,
        liquidated_user: USERS[f.user]!,
        price: String(f.dollars),
        size: (f.lots / 100).toFixed(2),
        side: f.side,
      }) as LiquidationRecord,
  );
  const half = Math.ceil(records.length / 2);
  for (const part of [records.slice(0, half), records.slice(half)]) {
    if (part.length) await ingestBatch(archive, 'normalized', part.map((r) => JSON.stringify(r)).join('\n'));
  }
  await compactArchive(archive, { datasets: ['liquidations'], families: ['perpx'] });
  return { symbol, records };
}

/** market.liquidation events of the rows, as live detection finds them. */
const eventsOf = (records: readonly LiquidationRecord[]) =>
  liquidationCandidates(records, new Set()).map((c) => ({ at: c.occurredAt, notional: c.metrics.notional_usd as number }));

function previewDeps(clock: () => number): PreviewDeps {
  return { store: webhookStores(), clock: { now: clock }, archive, breadth: breadthStore(), references: archiveReferences(archive) };
}

describe('the hourly liquidation rollup', () => {
  // The rollup itself equals a raw replay of its detector: test/integration/webhook-rollups.test.ts, for every rollup.
  it('gives the estimate exact per-day counts at a power-of-ten threshold, a monotone ladder counted at its bucket edges', async () => {
    const fills = fc.sample(fillArb, { numRuns: 400, seed: 23 });
    const { symbol, records } = await ingest(fills);
    const deps = previewDeps(() => NOW);
    const answer = await estimateWithCost(deps, account(), {
      event_type: 'market.liquidation',
      config: { symbols: [symbol], min_notional_usd: 10_000 },
      lookback_days: 2,
    });
    const events = eventsOf(records).filter((e) => e.notional >= 100);
    const perDay = [0, 1].map((d) => events.filter((e) => e.notional >= 10_000 && Math.floor((e.at - T0) / DAY) === d).length);
    expect(answer.per_day.map((d) => d.count)).toEqual(perDay);
    expect(answer.basis.mode).toBe('exact');
    expect(answer.basis.note).toMatch(/hourly rollups/);
    // The rows read: one per hour and bucket, far fewer than the fills.
    expect(answer.rowsScanned).toBeLessThan(records.length);
    const days = (NOW - T0) / DAY;
    const steps = [0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 7.5, 10];
    expect(answer.ladder.map((r) => r.per_day)).toEqual(
      steps.map((step) => {
        const bucket = bucketOf(10_000 * step);
        return Number((events.filter((e) => e.notional >= bucketEdge(bucket) * (1 - 1e-12)).length / days).toFixed(2));
      }),
    );
    for (let i = 1; i < answer.ladder.length; i++) {
      expect(answer.ladder[i]!.value).toBeGreaterThan(answer.ladder[i - 1]!.value);
      expect(answer.ladder[i]!.per_day).toBeLessThanOrEqual(answer.ladder[i - 1]!.per_day);
    }
    expect(answer.distribution).toMatchObject({ n: events.length, max: Math.max(...events.map((e) => e.notional)) });

    // A condition the histogram cannot answer replays the window instead, and agrees.
    const replayed = await estimateWithCost(deps, account(), {
      event_type: 'market.liquidation',
      config: {
        symbols: [symbol],
        conditions: [
          { metric: 'notional_usd', op: 'greater_than_or_equal', value: 10_000 },
          { metric: 'side', op: 'in', value: ['long', 'short'] },
        ],
      },
      lookback_days: 2,
    });
    expect(replayed.basis.mode).toBe('replayed');
    expect(replayed.per_day).toEqual(answer.per_day);
    expect(replayed.rowsScanned).toBe(records.length);
  });
});

describe('a dry-run out of time', () => {
  it("answers what it read: truncated, window.from moved to an hour boundary, exactly that window's occurrences", async () => {
    const fills = fc.sample(fillArb, { numRuns: 300, seed: 7 }).map((f) => ({ ...f, offset: NOW - T0 - 1 - (f.offset % (20 * HOUR_MS)) }));
    const { symbol, records } = await ingest(fills);
    // Each clock read is three seconds later: the budget runs out after a few pages.
    let reads = 0;
    const deps = previewDeps(() => NOW + 3_000 * Math.max(0, reads++ - 2));
    const answer = await dryRun(deps, account(), { event_type: 'market.liquidation', config: { symbols: [symbol] }, lookback_s: 86_400, limit: 200 });
    const from = Date.parse(answer.window.from);
    expect(answer.truncated).toBe(true);
    expect(from).toBeGreaterThan(NOW - 86_400_000);
    expect(from % HOUR_MS).toBe(0);
    expect(NOW - from).toBeLessThanOrEqual(Math.ceil(SCAN_BUDGET_MS / 3_000) * HOUR_MS);
    const expected = liquidationCandidates(records, new Set())
      .filter((c) => c.occurredAt >= from && (c.metrics.notional_usd as number) >= 100)
      .sort((a, b) => b.occurredAt - a.occurredAt);
    expect(answer.matched).toBe(expected.length);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThanOrEqual(200);
    const keyOf = (d: Record<string, unknown>) => `${String(d.timestamp)}|${String(d.liquidated_user)}|${String(d.notional_usd)}`;
    expect(answer.occurrences.map((o) => keyOf(o.data)).sort()).toEqual(expected.map((c) => keyOf(c.data)).sort());
    // Newest first (events of one instant in any order).
    expect(answer.occurrences.map((o) => o.data.timestamp)).toEqual(expected.map((c) => c.data.timestamp));
  });
});
