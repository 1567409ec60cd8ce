/**
 * Correctness at the venue's rate (issue 43): seconds of the venue-rate generator at mainnet's BTC
 * figures (thousands of order statuses a second, a 51,000-order book), ingested in the node's own
 * streamed formats while compaction runs and readers read, on a clock that moves the hour through
 * its tiers (open, folded into symbol-hour files, then its day into symbol-day files, with rows
 * arriving late at each). Every read sees each row ingested before it began, nothing it could not
 * have seen, and no row twice; once the hour is compacted it reads back exactly the rows ingested.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ingestBatch } from '#core/archive/ingest.ts';
import { SETTLE_MS, compactArchive } from '#core/archive/compact.ts';
import { readWindow } from '#core/archive/read-pages.ts';
import { parseBatch } from '#core/archive/parse.ts';
import { VenueRateGenerator } from '#local/venue/generator.ts';
import { venueBatches, type VenueBatch, type VenueFormat } from '#local/venue/batches.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const D0 = Date.UTC(2026, 8, 1);
const DATASETS = ['order_events', 'l4_diffs', 'trades'] as const;
type Checked = (typeof DATASETS)[number];

const archive = scratchArchive();

/** A row's identity: the family's unique key of its dataset. */
const keyOf = (dataset: Checked, row: Record<string, unknown>) =>
  dataset === 'trades' ? `${row.symbol}#${row.trade_id}` : `${row.symbol}#${row.block_number}#${row.seq}`;

/** The keys a batch's texts hold, by dataset, from the parser ingest runs. */
function keysOf(batch: VenueBatch): Map<Checked, string[]> {
  const keys = new Map<Checked, string[]>(DATASETS.map((d) => [d, []]));
  for (const [format, { text }] of Object.entries(batch.texts) as [VenueFormat, { text: string }][]) {
    if (text === '') continue;
    const parsed = parseBatch(format, text, {});
    if (!parsed.ok) throw new Error(parsed.reason);
    for (const record of parsed.records) {
      if ((DATASETS as readonly string[]).includes(record.dataset))
        keys.get(record.dataset as Checked)!.push(keyOf(record.dataset as Checked, record as never));
    }
  }
  return keys;
}

/** Every row of the markets' hour as a reader sees it, by dataset. */
async function served(deps: ArchiveDeps, symbols: readonly string[], from: number): Promise<Map<Checked, string[]>> {
  const out = new Map<Checked, string[]>();
  for (const dataset of DATASETS) {
    const rows = await Promise.all(
      symbols.map((symbol) => readWindow(deps, { dataset, family: 'perpx', symbol, from, to: from + HOUR - 1, limit: 1_000_000 })),
    );
    out.set(
      dataset,
      rows.flatMap((r) => r.rows.map((row) => keyOf(dataset, row as Record<string, unknown>))),
    );
  }
  return out;
}

/** What a read overlapping some ingests must show: all rows done before it began, none not yet begun, each once. */
function expectBetween(seen: Map<Checked, string[]>, before: ReadonlySet<string>[], after: ReadonlySet<string>[]): void {
  DATASETS.forEach((dataset, i) => {
    const rows = seen.get(dataset)!;
    expect(new Set(rows).size, `${dataset}: a row twice`).toBe(rows.length);
    const set = new Set(rows);
    expect(
      [...before[i]!].filter((k) => !set.has(k)),
      `${dataset}: rows ingested before the read and missing`,
    ).toEqual([]);
    expect(
      rows.filter((k) => !after[i]!.has(k)),
      `${dataset}: rows nobody ingested`,
    ).toEqual([]);
  });
}

/** The clock's phases: the hour open, the hour closed (folds into symbol-hour files), its day closed (symbol-day files). */
const PHASES = [
  (hour: number) => hour + 30 * 60_000,
  (hour: number) => hour + HOUR + SETTLE_MS + 60_000,
  (hour: number) => hour - (hour % DAY) + DAY + SETTLE_MS + 60_000,
];

describe("an hour at the venue's rate", () => {
  let run = 0;
  it('reads back exactly the rows ingested while ingest, compaction and reads overlap, through every tier', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 10_000 }),
        fc.constantFrom(1, 1.5),
        // Per batch: the phase the clock is in when it lands (never going back) and whether a compaction and a read run beside its ingest.
        fc.array(fc.record({ phase: fc.nat(2), compact: fc.boolean(), read: fc.boolean() }), { minLength: 4, maxLength: 8 }),
        async (seed, scale, steps) => {
          const deps0 = archive();
          let now = 0;
          const deps: ArchiveDeps = { ...deps0, clock: { now: () => now } };
          // Each run has a day of its own, so runs do not meet.
          const hour = D0 + run++ * 5 * DAY + 12 * HOUR;
          const generator = new VenueRateGenerator({ seed, scale, startMs: hour + 1_000 });
          const symbols = generator.markets.map((m) => m.symbol);
          now = hour + 1_000;
          const first = generator.snapshot();
          expect((await ingestBatch(deps, 'node_l4_snapshot', first.text, undefined, { at: first.at })).status).toBe('ingested');
          // Two seconds of the market, a few thousand statuses a batch.
          const batches = [...venueBatches(generator, hour + 3_000, { statusLines: 4_000 })];
          const done: Set<string>[] = DATASETS.map(() => new Set());
          let phase = 0;
          for (const [i, batch] of batches.entries()) {
            const step = steps[i % steps.length]!;
            phase = Math.max(phase, step.phase);
            now = PHASES[phase]!(hour);
            const keys = keysOf(batch);
            const before = done.map((s) => new Set(s));
            const after = DATASETS.map((d, j) => new Set([...done[j]!, ...keys.get(d)!]));
            const ingests = (Object.entries(batch.texts) as [VenueFormat, { text: string; lines: number }][])
              .filter(([, t]) => t.lines > 0)
              .map(([format, t]) => ingestBatch(deps, format, t.text).then((outcome) => expect(outcome.status).toBe('ingested')));
            const [seen] = await Promise.all([
              step.read ? served(deps, symbols, hour) : undefined,
              ...ingests,
              step.compact ? compactArchive(deps) : undefined,
            ]);
            if (seen) expectBetween(seen, before, after);
            DATASETS.forEach((d, j) => {
              for (const k of keys.get(d)!) done[j]!.add(k);
            });
          }
          // The hour compacted to the end: its day closed and folded.
          now = PHASES[2]!(hour);
          await compactArchive(deps);
          expect(await deps.manifest.deltaFiles('order_events', 'perpx', '0000-01-01', '9999-12-31')).toEqual([]);
          const seen = await served(deps, symbols, hour);
          DATASETS.forEach((dataset, j) => {
            expect(seen.get(dataset)!.length).toBe(done[j]!.size);
            expectBetween(seen, done, done);
          });
          expect(done[0]!.size).toBeGreaterThan(10_000);
        },
      ),
      { numRuns: 3 },
    );
  });
});
