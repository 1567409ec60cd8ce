import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAINNET_BTC, VenueRateGenerator, marketsOf, rates } from '#local/venue/generator.ts';
import { venueBatches } from '#local/venue/batches.ts';
import { parseBatch } from '#core/archive/parse.ts';
import { L4Book, type CheckpointOrder } from '#core/book/l4-book.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';

const START = Date.UTC(2026, 4, 10, 12);

/** A batch's records (a format with no lines in the span is not sent: ingest refuses an empty batch). */
function records(format: Parameters<typeof parseBatch>[0], text: string, at?: number): NormalizedRecord[] {
  if (text === '') return [];
  const parsed = parseBatch(format, text, at === undefined ? {} : { at });
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.records;
}

/** Each market's book from a `node_l4_snapshot` text, as ingest stores it. */
function checkpoints(snapshot: { text: string; at: number }): Map<string, L4Book> {
  const books = new Map<string, L4Book>();
  for (const r of records('node_l4_snapshot', snapshot.text, snapshot.at)) {
    if (r.dataset !== 'l4_checkpoints') continue;
    books.set(r.symbol, L4Book.fromCheckpoint(r.bids as CheckpointOrder[], r.asks as CheckpointOrder[]));
  }
  return books;
}

const orders = (book: L4Book) => (['B', 'A'] as const).map((side) => book.side(side).map((o) => [o.oid, o.price, o.size]));

describe('the venue-rate generator', () => {
  it('solves its rates from the mainnet figures: statuses, reject share and diffs per second hold', () => {
    // Act
    const r = rates();
    const makers = r.takers * 1.6;
    const filledWhole = r.takers * (0.6 + 0.35);
    // Assess: placements and cancels (placements less whole fills) are a diff each, and each maker met is one.
    expect(r.placements + (r.placements - filledWhole) + makers).toBeCloseTo(MAINNET_BTC.rawBookDiffsPerS, 6);
    expect(r.rejects + 2 * r.placements + r.takers + 2 * r.triggers).toBeCloseTo(MAINNET_BTC.orderStatusesPerS, 6);
    expect(r.rejects / MAINNET_BTC.orderStatusesPerS).toBeCloseTo(0.95, 6);
    expect(r.triggers).toBeGreaterThan(0);
  });

  it('spreads a scale over markets, BTC the largest, weights summing to the scale', () => {
    fc.assert(
      fc.property(fc.double({ min: 1, max: 6, noNaN: true }), (scale) => {
        const markets = marketsOf(scale);
        expect(markets[0]).toEqual({ symbol: 'BTC', weight: 1 });
        expect(markets.reduce((n, m) => n + m.weight, 0)).toBeCloseTo(scale, 9);
        expect(new Set(markets.map((m) => m.symbol)).size).toBe(markets.length);
      }),
    );
    expect(() => marketsOf(0.5)).toThrow(/at least 1/);
  });

  it('writes the same market for the same seed', () => {
    const run = (seed: number) => {
      const generator = new VenueRateGenerator({ seed, scale: 2, startMs: START, intensity: 0.02 });
      return Array.from({ length: 40 }, () => generator.next());
    };
    expect(run(5)).toEqual(run(5));
    expect(run(5)).not.toEqual(run(6));
  });

  it('keeps BTC near its figures over a minute: statuses, rejects, diffs a second, and its resting depth', () => {
    // Prepare: a tenth of the rate and depth, so the test is quick; the shape is the same.
    const intensity = 0.1;
    const generator = new VenueRateGenerator({ seed: 9, scale: 1, startMs: START, intensity });
    let statuses = 0;
    let diffs = 0;
    // Act
    for (let block = generator.next(); block.ms < START + 60_000; block = generator.next()) {
      statuses += block.statuses.length;
      diffs += block.diffs.length;
    }
    // Assess: within a fifth (bursts come and go; the hourly mean is on the figures).
    const rejects = (generator.counts.badAloPxRejected ?? 0) + (generator.counts.perpMarginRejected ?? 0) + (generator.counts.iocCancelRejected ?? 0);
    expect(statuses / 60 / intensity / MAINNET_BTC.orderStatusesPerS).toBeGreaterThan(0.8);
    expect(statuses / 60 / intensity / MAINNET_BTC.orderStatusesPerS).toBeLessThan(1.3);
    expect(rejects / statuses).toBeCloseTo(0.95, 1);
    expect(diffs / 60 / intensity / MAINNET_BTC.rawBookDiffsPerS).toBeGreaterThan(0.8);
    expect(diffs / 60 / intensity / MAINNET_BTC.rawBookDiffsPerS).toBeLessThan(1.3);
    expect(generator.resting / intensity / MAINNET_BTC.restingOrders).toBeGreaterThan(0.9);
    expect(generator.resting / intensity / MAINNET_BTC.restingOrders).toBeLessThan(1.1);
  });

  it('writes files the node parsers take whole, whose diffs move the starting snapshot to the last one, never crossed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000 }), fc.double({ min: 1, max: 4, noNaN: true }), (seed, scale) => {
        // Prepare
        const generator = new VenueRateGenerator({ seed, scale, startMs: START, intensity: 0.01 });
        const books = checkpoints(generator.snapshot());
        let last: { text: string; at: number } | undefined;
        let fills = 0;
        // Act: 20 s in batches of a few blocks, a checkpoint every 5 s.
        for (const batch of venueBatches(generator, START + 20_000, { statusLines: 500, checkpointMs: 5_000 })) {
          const diffs = records('node_raw_book_diffs_streaming', batch.texts.node_raw_book_diffs_streaming.text);
          for (const d of diffs) {
            if (d.dataset !== 'l4_diffs') continue;
            books.get(d.symbol)!.apply({
              ts: d.ts,
              oid: d.oid,
              user_address: d.user_address,
              side: d.side,
              price: d.price,
              diff_type: d.diff_type,
              new_size: d.new_size ?? null,
              insert_before: null,
            });
          }
          expect(records('node_order_statuses_streaming', batch.texts.node_order_statuses_streaming.text)).toHaveLength(
            batch.texts.node_order_statuses_streaming.lines,
          );
          fills += records('node_fills_streaming', batch.texts.node_fills_streaming.text).length;
          last = batch.snapshot ?? last;
          if (batch.snapshot) {
            // Assess: at each checkpoint the replayed books are the snapshot's, order by order, and not crossed.
            const snapshot = checkpoints(batch.snapshot);
            for (const [symbol, book] of books) {
              expect(orders(book)).toEqual(orders(snapshot.get(symbol)!));
              expect(book.isCrossed()).toBe(false);
              expect(book.anomalies).toBe(0);
            }
          }
        }
        expect(last).toBeDefined();
        // Two fill lines (taker and maker) make one trade row.
        expect(fills * 2).toBe(generator.counts.fill ?? 0);
      }),
      { numRuns: 6 },
    );
  });
});
